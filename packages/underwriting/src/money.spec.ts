import { prng } from './__fixtures__/helpers';
import { analyzeDeal, type DealAnalysis } from './deal';
import { DEFAULT_RULESET, recommend } from './ruleset';
import type { StatementInput, StatementTransactionInput } from './types';
import { divCents, fromCents } from './util';

/**
 * Money is added in integer cents and divided once (half away from zero). Every total and average
 * the report prints is compared with exact decimal arithmetic (BigInt cents) over seeded random
 * cent amounts: the seed is in each test's name, so a failure reproduces.
 */

/** Exact half-away-from-zero division of BigInt cents, back to a decimal string "123.45". */
function exactAvg(total: bigint, n: bigint): string {
  if (n === 0n) return '0.00';
  const neg = total < 0n;
  const a = neg ? -total : total;
  let q = a / n;
  if (2n * (a % n) >= n) q++;
  return dollars(neg && q !== 0n ? -q : q);
}
function dollars(c: bigint): string {
  const neg = c < 0n;
  const a = neg ? -c : c;
  return `${neg ? '-' : ''}${a / 100n}.${String(a % 100n).padStart(2, '0')}`;
}
const printed = (x: number) => x.toFixed(2);
const big = (amount: number) => BigInt(Math.round(amount * 100));

/** One statement a month, Jan..Jun 2025, with random cents: deposits named as card settlements (revenue) or transfers (not). */
function randomDeal(seed: number): StatementInput[] {
  const rnd = prng(seed);
  const out: StatementInput[] = [];
  let balanceCents = Math.floor(rnd() * 5_000_000);
  for (let m = 1; m <= 6; m++) {
    const days = new Date(Date.UTC(2025, m, 0)).getUTCDate();
    const mm = String(m).padStart(2, '0');
    const opening = balanceCents;
    const txs: StatementTransactionInput[] = [];
    const n = 3 + Math.floor(rnd() * 25);
    for (let k = 0; k < n; k++) {
      const day = String(1 + Math.floor((k * days) / n)).padStart(2, '0');
      // up to $10M with every cent digit random, so sums and averages hit every rounding case
      const c = 1 + Math.floor(rnd() * (rnd() < 0.2 ? 1_000_000_000 : 500_000));
      const r = rnd();
      const description = r < 0.5 ? 'STRIPE TRANSFER' : r < 0.65 ? 'ONLINE TRANSFER FROM SAVINGS' : r < 0.8 ? 'NSF FEE' : 'SHELL OIL';
      const amount = (r < 0.65 ? c : -c) / 100;
      balanceCents += r < 0.65 ? c : -c;
      txs.push({ date: `2025-${mm}-${day}`, description, amount, balance: balanceCents / 100 });
    }
    out.push({
      id: m,
      bankName: 'Test Bank',
      accountNumberLast4: '0001',
      periodStart: `2025-${mm}-01`,
      periodEnd: `2025-${mm}-${days}`,
      openingBalance: opening / 100,
      closingBalance: balanceCents / 100,
      transactions: txs,
    });
  }
  return out;
}

/** What every printed total and average should be, from BigInt cents. */
function expected(statements: StatementInput[], a: DealAnalysis) {
  const txs = statements.flatMap((s) => s.transactions);
  const isRevenue = (t: StatementTransactionInput) => t.amount > 0 && t.description === 'STRIPE TRANSFER';
  let deposits = 0n;
  let withdrawals = 0n;
  let revenue = 0n;
  let count = 0n;
  for (const t of txs) {
    if (t.amount > 0) {
      deposits += big(t.amount);
      count++;
    } else withdrawals -= big(t.amount);
    if (isRevenue(t)) revenue += big(t.amount);
  }
  const months = BigInt(a.coverage.months_covered);
  return { deposits, withdrawals, revenue, count, months, isRevenue };
}

const SEEDS = Array.from({ length: 40 }, (_, i) => 7 + i * 104729);

describe('money in integer cents', () => {
  it('averages the issue example to the right cent (1,044,742.02 + 3,937,867.59 -> 2,491,304.81)', () => {
    const total = Math.round(1_044_742.02 * 100) + Math.round(3_937_867.59 * 100);
    expect(fromCents(divCents(total, 2))).toBe(2_491_304.81);
    // the float way this replaced lands a cent short
    expect(Math.round(((1_044_742.02 + 3_937_867.59) / 2) * 100) / 100).toBe(2_491_304.8);
  });

  it('divides half away from zero, exactly, on integers', () => {
    expect(divCents(5, 2)).toBe(3);
    expect(divCents(-5, 2)).toBe(-3);
    expect(divCents(4, 3)).toBe(1);
    expect(divCents(5, 3)).toBe(2);
    expect(divCents(7, 0)).toBe(0);
    expect(divCents(2 ** 52 + 1, 2)).toBe(2 ** 51 + 1);
  });

  it('two-deposit averages match exact decimal arithmetic in 2,000 random cases', () => {
    const rnd = prng(20261127);
    let wrong = 0;
    for (let i = 0; i < 2000; i++) {
      const c1 = Math.floor(rnd() * 1e9);
      const c2 = Math.floor(rnd() * 1e9);
      const statement: StatementInput = {
        periodStart: '2025-01-01',
        periodEnd: '2025-02-28',
        openingBalance: 0,
        closingBalance: (c1 + c2) / 100,
        transactions: [
          { date: '2025-01-10', description: 'STRIPE TRANSFER', amount: c1 / 100, balance: c1 / 100 },
          { date: '2025-02-10', description: 'STRIPE TRANSFER', amount: c2 / 100, balance: (c1 + c2) / 100 },
        ],
      };
      const a = analyzeDeal({ statements: [statement], fundingAmountRequested: 10_000 });
      const want = exactAvg(BigInt(c1) + BigInt(c2), 2n);
      if (printed(a.financials.avg_monthly_deposits) !== want || printed(a.financials.avg_deposit_amount) !== want) wrong++;
      if (printed(a.financials.avg_monthly_revenue) !== want) wrong++;
    }
    expect(wrong).toBe(0);
  });

  it.each(SEEDS)('every total and average the report prints is exact (seed %i)', (seed) => {
    const statements = randomDeal(seed);
    const a = analyzeDeal({ statements, fundingAmountRequested: 50_000 });
    const e = expected(statements, a);
    const f = a.financials;
    expect(printed(f.total_deposits)).toBe(dollars(e.deposits));
    expect(printed(f.total_withdrawals)).toBe(dollars(e.withdrawals));
    expect(printed(f.total_revenue)).toBe(dollars(e.revenue));
    expect(printed(f.net_cash_flow)).toBe(dollars(e.deposits - e.withdrawals));
    expect(printed(f.avg_monthly_deposits)).toBe(exactAvg(e.deposits, e.months));
    expect(printed(f.avg_monthly_revenue)).toBe(exactAvg(e.revenue, e.months));
    expect(printed(f.avg_deposit_amount)).toBe(exactAvg(e.deposits, e.count));
    expect(printed(a.cash_flow.monthly_revenue)).toBe(exactAvg(e.revenue, e.months));
    const r = recommend(a, DEFAULT_RULESET);
    if (r.max_advance !== null) expect(printed(r.max_advance)).toBe(exactAvg(e.revenue, e.months));
    // balances: every day's balance is a printed running balance; their mean is exact too
    const bal = a.daily_balances.reduce((s, d) => s + big(d.balance), 0n);
    expect(printed(f.avg_daily_balance)).toBe(exactAvg(bal, BigInt(a.daily_balances.length)));
    for (const m of a.monthly) {
      const inMonth = statements.flatMap((s) => s.transactions).filter((t) => t.date.startsWith(m.month));
      const dep = inMonth.filter((t) => t.amount > 0).reduce((s, t) => s + big(t.amount), 0n);
      const wd = inMonth.filter((t) => t.amount < 0).reduce((s, t) => s - big(t.amount), 0n);
      const rev = inMonth.filter(e.isRevenue).reduce((s, t) => s + big(t.amount), 0n);
      expect([m.month, printed(m.deposits), printed(m.withdrawals), printed(m.revenue)]).toEqual([
        m.month,
        dollars(dep),
        dollars(wd),
        dollars(rev),
      ]);
      // revenue_rate = revenue / days x 30.4375 = revenue x 487 / (16 days)
      expect(printed(m.revenue_rate)).toBe(exactAvg(rev * 487n, BigInt(m.days_covered) * 16n));
    }
    for (const s of a.statements) {
      const txs = statements.find((x) => x.id === s.statement_id)!.transactions;
      const dep = txs.filter((t) => t.amount > 0).reduce((x, t) => x + big(t.amount), 0n);
      const n = BigInt(txs.filter((t) => t.amount > 0).length);
      expect(printed(s.total_deposits)).toBe(dollars(dep));
      expect(printed(s.avg_deposit_amount)).toBe(exactAvg(dep, n));
      expect(s.reconciliation_difference).toBe(0);
    }
    // the true revenue table: gross, excluded transfers and true revenue, per month and in total
    const transfers = statements
      .flatMap((x) => x.transactions)
      .filter((t) => t.amount > 0 && t.description === 'ONLINE TRANSFER FROM SAVINGS')
      .reduce((x, t) => x + big(t.amount), 0n);
    const table = a.revenue.totals;
    expect([table.gross_deposits, table.excluded.transfer, table.true_revenue].map(printed)).toEqual([
      dollars(e.deposits),
      dollars(transfers),
      dollars(e.revenue),
    ]);
    expect(a.revenue.months.map((m) => printed(m.true_revenue))).toEqual(a.monthly.map((m) => printed(m.revenue)));
    const sources = a.revenue_sources.reduce((x, r) => x + big(r.total), 0n);
    expect(dollars(sources)).toBe(dollars(e.revenue));
    const fees = statements
      .flatMap((s) => s.transactions)
      .filter((t) => t.description === 'NSF FEE')
      .reduce((x, t) => x - big(t.amount), 0n);
    expect(printed(a.nsf_overdraft.nsf_fee_amount)).toBe(dollars(fees));
  });
});
