import { groupAccounts } from './accounts';
import { affordabilityOf } from './affordability';
import { analyzeDeal } from './deal';
import { evaluateRuleset } from './evaluation';
import { DEFAULT_PARAMS, resolveParams } from './params';
import { DEFAULT_RULESET, validateFactorRuleset, validateFlatRuleset } from './ruleset';
import { buildDealReport } from './report';
import type { LenderPositionSummary } from './positions';
import type { StatementInput, StatementTransactionInput } from './types';
import { dayNumber } from './util';

const tx = (date: string, description: string, amount: number): StatementTransactionInput => ({ date, description, amount, balance: null });

/** A statement as a parser may return it: bank and last 4 possibly unprinted (null). */
function st(
  id: number,
  period: [string, string],
  balances: [number | null, number | null],
  account: { bank?: string | null; last4?: string | null } = {},
  transactions: StatementTransactionInput[] = [],
): StatementInput {
  return {
    id,
    bankName: account.bank ?? null,
    accountNumberLast4: account.last4 ?? null,
    periodStart: period[0],
    periodEnd: period[1],
    openingBalance: balances[0],
    closingBalance: balances[1],
    transactions,
  };
}

const grouped = (statements: StatementInput[]) =>
  groupAccounts(
    statements.map((statement) => ({ statement, start: dayNumber(statement.periodStart!), end: dayNumber(statement.periodEnd!) })),
    DEFAULT_PARAMS,
  );

describe('accounts', () => {
  it('two banks with blank last 4: no balance mismatch between them; a statement continuing one by balance joins it', () => {
    const chaseJan = st(1, ['2025-01-01', '2025-01-31'], [1000, 2000], { bank: 'Chase' });
    const wellsJan = st(2, ['2025-01-01', '2025-01-31'], [500, 700], { bank: 'Wells Fargo' });
    const febUnknownBank = st(3, ['2025-02-01', '2025-02-28'], [2000, 2600]);
    const wellsMar = st(4, ['2025-03-01', '2025-03-31'], [9000, 9100], { bank: 'Wells Fargo' });
    const a = analyzeDeal({ statements: [chaseJan, wellsJan, febUnknownBank, wellsMar], fundingAmountRequested: 1000 });
    expect(a.accounts).toEqual([
      {
        account: 'A1',
        bank_name: 'Chase',
        account_number_last4: null,
        grouped_by: 'balance_continuity',
        statement_count: 2,
        statement_ids: [1, 3],
        period_start: '2025-01-01',
        period_end: '2025-02-28',
      },
      expect.objectContaining({ account: 'A2', statement_ids: [2], grouped_by: 'single_statement' }),
      // same bank, but nothing ties March to January's 700 closing: its own account, never merged
      expect.objectContaining({ account: 'A3', statement_ids: [4], grouped_by: 'single_statement' }),
    ]);
    expect(a.cross_doc.findings.filter((f) => f.type === 'balance_mismatch' || f.type === 'gap' || f.type === 'overlap')).toEqual([]);
  });

  it('the same last 4 digits are one account whatever the bank name; different digits never merge by balance', () => {
    const jan = st(1, ['2025-01-01', '2025-01-31'], [100, 200], { bank: 'Chase', last4: '1111' });
    const feb = st(2, ['2025-02-01', '2025-02-28'], [250, 300], { bank: 'JPMORGAN CHASE BANK, N.A.', last4: '1111' });
    const other = st(3, ['2025-03-01', '2025-03-31'], [300, 400], { bank: 'Chase', last4: '2222' });
    const g = grouped([jan, feb, other]);
    expect(g.keys).toEqual(['A1', 'A1', 'A2']);
    expect(g.accounts[0]).toMatchObject({ grouped_by: 'account_number', account_number_last4: '1111', statement_count: 2 });
    // one account: its balance mismatch is still reported
    const a = analyzeDeal({ statements: [jan, feb, other], fundingAmountRequested: 1 });
    expect(a.cross_doc.findings.filter((f) => f.type === 'balance_mismatch').map((f) => f.statement_ids)).toEqual([[1, 2]]);
  });

  it('statements with neither last 4 nor continuity stay separate; a zero balance links nothing; a gap over the tolerance breaks the chain', () => {
    const a = st(1, ['2025-01-01', '2025-01-31'], [0, 0]);
    const b = st(2, ['2025-02-01', '2025-02-28'], [0, 0]);
    const c = st(3, ['2025-03-01', '2025-03-31'], [500, 800]);
    const d = st(4, ['2025-04-06', '2025-04-30'], [800, 900]); // 5 days after March: more than 3 missing
    const e = st(5, ['2025-05-02', '2025-05-31'], [900, 950]); // 1 day missing: tolerated
    expect(grouped([a, b, c, d, e]).keys).toEqual(['A1', 'A2', 'A3', 'A4', 'A4']);
  });

  it('a chain by balance never joins two banks that contradict, even through a statement naming none', () => {
    const chase = st(1, ['2025-01-01', '2025-01-31'], [100, 200], { bank: 'Chase' });
    const unnamed = st(2, ['2025-02-01', '2025-02-28'], [200, 300]);
    const wells = st(3, ['2025-03-01', '2025-03-31'], [300, 400], { bank: 'Wells Fargo' });
    expect(grouped([chase, unnamed, wells]).keys).toEqual(['A1', 'A1', 'A2']);
  });

  it('a statement without last 4 continuing a numbered account joins it (either direction)', () => {
    const jan = st(1, ['2025-01-01', '2025-01-31'], [100, 200]);
    const feb = st(2, ['2025-02-01', '2025-02-28'], [200, 300], { last4: '4321' });
    const mar = st(3, ['2025-03-01', '2025-03-31'], [300, 350]);
    const g = grouped([mar, feb, jan]);
    expect(g.keys).toEqual(['A1', 'A1', 'A1']);
    expect(g.accounts[0]).toMatchObject({ account_number_last4: '4321', grouped_by: 'balance_continuity', statement_ids: [1, 2, 3] });
  });

  it('the same file uploaded twice without an account number is one account, counted once', () => {
    const s = st(1, ['2025-03-01', '2025-03-31'], [100, 1100], {}, [tx('2025-03-05', 'SQUARE INC DEPOSIT', 1000)]);
    const a = analyzeDeal({ statements: [s, { ...s, id: 2 }], fundingAmountRequested: 1000 });
    expect(a.accounts).toHaveLength(1);
    expect(a.financials.total_deposits).toBe(1000);
  });
});

describe('staleness', () => {
  const month = (id: number, y: number, m: number, deposit: number) => {
    const mm = String(m).padStart(2, '0');
    const last = new Date(Date.UTC(y, m, 0)).getUTCDate();
    return st(id, [`${y}-${mm}-01`, `${y}-${mm}-${last}`], [1000, 1000 + deposit], { last4: '1234' }, [
      tx(`${y}-${mm}-10`, 'SQUARE INC DEPOSIT', deposit),
    ]);
  };

  it('2021 and 2023 files beside 2025 ones are named stale and left out of every figure', () => {
    const statements = [
      month(1, 2021, 3, 99000),
      month(2, 2023, 6, 88000),
      month(3, 2025, 1, 3000),
      month(4, 2025, 2, 3000),
      month(5, 2025, 3, 3000),
    ];
    const a = analyzeDeal({ statements, fundingAmountRequested: 1000 });
    expect(a.coverage).toMatchObject({ months_covered: 3, statement_count: 3, period_start: '2025-01-01', period_end: '2025-03-31' });
    expect(a.financials.total_deposits).toBe(9000);
    expect(a.staleness).toEqual({
      lookback_months: 6,
      newest_period_end: '2025-03-31',
      window_start_month: '2024-10',
      stale_statements: [
        { statement_id: 1, period_start: '2021-03-01', period_end: '2021-03-31', months_before_newest: 48 },
        { statement_id: 2, period_start: '2023-06-01', period_end: '2023-06-30', months_before_newest: 21 },
      ],
    });
    expect(a.statements.map((s) => s.statement_id)).toEqual([3, 4, 5]);
  });

  it('in the report: the stale row is not included and says why; the sections are the analysis ones', () => {
    const documents = [month(1, 2023, 6, 88000), month(2, 2025, 3, 3000)].map((s) => ({
      ...s,
      id: s.id as number,
      filename: `${s.id}.pdf`,
      documentType: 'bank_statement',
      status: 'completed',
    }));
    const { report, analysis } = buildDealReport({ documents, fundingAmountRequested: 1000, reportDate: '2025-04-02' });
    expect(report.statements.map((r) => [r.document_id, r.included, r.stale, r.total_deposits])).toEqual([
      [1, false, true, null],
      [2, true, false, 3000],
    ]);
    expect(report.staleness).toBe(analysis!.staleness);
    expect(report.accounts).toEqual([expect.objectContaining({ statement_ids: [2] })]);
    expect(report.affordability).toBe(analysis!.affordability);
    expect(report.own_transfers).toEqual({ count: 0, total: 0, window_days: 3, transfers: [] });
  });

  it("the recommendation's reasons name the stale statements and end with the affordability arithmetic", () => {
    const statements = [month(1, 2023, 6, 88000), month(2, 2025, 2, 20000), month(3, 2025, 3, 20000)];
    const a = analyzeDeal({ statements, fundingAmountRequested: 1000 });
    const definition = { ...DEFAULT_RULESET, max_advance_multiplier: 2, approve_threshold: 0 };
    const e = evaluateRuleset(a, { id: 1, name: 'Generous', kind: 'flat', definition });
    const tail = e.reasons.slice(-3);
    expect(tail[0]).toBe(
      'Stale: statement 1 (2023-06-01..2023-06-30) ends 6 or more months before the newest statement (2025-03-31) and was left out of every figure',
    );
    expect(tail[1]).toBe(
      'Affordability: monthly revenue $20,000.00; existing positions take $0.00 a month (0 active positions), a holdback of 0%; ' +
        '25% maximum total holdback x $20,000.00 = $5,000.00 a month; $5,000.00 - $0.00 existing = $5,000.00 monthly headroom; ' +
        '$5,000.00 x 6 months = $30,000.00 maximum payback; $30,000.00 / 1.35 factor rate = $22,222.22 maximum advance',
    );
    // 2 x monthly revenue is more than the cash flow carries: said so
    expect(e).toMatchObject({ decision: 'approve', max_advance: 40000 });
    expect(tail[2]).toBe(
      'Affordability: the max advance of $40,000.00 is above the $22,222.22 the cash flow carries at a 25% total holdback',
    );
    const modest = evaluateRuleset(a, { id: 2, name: 'Modest', kind: 'flat', definition: { ...definition, max_advance_multiplier: 1 } });
    expect(modest.reasons.filter((r) => r.startsWith('Affordability:'))).toHaveLength(1);
  });

  it('the window boundary: with 6 months and June the newest, January counts and December is stale', () => {
    const statements = [month(1, 2024, 12, 100), month(2, 2025, 1, 100), month(3, 2025, 6, 100)];
    const a = analyzeDeal({ statements, fundingAmountRequested: 1000 });
    expect(a.staleness.stale_statements.map((s) => s.statement_id)).toEqual([1]);
    const wider = analyzeDeal({ statements, fundingAmountRequested: 1000, params: { lookbackMonths: 7 } });
    expect(wider.staleness.stale_statements).toEqual([]);
  });
});

describe('own-account transfers', () => {
  const pair = (creditDate: string, sameAccount = false) => [
    st(1, ['2025-03-01', '2025-03-31'], [10000, 17500], { bank: 'Chase', last4: '1111' }, [
      tx('2025-03-02', 'SQUARE INC DEPOSIT', 10000),
      tx('2025-03-10', 'ZELLE PAYMENT J SMITH', -2500),
    ]),
    st(2, ['2025-03-01', '2025-03-31'], [0, 2500], { bank: 'Chase', last4: sameAccount ? '1111' : '2222' }, [
      tx(creditDate, 'DEPOSIT', 2500),
    ]),
  ];

  it('a debit in one account and a credit of the same amount in another within 3 days is a transfer on both sides, listed', () => {
    const a = analyzeDeal({ statements: pair('2025-03-13'), fundingAmountRequested: 1000 });
    expect(a.transactions.map((t) => t.category)).toEqual(['revenue', 'transfer', 'transfer']);
    expect(a.financials.total_revenue).toBe(10000);
    expect(a.financials.total_operating_expenses).toBe(0);
    expect(a.own_transfers).toEqual({
      count: 1,
      total: 2500,
      window_days: 3,
      transfers: [
        {
          amount: 2500,
          days_apart: 3,
          debit: { account: 'A1', statement_id: 1, statement_tx_index: 1, date: '2025-03-10', description: 'ZELLE PAYMENT J SMITH' },
          credit: { account: 'A2', statement_id: 2, statement_tx_index: 0, date: '2025-03-13', description: 'DEPOSIT' },
        },
      ],
    });
  });

  it('4 days apart, or inside one account, is no transfer', () => {
    for (const statements of [pair('2025-03-14'), pair('2025-03-13', true)]) {
      const a = analyzeDeal({ statements, fundingAmountRequested: 1000 });
      expect(a.own_transfers.count).toBe(0);
      expect(a.financials.total_revenue).toBe(12500);
    }
  });

  it('each row is matched once, to the nearest day; a card settlement is never a transfer', () => {
    const statements = [
      st(1, ['2025-03-01', '2025-03-31'], [5000, 1000], { last4: '1111' }, [
        tx('2025-03-10', 'ONLINE TRANSFER TO CHK 2222', -2000),
        tx('2025-03-12', 'ONLINE TRANSFER TO CHK 2222', -2000),
      ]),
      st(2, ['2025-03-01', '2025-03-31'], [0, 6000], { last4: '2222' }, [
        tx('2025-03-12', 'ONLINE TRANSFER FROM CHK 1111', 2000),
        tx('2025-03-13', 'SQUARE INC DEPOSIT', 2000),
        tx('2025-03-13', 'ONLINE TRANSFER FROM CHK 1111', 2000),
      ]),
    ];
    const a = analyzeDeal({ statements, fundingAmountRequested: 1000 });
    expect(a.own_transfers.transfers.map((t) => [t.debit.date, t.credit.date])).toEqual([
      ['2025-03-12', '2025-03-12'],
      ['2025-03-10', '2025-03-13'],
    ]);
    expect(a.transactions.find((t) => t.description === 'SQUARE INC DEPOSIT')!.category).toBe('revenue');
  });
});

describe('affordability', () => {
  const positions = (monthly: number[], active = true): LenderPositionSummary => ({
    positions: monthly.map((m, i) => ({
      counterparty: `lender ${i}`,
      known_lender: true,
      frequency: 'daily',
      payment_amount: 0,
      payment_count: 0,
      total_paid: 0,
      first_seen: '2025-01-01',
      last_seen: '2025-03-31',
      estimated_monthly_total: m,
      estimated_daily_debit: 0,
      estimated_weekly_debit: 0,
      share_of_deposits: null,
      is_active: active,
    })),
    position_count: monthly.length,
    active_count: active ? monthly.length : 0,
    stacking_count: monthly.length,
    estimated_monthly_total: monthly.reduce((a, b) => a + b, 0),
  });

  it('(25% x revenue - existing debits) x term / factor rate, each step printed', () => {
    const a = affordabilityOf(30000, positions([4350]), { maxTotalHoldback: 0.25, factorRate: 1.35, termMonths: 6 });
    expect(a).toMatchObject({
      monthly_revenue: 30000,
      existing_monthly_debits: 4350,
      existing_holdback: 0.145,
      monthly_headroom: 3150,
      max_payback: 18900,
      max_advance: 14000,
    });
    expect(a.steps).toEqual([
      'monthly revenue $30,000.00; existing positions take $4,350.00 a month (1 active position), a holdback of 14.5%',
      '25% maximum total holdback x $30,000.00 = $7,500.00 a month',
      '$7,500.00 - $4,350.00 existing = $3,150.00 monthly headroom',
      '$3,150.00 x 6 months = $18,900.00 maximum payback',
      '$18,900.00 / 1.35 factor rate = $14,000.00 maximum advance',
    ]);
  });

  it('no headroom, no advance; positions paid off do not count; no revenue, no holdback', () => {
    expect(affordabilityOf(10000, positions([2000, 1500]), { maxTotalHoldback: 0.25, factorRate: 1.4, termMonths: 8 })).toMatchObject({
      monthly_headroom: -1000,
      max_payback: 0,
      max_advance: 0,
    });
    expect(affordabilityOf(10000, positions([2000], false), { maxTotalHoldback: 0.2, factorRate: 1.25, termMonths: 5 })).toMatchObject({
      existing_monthly_debits: 0,
      max_advance: 8000,
    });
    expect(affordabilityOf(0, positions([]), { maxTotalHoldback: 0.2, factorRate: 1.25, termMonths: 5 }).existing_holdback).toBeNull();
  });

  it('in the analysis: daily lender payments against the deal revenue, at the parameters', () => {
    const txs: StatementTransactionInput[] = [tx('2025-03-03', 'SQUARE INC DEPOSIT', 31000)];
    for (let d = 3; d <= 31; d++) {
      const day = new Date(Date.UTC(2025, 2, d)).getUTCDay();
      if (day !== 0 && day !== 6) txs.push(tx(`2025-03-${String(d).padStart(2, '0')}`, 'ONDECK CAPITAL PAYMENT', -200));
    }
    const a = analyzeDeal({
      statements: [st(1, ['2025-03-01', '2025-03-31'], [0, null], { last4: '1' }, txs)],
      fundingAmountRequested: 1000,
      params: { maxTotalHoldback: 0.3, proposedFactorRate: 1.5, proposedTermMonths: 4 },
    });
    const af = a.affordability;
    expect(af.existing_monthly_debits).toBe(4350); // 200 x 21.75
    expect(af.monthly_revenue).toBe(a.financials.avg_monthly_revenue);
    expect(af.max_advance).toBe(Math.round(((0.3 * af.monthly_revenue - 4350) * 4 * 100) / 1.5) / 100);
  });

  it("a ruleset's own holdback, factor rate and term price the affordability in its reasons; absent terms keep the defaults", () => {
    const statements = [st(1, ['2025-03-01', '2025-03-31'], [0, 20000], { last4: '1' }, [tx('2025-03-03', 'SQUARE INC DEPOSIT', 20000)])];
    const a = analyzeDeal({ statements, fundingAmountRequested: 1000 });
    const definition = { ...DEFAULT_RULESET, max_total_holdback: 0.1, factor_rate: 1.25, term_months: 10 };
    const own = evaluateRuleset(a, { id: 1, name: 'Own terms', kind: 'flat', definition });
    // 10% x 20,000 = 2,000 a month; x 10 months = 20,000 payback; / 1.25 = 16,000
    expect(own.reasons.find((r) => r.startsWith('Affordability: monthly'))).toContain(
      '10% maximum total holdback x $20,000.00 = $2,000.00 a month; $2,000.00 - $0.00 existing = $2,000.00 monthly headroom; $2,000.00 x 10 months = $20,000.00 maximum payback; $20,000.00 / 1.25 factor rate = $16,000.00 maximum advance',
    );
    const partial = evaluateRuleset(a, { id: 2, name: 'Term only', kind: 'flat', definition: { ...DEFAULT_RULESET, term_months: 3 } });
    expect(partial.reasons.find((r) => r.startsWith('Affordability: monthly'))).toContain(
      '$5,000.00 x 3 months = $15,000.00 maximum payback',
    );
  });

  it('ruleset affordability terms are optional and validated on both kinds', () => {
    expect(validateFlatRuleset({ ...DEFAULT_RULESET, max_total_holdback: 0.3, factor_rate: 1.4, term_months: 9 }).valid).toBe(true);
    expect(validateFlatRuleset({ ...DEFAULT_RULESET, factor_rate: null }).valid).toBe(true);
    expect(validateFlatRuleset({ ...DEFAULT_RULESET, max_total_holdback: 0 }).errors.map((e) => e.field)).toEqual(['max_total_holdback']);
    const factors = { factors: [{ name: 'negative_days', weight: 1, threshold: 0 }], approval_threshold: 60, decline_threshold: 30 };
    expect(validateFactorRuleset({ ...factors, term_months: 48, factor_rate: '1.3' }).errors.map((e) => e.field)).toEqual([
      'factor_rate',
      'term_months',
    ]);
  });

  it('the window and caps are validated', () => {
    expect(() => resolveParams({ lookbackMonths: 0 })).toThrow('lookbackMonths must be an integer of at least 1');
    expect(() => resolveParams({ maxTotalHoldback: 1.5 })).toThrow('maxTotalHoldback');
    expect(() => resolveParams({ proposedFactorRate: 0.9 })).toThrow('proposedFactorRate');
  });
});
