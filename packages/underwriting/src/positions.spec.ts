import { descriptionFeatures } from './categorize';
import { LenderMatcher } from './lenders';
import { detectLenderPositions } from './positions';
import { screenTransactions } from './screening';
import type { StatementTransactionInput } from './types';
import { dayNumber } from './util';

const tx = (date: string, description: string, amount: number): StatementTransactionInput => ({ date, description, amount, balance: null });

/** Weekdays from start (inclusive) for n business days. */
function weekdays(start: string, n: number): string[] {
  const out: string[] = [];
  const d = new Date(`${start}T00:00:00Z`);
  while (out.length < n) {
    const wd = d.getUTCDay();
    if (wd !== 0 && wd !== 6) out.push(d.toISOString().slice(0, 10));
    d.setUTCDate(d.getUTCDate() + 1);
  }
  return out;
}

function positionsOf(txs: StatementTransactionInput[], factorRate?: number) {
  const screened = screenTransactions(txs);
  const features = txs.map((t) => descriptionFeatures(t.description ?? ''));
  const last = Math.max(...txs.map((t) => dayNumber(t.date)));
  return detectLenderPositions(screened, {
    asOf: last,
    monthsCovered: 3,
    avgMonthlyDeposits: 100_000,
    positionActiveDays: 14,
    features,
    factorRate,
    factorRateSource: factorRate ? 'params' : 'default',
  });
}

describe('detectLenderPositions: funding, renewal, modification', () => {
  // OnDeck funds 20,000 on Jan 2, daily 250 for 30 business days; renewal: funds 30,000, then daily 400
  const days = weekdays('2024-01-03', 70);
  const txs = [tx('2024-01-02', 'ONDECK CAPITAL DES:LOAN PROCEEDS', 20_000)];
  days.slice(0, 30).forEach((d) => txs.push(tx(d, 'ONDECK CAPITAL DES:PAYMENT', -250)));
  txs.push(tx('2024-02-15', 'ODK CAPITAL LLC ACH CREDIT', 30_000));
  days.slice(32, 70).forEach((d) => txs.push(tx(d, 'ONDECK CAPITAL DES:PAYMENT', -400)));
  const s = positionsOf(txs);

  it('a funding deposit starts a position; a new one is a renewal of the same lender', () => {
    expect(s.positions.map((p) => [p.lender_id, p.sequence, p.start_reason, p.funding_amount, p.payment_amount, p.payment_count])).toEqual([
      ['ondeck', 2, 'renewal', 30_000, 400, 38],
      ['ondeck', 1, 'new', 20_000, 250, 30],
    ]);
    expect(s.positions[1]).toMatchObject({ funding_date: '2024-01-02', first_seen: '2024-01-02', frequency: 'daily', is_active: false });
  });

  it('estimates the remaining balance from the funding x 1.35 (default) minus what was paid since', () => {
    const [renewal, first] = s.positions;
    expect([first.estimated_payback, first.total_paid, first.estimated_remaining_balance]).toEqual([27_000, 7_500, 19_500]);
    expect([renewal.estimated_payback, renewal.total_paid, renewal.estimated_remaining_balance]).toEqual([40_500, 15_200, 25_300]);
    expect([s.factor_rate, s.factor_rate_source]).toEqual([1.35, 'default']);
    expect(positionsOf(txs, 1.4).positions[1].estimated_payback).toBe(28_000);
    expect(positionsOf(txs, 1.4).factor_rate_source).toBe('params');
  });

  it('a renewal ends the earlier position: not stacked', () => {
    expect(s.stacking_count).toBe(1);
    expect(s.positions.every((p) => !p.stacked)).toBe(true);
  });

  it('lists the transactions each position stands on', () => {
    const first = s.positions[1];
    expect(first.transactions[0]).toMatchObject({ role: 'funding', index: 0, amount: 20_000 });
    expect(first.transactions.filter((t) => t.role === 'payment')).toHaveLength(30);
  });

  it('a lasting change of the payment amount (3 payments) is a modification; a one-off amount is not', () => {
    const w = weekdays('2024-03-04', 12);
    const m = [
      ...w.slice(0, 5).map((d) => tx(d, 'FORA FINANCIAL DES:PAYMENT', -300)),
      tx(w[5], 'FORA FINANCIAL DES:PAYMENT', -150),
      ...w.slice(6, 8).map((d) => tx(d, 'FORA FINANCIAL DES:PAYMENT', -300)),
      ...w.slice(8, 12).map((d) => tx(d, 'FORA FINANCIAL DES:PAYMENT', -200)),
    ];
    const p = positionsOf(m).positions.sort((a, b) => a.sequence - b.sequence);
    expect(p.map((x) => [x.start_reason, x.payment_amount, x.payment_count])).toEqual([
      ['new', 300, 8],
      ['modification', 200, 4],
    ]);
  });
});

describe('detectLenderPositions: missed and bounced payments, stacking, transfers', () => {
  it('counts expected weekdays without a payment and payments returned within 10 days', () => {
    const w = weekdays('2024-04-01', 15); // Apr 1 .. Apr 19
    const txs = w.filter((_, i) => i !== 3 && i !== 4).map((d) => tx(d, 'KAPITUS DES:PAYMENT', -180));
    txs.push(tx('2024-04-12', 'ACH RETURN KAPITUS R01 NSF', 180));
    const [p] = positionsOf(txs).positions;
    expect([p.payment_count, p.missed_payments, p.bounced_payments]).toEqual([13, 2, 1]);
    expect(p.total_paid).toBe(12 * 180);
    expect(p.funding_amount).toBeNull(); // the return is no funding
    expect(p.transactions.filter((t) => t.role === 'return')).toHaveLength(1);
    expect(p.transactions.filter((t) => t.role === 'returned_payment')).toHaveLength(1);
  });

  it('counts missed weeks of a weekly position', () => {
    const txs = ['2024-01-05', '2024-01-12', '2024-01-19', '2024-02-09', '2024-02-16', '2024-02-23'].map((d) =>
      tx(d, 'LIBERTAS FUNDING', -900),
    );
    const [p] = positionsOf(txs).positions;
    expect([p.frequency, p.missed_payments]).toEqual(['weekly', 2]);
  });

  it('two lenders paid at the same time are stacked', () => {
    const w = weekdays('2024-05-01', 20);
    const txs = [
      ...w.map((d) => tx(d, 'YELLOWSTONE CAPITAL ACH', -500)),
      ...w.slice(10).map((d) => tx(d, 'EVEREST BUSINESS FUNDING ACH', -350)),
    ];
    const s = positionsOf(txs);
    expect(s.stacking_count).toBe(2);
    expect(s.positions.map((p) => p.stacked)).toEqual([true, true]);
  });

  it('steady debits to a name known as no lender are no position by recurrence; an unknown name is', () => {
    const w = weekdays('2024-07-01', 30).filter((_, i) => i % 5 === 0); // weekly
    const card = w.map((d) => tx(d, 'AMEX EPAYMENT ACH PMT', -750));
    const unknown = w.map((d) => tx(d, 'NORTHWIND PARTNERS ACH', -750));
    expect(positionsOf(card).positions).toEqual([]);
    expect(positionsOf(unknown).positions.map((p) => [p.counterparty, p.known_lender, p.frequency])).toEqual([
      ['northwind partners', false, 'weekly'],
    ]);
  });

  it('a name the organization marks as no lender is no position by recurrence either', () => {
    const w = weekdays('2024-07-01', 30).filter((_, i) => i % 5 === 0);
    const txs = w.map((d) => tx(d, 'NORTHWIND PARTNERS ACH', -750));
    const m = new LenderMatcher([{ id: 3, name: 'Northwind Partners', aliases: [], kind: 'not_lender' }]);
    expect(screenTransactions(txs, undefined, { lenders: m }).some((t) => t.is_lender_payment)).toBe(false);
    expect(screenTransactions(txs).every((t) => t.is_lender_payment)).toBe(true);
  });

  it('a transfer to own savings at a fintech bank is never a position', () => {
    const w = weekdays('2024-06-03', 10);
    const txs = w.map((d) => tx(d, 'BLUEVINE MCA TRANSFER TO SAVINGS', -1_000));
    txs.push(tx(w[0], 'BLUEVINE TRANSFER FROM SAVINGS', 25_000));
    expect(positionsOf(txs).positions).toEqual([]);
  });
});
