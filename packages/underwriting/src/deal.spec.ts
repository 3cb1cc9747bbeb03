import { assemble, daysInMonth, statement, tx, ymd } from './__fixtures__/helpers';
import { analyzeDeal } from './deal';
import type { StatementInput } from './types';

describe('analyzeDeal: a small deal checked by hand', () => {
  // 2024-06-01..04, opening -2600, one Square deposit of 4,000 on 06-02.
  // End-of-day balances: -2600, 1400, 1400, 1400.
  const st = statement({
    id: 'june',
    periodStart: '2024-06-01',
    periodEnd: '2024-06-04',
    openingBalance: -2600,
    closingBalance: 1400,
    transactions: [tx('2024-06-02', 'SQUARE INC DEPOSIT', 4000, 1400)],
  });
  const a = analyzeDeal({ statements: [st], fundingAmountRequested: 8000 });

  it('coverage and financials', () => {
    expect(a.coverage).toEqual({
      months_covered: 1,
      days_covered: 4,
      statement_count: 1,
      period_start: '2024-06-01',
      period_end: '2024-06-04',
    });
    expect(a.as_of).toBe('2024-06-04');
    expect(a.financials).toMatchObject({
      avg_monthly_deposits: 4000,
      avg_monthly_revenue: 4000,
      avg_daily_balance: 400, // (-2600 + 3 x 1400) / 4
      min_daily_balance: -2600,
      max_daily_balance: 1400,
      ending_balance: 1400,
      total_deposits: 4000,
      total_withdrawals: 0,
      negative_balance_days: 1,
      low_balance_days: 1,
      deposit_frequency_per_month: 1,
      revenue_deposit_days: 1,
    });
  });

  it('health factors', () => {
    expect(a.health.factors).toEqual({
      revenue: 33.33, // 4000 / 8000 = 0.5; 100 x 0.5 / 1.5
      // adb 400 vs target 0.25 x 4000 = 1000 -> 40; ending 1400 -> 100 (capped); low days 1 of 4 -> 75
      balance_health: 66, // 0.4 x 40 + 0.2 x 100 + 0.4 x 75
      nsf_overdraft: 100,
      deposit_frequency: 8.33, // 1 deposit day per month / 12 x 100
      revenue_trend: 50, // no month with >= 15 covered days
      debt_service: 100,
    });
    // 0.25 x 33.33 + 0.2 x 66 + 0.2 x 100 + 0.1 x 8.33 + 0.1 x 50 + 0.15 x 100 = 62.3655
    expect(a.health.score).toBeCloseTo(62.37, 2);
    expect(a.health.grade).toBe('C');
    expect(a.factor_scores.transaction_screening).toBe(100);
    expect(a.factor_scores.cross_doc).toBe(100);
    expect(a.factor_scores.health_score).toBe(a.health.score);
  });

  it('factor-list (Form B) factors', () => {
    expect(a.form_b_scores).toEqual({
      revenue_stability: 0, // no full month of revenue
      average_daily_balance: 40,
      deposit_consistency: 100, // one 7-day block (4 days), with a deposit
      nsf_frequency: 100,
      negative_days: 75, // 1 of 4 days negative
      high_risk_transactions: 100,
    });
  });

  it('cash flow coverage', () => {
    // revenue 4000, no expenses, no debt; proposed payment 8000 x 1.35 / 6 = 1800 -> 4000 / 1800
    expect(a.cash_flow).toEqual({
      monthly_revenue: 4000,
      monthly_operating_expenses: 0,
      cash_flow_available: 4000,
      existing_monthly_debt_service: 0,
      proposed_monthly_payment: 1800,
      cfcr: 2.22,
    });
  });

  it('per-transaction and per-statement results are included', () => {
    expect(a.transactions).toHaveLength(1);
    expect(a.transactions[0]).toMatchObject({
      category: 'revenue',
      statement_index: 0,
      statement_id: 'june',
      counted: true,
      screening_bucket: null,
    });
    expect(a.statements[0].avg_daily_balance).toBe(400);
  });

  it('rejects a non-positive funding amount', () => {
    expect(() => analyzeDeal({ statements: [st], fundingAmountRequested: 0 })).toThrow(RangeError);
  });
});

describe('analyzeDeal: lender positions, debt service and stacking (March 2024)', () => {
  const txs = [];
  for (let d = 1; d <= 31; d++) {
    const date = ymd(2024, 3, d);
    const wd = new Date(Date.UTC(2024, 2, d)).getUTCDay();
    if (wd === 0 || wd === 6) continue;
    txs.push({ date, description: 'SQUARE INC DEPOSIT', amount: 3000 });
    txs.push({ date, description: 'YELLOWSTONE CAPITAL ACH DEBIT', amount: -500 });
    if (wd === 5) txs.push({ date, description: 'KALAMATA CAPITAL GROUP', amount: -1000 });
  }
  txs.push({ date: '2024-03-01', description: 'RENT PAYMENT', amount: -8000 });
  txs.push({ date: '2024-03-20', description: 'NSF FEE', amount: -35 });
  const [st] = assemble([{ year: 2024, month: 3, transactions: txs }], 5000);
  const a = analyzeDeal({ statements: [st], fundingAmountRequested: 50000 });

  it('finds both positions with cadence, payment and monthly estimate', () => {
    // 21 weekdays in March 2024, 5 Fridays
    const lp = a.lender_positions;
    expect(lp.position_count).toBe(2);
    expect(lp.stacking_count).toBe(2);
    expect(lp.active_count).toBe(2);
    expect(lp.directory_version).toMatch(/^\d{4}\.\d+\.\d+$/);
    expect([lp.factor_rate, lp.factor_rate_source]).toEqual([1.35, 'default']);
    expect(lp.positions[0]).toMatchObject({
      counterparty: 'yellowstone capital',
      known_lender: true,
      lender_id: 'yellowstone-capital',
      lender_kind: 'mca',
      sequence: 1,
      start_reason: 'new',
      funding_amount: null,
      estimated_remaining_balance: null,
      missed_payments: 0,
      bounced_payments: 0,
      stacked: true,
      frequency: 'daily',
      payment_amount: 500,
      payment_count: 21,
      total_paid: 10500,
      first_seen: '2024-03-01',
      last_seen: '2024-03-29',
      estimated_monthly_total: 10875, // 500 x 261 / 12
      estimated_daily_debit: 500, // 10875 / 21.75
      estimated_weekly_debit: 2509.62, // 10875 x 12 / 52
      share_of_deposits: 0.1726, // 10875 / 63000
      is_active: true,
    });
    expect(lp.positions[0].transactions).toHaveLength(21);
    expect(lp.positions[0].transactions[0]).toEqual({
      index: 1,
      role: 'payment',
      date: '2024-03-01',
      amount: -500,
      statement_id: 1,
      statement_tx_index: 1,
      transaction_id: null,
    });
    expect(lp.positions[1]).toMatchObject({
      counterparty: 'kalamata capital group',
      lender_id: 'kalamata-capital',
      frequency: 'weekly',
      payment_amount: 1000,
      payment_count: 5,
      estimated_monthly_total: 4333.33, // 1000 x 52 / 12
    });
    expect(lp.estimated_monthly_total).toBe(15208.33);
  });

  it('scores revenue, fees, frequency and debt service', () => {
    expect(a.financials.total_revenue).toBe(63000);
    expect(a.financials.total_debt_service).toBe(15500);
    expect(a.financials.total_operating_expenses).toBe(8035);
    expect(a.health.factors.revenue).toBe(84); // 63000 / 50000 = 1.26; / 1.5
    expect(a.health.factors.nsf_overdraft).toBe(70); // 100 - 20 x 1/month - 10 (fee 11 days before as-of)
    expect(a.health.factors.deposit_frequency).toBe(100); // 21 deposit days > 12
    expect(a.health.factors.revenue_trend).toBe(50); // one month
    expect(a.health.factors.debt_service).toBe(50.79); // 100 x (1 - (15500 / 63000) / 0.5)
    // flagged: 21 + 5 lender payments + 1 NSF = 27 of 49 -> above 20 % -> 0
    expect(a.screening.total_flags).toBe(27);
    expect(a.screening.transaction_count).toBe(49);
    expect(a.screening.buckets.mca_payment).toBe(26);
    expect(a.factor_scores.transaction_screening).toBe(0);
    expect(a.nsf_overdraft).toEqual({
      total_nsf_fees: 1,
      total_overdraft_fees: 0,
      nsf_months: 1,
      overdraft_months: 0,
      nsf_fee_amount: 35,
      overdraft_fee_amount: 0,
    });
  });

  it('cfcr = (revenue - operating expenses) / (existing debt service + proposed payment)', () => {
    // (63000 - 8035) / (15500 + 50000 x 1.35 / 6) = 54965 / 26750
    expect(a.cash_flow.cash_flow_available).toBe(54965);
    expect(a.cash_flow.proposed_monthly_payment).toBe(11250);
    expect(a.cash_flow.cfcr).toBe(2.05);
  });

  it('positions paid one after the other do not stack', () => {
    const mkDebits = (desc: string, days: string[]) => days.map((d) => tx(d, desc, -400));
    const st2 = statement({
      periodStart: '2024-04-01',
      periodEnd: '2024-04-30',
      openingBalance: 50000,
      transactions: [
        ...mkDebits('LIBERTAS FUNDING', ['2024-04-01', '2024-04-02', '2024-04-03']),
        ...mkDebits('MULLIGAN FUNDING', ['2024-04-22', '2024-04-23', '2024-04-24']),
      ],
    });
    const lp = analyzeDeal({ statements: [st2], fundingAmountRequested: 1000 }).lender_positions;
    expect([lp.position_count, lp.stacking_count, lp.active_count]).toEqual([2, 1, 1]); // Libertas last seen 27 days before as-of
  });

  it('irregular and bi-weekly positions: monthly estimate from total paid or 26/12 payments', () => {
    const st3 = statement({
      periodStart: '2024-04-01',
      periodEnd: '2024-05-31', // 61 days -> 2 months
      openingBalance: 10000,
      transactions: [
        tx('2024-04-03', 'ONDECK ACH', -300),
        tx('2024-05-20', 'ONDECK ACH', -500),
        tx('2024-04-05', 'CREDIBLY', -1200),
        tx('2024-04-19', 'CREDIBLY', -1200),
        tx('2024-05-03', 'CREDIBLY', -1200),
      ],
    });
    const lp = analyzeDeal({ statements: [st3], fundingAmountRequested: 1000 }).lender_positions;
    const byName = Object.fromEntries(lp.positions.map((p) => [p.counterparty, p]));
    // 48-day gap -> irregular: (300 + 500) / 2 months; median payment 400
    expect(byName.ondeck).toMatchObject({
      frequency: 'irregular',
      payment_amount: 400,
      estimated_monthly_total: 400,
      share_of_deposits: null,
    });
    // 14-day gaps -> bi-weekly: 1200 x 26 / 12 = 2600
    expect(byName.credibly).toMatchObject({ frequency: 'biweekly', estimated_monthly_total: 2600, payment_count: 3, total_paid: 3600 });
    expect(lp.stacking_count).toBe(2);
  });

  it('an as-of date moves activity and recency', () => {
    const later = analyzeDeal({ statements: [st], fundingAmountRequested: 50000, asOf: '2024-05-01' });
    expect(later.lender_positions.active_count).toBe(0);
    expect(later.health.factors.nsf_overdraft).toBe(80); // fee no longer recent
  });
});

describe('analyzeDeal: coverage edge cases', () => {
  const monthly = (year: number, month: number, amount: number) => ({
    year,
    month,
    transactions: [{ date: ymd(year, month, 15), description: 'SQUARE INC DEPOSIT', amount }],
  });

  it('13 months: Jan 2023 .. Jan 2024 is 396 days = 13 months', () => {
    const months = [];
    for (let k = 0; k < 13; k++) months.push(monthly(2023 + Math.floor(k / 12), (k % 12) + 1, 10000));
    // a window wide enough for all 13 statements (the default 6 months would name the older ones stale)
    const a = analyzeDeal({ statements: assemble(months, 1000), fundingAmountRequested: 10000, params: { lookbackMonths: 13 } });
    expect(a.coverage).toMatchObject({ days_covered: 396, months_covered: 13, statement_count: 13 });
    expect(a.financials.avg_monthly_deposits).toBe(10000); // 130000 / 13
    expect(a.monthly).toHaveLength(13);
    expect(a.cross_doc.findings).toEqual([]);
  });

  it('a leap year is 366 days = 12 months', () => {
    const months = [];
    for (let m = 1; m <= 12; m++) months.push(monthly(2024, m, 1000));
    const a = analyzeDeal({ statements: assemble(months, 0), fundingAmountRequested: 1000, params: { lookbackMonths: 12 } });
    expect(a.coverage).toMatchObject({ days_covered: 366, months_covered: 12 });
    expect(a.monthly.find((m) => m.month === '2024-02')!.days_covered).toBe(29);
    // Feb: 1000 / 29 x 30.4375
    expect(a.monthly.find((m) => m.month === '2024-02')!.revenue_rate).toBe(1049.57);
  });

  it('revenue trend: equal monthly rates are flat, doubling is capped at 100', () => {
    // April (30 days) 3000 and May (31 days) 3100 -> both 3043.75 a normalised month
    const flat = analyzeDeal({ statements: assemble([monthly(2023, 4, 3000), monthly(2023, 5, 3100)], 0), fundingAmountRequested: 1000 });
    expect(flat.health.factors.revenue_trend).toBe(50);
    expect(flat.form_b_scores.revenue_stability).toBe(100);
    const up = analyzeDeal({ statements: assemble([monthly(2023, 4, 3000), monthly(2023, 5, 6200)], 0), fundingAmountRequested: 1000 });
    expect(up.health.factors.revenue_trend).toBe(100);
    // rates 3043.75 and 6087.5: mean 4565.625, population sd 1521.875 -> 100 x (1 - 1/3)
    expect(up.form_b_scores.revenue_stability).toBe(66.67);
    const down = analyzeDeal({ statements: assemble([monthly(2023, 4, 3000), monthly(2023, 5, 2945)], 0), fundingAmountRequested: 1000 });
    // rates 3043.75 and 2891.5625 (2945 / 31 x 30.4375): slope -152.1875 over mean 2967.65625 = -5.128 %/month
    expect(down.health.factors.revenue_trend).toBeCloseTo(50 - 5 * 5.1282, 1);
  });

  it('no deposits at all', () => {
    const st = statement({
      periodStart: '2024-04-01',
      periodEnd: '2024-04-30',
      openingBalance: 500,
      transactions: [tx('2024-04-10', 'COMCAST', -100)],
    });
    const a = analyzeDeal({ statements: [st], fundingAmountRequested: 5000 });
    expect(a.financials).toMatchObject({ total_deposits: 0, avg_monthly_deposits: 0, avg_deposit_amount: 0, largest_deposit: 0 });
    expect(a.health.factors).toMatchObject({ revenue: 0, deposit_frequency: 0, revenue_trend: 50, debt_service: 100 });
    expect(a.form_b_scores.revenue_stability).toBe(0);
    expect(a.form_b_scores.deposit_consistency).toBe(0);
    // (0 - 100) / (0 + 5000 x 1.35 / 6)
    expect(a.cash_flow.cfcr).toBe(-0.09);
  });

  it('all-negative balances score zero on balances', () => {
    const st = statement({
      periodStart: '2024-04-01',
      periodEnd: '2024-04-30',
      openingBalance: -1000,
      transactions: [tx('2024-04-10', 'SQUARE INC DEPOSIT', 200)],
    });
    const a = analyzeDeal({ statements: [st], fundingAmountRequested: 5000 });
    expect(a.financials.negative_balance_days).toBe(30);
    expect(a.health.factors.balance_health).toBe(0);
    expect(a.form_b_scores.negative_days).toBe(0);
    expect(a.form_b_scores.average_daily_balance).toBe(0);
  });

  it('one-day statement', () => {
    const st = statement({
      periodStart: '2024-02-29',
      periodEnd: '2024-02-29',
      openingBalance: 100,
      transactions: [tx('2024-02-29', 'SQUARE INC DEPOSIT', 900)],
    });
    const a = analyzeDeal({ statements: [st], fundingAmountRequested: 1000 });
    expect(a.coverage).toMatchObject({ days_covered: 1, months_covered: 1 });
    expect(a.financials).toMatchObject({ avg_daily_balance: 1000, avg_monthly_deposits: 900, deposit_frequency_per_month: 1 });
    expect(a.health.factors.revenue).toBe(60); // 0.9 / 1.5
  });

  it('no statements at all', () => {
    const a = analyzeDeal({ statements: [], fundingAmountRequested: 1000 });
    expect(a.coverage).toEqual({ months_covered: 0, days_covered: 0, statement_count: 0, period_start: null, period_end: null });
    expect(a.as_of).toBeNull();
    for (const v of Object.values(a.factor_scores)) expect(v).toBeGreaterThanOrEqual(0);
  });
});

describe('analyzeDeal: cross-document consistency', () => {
  const mk = (
    id: number,
    start: string,
    end: string,
    opening: number | null,
    closing: number | null,
    txs: StatementInput['transactions'],
    last4 = '1234',
  ) =>
    statement({
      id,
      periodStart: start,
      periodEnd: end,
      openingBalance: opening,
      closingBalance: closing,
      transactions: txs,
      accountNumberLast4: last4,
    });

  it('overlapping statements: shared transactions are counted once, overlap costs 10 points', () => {
    const s1 = mk(1, '2024-03-01', '2024-03-20', 0, 3000, [
      tx('2024-03-05', 'SQUARE INC DEPOSIT', 1000, 1000),
      tx('2024-03-15', 'SQUARE INC DEPOSIT', 2000, 3000),
    ]);
    const s2 = mk(2, '2024-03-11', '2024-03-31', 1000, 7000, [
      tx('2024-03-15', 'SQUARE INC DEPOSIT', 2000, 3000),
      tx('2024-03-25', 'SQUARE INC DEPOSIT', 4000, 7000),
    ]);
    const a = analyzeDeal({ statements: [s2, s1], fundingAmountRequested: 5000 });
    expect(a.coverage.days_covered).toBe(31);
    expect(a.financials.total_deposits).toBe(7000);
    expect(a.financials.deposit_count).toBe(3);
    expect(a.transactions.filter((t) => !t.counted)).toHaveLength(1);
    expect(a.transactions.find((t) => !t.counted)).toMatchObject({ statement_index: 0, date: '2024-03-15' }); // s2 starts later
    expect(a.cross_doc.score).toBe(90);
    expect(a.cross_doc.findings.map((f) => [f.type, f.deduction])).toEqual([
      ['overlap', 10],
      ['duplicate_transactions', 0],
    ]);
    expect(a.cross_doc.findings[0].message).toBe(
      'statement 1 (2024-03-01..2024-03-20) and statement 2 (2024-03-11..2024-03-31) overlap by 10 days',
    );
    // daily balance: s1 for 1-20 (0 x4, 1000 x10, 3000 x6), s2 for 21-31 (3000 x4, 7000 x7)
    expect(a.financials.avg_daily_balance).toBe(round((0 * 4 + 1000 * 10 + 3000 * 6 + 3000 * 4 + 7000 * 7) / 31));
    // per-document analyses still show each file whole
    expect(a.statements[0].total_deposits).toBe(6000);
  });

  it('the same file uploaded twice is fully deduplicated', () => {
    const s = mk(1, '2024-03-01', '2024-03-31', 0, 1500, [tx('2024-03-05', 'SQUARE', 1000), tx('2024-03-05', 'SQUARE', 500)]);
    const a = analyzeDeal({ statements: [s, { ...s, id: 2 }], fundingAmountRequested: 1000 });
    expect(a.financials.total_deposits).toBe(1500);
    expect(a.cross_doc.findings.map((f) => f.type)).toEqual(['overlap', 'duplicate_transactions']);
  });

  it('a gap and an opening that does not match the previous closing', () => {
    const s1 = mk(1, '2024-01-01', '2024-01-31', 0, 1000, [tx('2024-01-10', 'SQUARE', 1000)]);
    const s2 = mk(2, '2024-02-10', '2024-02-29', 900, 900, []);
    const a = analyzeDeal({ statements: [s1, s2], fundingAmountRequested: 1000 });
    expect(a.coverage.days_covered).toBe(51);
    expect(a.cross_doc.findings.map((f) => [f.type, f.deduction])).toEqual([
      ['gap', 10],
      ['balance_mismatch', 15],
    ]);
    expect(a.cross_doc.findings[0].message).toBe(
      '9 days missing between statement 1 (2024-01-01..2024-01-31) and statement 2 (2024-02-10..2024-02-29)',
    );
    expect(a.cross_doc.score).toBe(75);
    expect(a.factor_scores.cross_doc).toBe(75);
  });

  it('gaps up to 3 days are tolerated; statements of different accounts are not compared', () => {
    const s1 = mk(1, '2024-01-01', '2024-01-28', 0, 0, []);
    const s2 = mk(2, '2024-02-01', '2024-02-29', 0, 0, []);
    const other = mk(3, '2024-01-15', '2024-02-15', 50, 50, [], '9999');
    expect(analyzeDeal({ statements: [s1, s2, other], fundingAmountRequested: 1 }).cross_doc).toEqual({ score: 100, findings: [] });
  });

  it('statements with the same last 4 digits are one account even when the bank name is printed differently', () => {
    const s1 = { ...mk(1, '2024-01-01', '2024-01-31', 0, 0, []), bankName: 'Chase' };
    const s2 = { ...mk(2, '2024-01-25', '2024-02-29', 0, 0, []), bankName: 'JPMORGAN CHASE BANK, N.A.' };
    expect(analyzeDeal({ statements: [s1, s2], fundingAmountRequested: 1 }).cross_doc.findings.map((f) => f.type)).toEqual(['overlap']);
  });

  it('a statement whose transactions do not add up loses 15 points', () => {
    const s = mk(1, '2024-01-01', '2024-01-31', 100, 500, [tx('2024-01-10', 'SQUARE', 300)]);
    const a = analyzeDeal({ statements: [s], fundingAmountRequested: 1000 });
    expect(a.cross_doc.findings).toEqual([
      {
        type: 'reconciliation_mismatch',
        severity: 'error',
        message: 'statement 1 (2024-01-01..2024-01-31): opening balance plus transactions differs from the closing balance by -$100.00',
        statements: [0],
        statement_ids: [1],
        deduction: 15,
      },
    ]);
    expect(a.cross_doc.score).toBe(85);
  });

  it("transfers between the merchant's own accounts are excluded from revenue", () => {
    const a1 = mk(
      1,
      '2024-03-01',
      '2024-03-31',
      10000,
      15000,
      [tx('2024-03-02', 'SQUARE INC DEPOSIT', 10000), tx('2024-03-05', 'ONLINE TRANSFER TO CHK 2222', -5000)],
      '1111',
    );
    const a2 = mk(2, '2024-03-01', '2024-03-31', 0, 5000, [tx('2024-03-06', 'DEPOSIT', 5000)], '2222');
    const a = analyzeDeal({ statements: [a1, a2], fundingAmountRequested: 10000 });
    expect(a.transactions.map((t) => t.category)).toEqual(['revenue', 'transfer', 'transfer']);
    expect(a.financials.total_revenue).toBe(10000);
    expect(a.financials.total_deposits).toBe(15000);
    expect(a.cross_doc.findings).toEqual([
      expect.objectContaining({
        type: 'own_account_transfers',
        deduction: 0,
        message: "1 transfer between the merchant's own accounts ($5,000.00) excluded from revenue and expenses",
      }),
    ]);
    // the deal balance is the sum of both accounts: ending 15000 + 5000
    expect(a.financials.ending_balance).toBe(20000);
    // without the second account the deposit stays revenue
    expect(analyzeDeal({ statements: [a2], fundingAmountRequested: 1 }).transactions[0].category).toBe('revenue');
  });
});

function round(x: number) {
  return Math.round(x * 100) / 100;
}

describe('analyzeDeal: purity', () => {
  it('same input, same output; input untouched', () => {
    const months = [];
    for (let m = 1; m <= 3; m++)
      months.push({
        year: 2024,
        month: m,
        transactions: [{ date: ymd(2024, m, daysInMonth(2024, m)), description: 'SQUARE', amount: 100 * m }],
      });
    const statements = assemble(months, 10);
    const before = JSON.stringify(statements);
    const a = analyzeDeal({ statements, fundingAmountRequested: 100 });
    const b = analyzeDeal({ statements, fundingAmountRequested: 100 });
    expect(JSON.stringify(statements)).toBe(before);
    expect(a).toEqual(b);
    expect(JSON.parse(JSON.stringify(a))).toEqual(a); // serialisable
  });
});
