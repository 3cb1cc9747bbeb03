import { statement, tx } from './__fixtures__/helpers';
import { computeStatementMetrics, dailyBalanceSeries } from './metrics';

describe('computeStatementMetrics', () => {
  // 2023-03-01..05, opening 100.
  // day 1: no tx -> 100; day 2: +500 -50, printed balance 560 wins over computed 550 -> 560;
  // day 3: carried -> 560; day 4: -35 -25 -> 500; day 5: carried -> 500
  const st = statement({
    id: 7,
    periodStart: '2023-03-01',
    periodEnd: '2023-03-05',
    openingBalance: 100,
    closingBalance: null,
    transactions: [
      tx('2023-03-02', 'STRIPE TRANSFER', 500),
      tx('2023-03-02', 'POS PURCHASE STAPLES', -50, 560),
      tx('2023-03-04', 'NSF FEE', -35),
      tx('2023-03-04', 'OVERDRAFT FEE', -25),
    ],
  });
  const m = computeStatementMetrics(st);

  it('computes totals and counts', () => {
    expect(m).toMatchObject({
      statement_id: 7,
      period_start: '2023-03-01',
      period_end: '2023-03-05',
      days_covered: 5,
      months_covered: 1,
      transaction_count: 4,
      total_deposits: 500,
      total_withdrawals: 110,
      total_credits: 500,
      total_debits: 110,
      net_cash_flow: 390,
      deposit_count: 1,
      withdrawal_count: 3,
      deposit_days: 1,
      deposit_frequency_per_month: 1,
      avg_deposit_amount: 500,
      largest_deposit: 500,
      revenue_deposits: 500,
      nsf_count: 1,
      nsf_total_fees: 35,
      overdraft_count: 1,
      overdraft_total_fees: 25,
      screening_flags: 2,
    });
    expect(m.screening_buckets.nsf_fee).toBe(1);
    expect(m.screening_buckets.overdraft_fee).toBe(1);
    expect(m.screening_buckets.repeat_charge).toBe(0);
  });

  it('builds the day-by-day balance with carry-over and printed balances', () => {
    expect(m.daily_balances).toEqual([
      { date: '2023-03-01', balance: 100 },
      { date: '2023-03-02', balance: 560 },
      { date: '2023-03-03', balance: 560 },
      { date: '2023-03-04', balance: 500 },
      { date: '2023-03-05', balance: 500 },
    ]);
    // (100 + 560 + 560 + 500 + 500) / 5 = 444
    expect(m.avg_daily_balance).toBe(444);
    expect(m.min_daily_balance).toBe(100);
    expect(m.max_daily_balance).toBe(560);
    expect(m.ending_balance).toBe(500); // no closing balance printed: last end-of-day balance
    expect(m.negative_balance_days).toBe(0);
    expect(m.reconciliation_difference).toBeNull();
  });

  it('prefers the printed closing balance and reports the reconciliation difference', () => {
    const withClosing = computeStatementMetrics({ ...st, closingBalance: 500 });
    expect(withClosing.ending_balance).toBe(500);
    // 100 + (500 - 50 - 35 - 25) - 500 = -10
    expect(withClosing.reconciliation_difference).toBe(-10);
  });

  it('derives the opening balance from the first printed balance, else from the closing balance', () => {
    const fromPrinted = dailyBalanceSeries({ ...st, openingBalance: null });
    // first printed balance 560 after +500 and -50 -> opening 110
    expect(fromPrinted.opening).toBe(110);
    expect(fromPrinted.known).toBe(true);
    const noPrinted = {
      ...st,
      openingBalance: null,
      closingBalance: 490,
      transactions: st.transactions.map((t) => ({ ...t, balance: null })),
    };
    expect(dailyBalanceSeries(noPrinted).opening).toBe(100); // 490 - 390
    const none = computeStatementMetrics({ ...noPrinted, closingBalance: null });
    expect(none.opening_balance).toBeNull();
    expect(none.daily_balances.map((d) => d.balance)).toEqual([0, 450, 450, 390, 390]);
  });

  it('one-day statement', () => {
    const one = computeStatementMetrics(
      statement({
        periodStart: '2024-05-10',
        periodEnd: '2024-05-10',
        openingBalance: 50,
        transactions: [tx('2024-05-10', 'ACH CREDIT CUSTOMER', 200), tx('2024-05-10', 'SHELL OIL', -20)],
      }),
    );
    expect(one).toMatchObject({
      days_covered: 1,
      months_covered: 1,
      avg_daily_balance: 230,
      min_daily_balance: 230,
      max_daily_balance: 230,
      ending_balance: 230,
      deposit_frequency_per_month: 1,
      deposit_days: 1,
    });
  });

  it('statement without deposits', () => {
    const none = computeStatementMetrics(
      statement({
        periodStart: '2024-04-01',
        periodEnd: '2024-04-30',
        openingBalance: 1000,
        transactions: [tx('2024-04-03', 'RENT', -900), tx('2024-04-20', 'COMCAST', -150)],
      }),
    );
    expect(none).toMatchObject({
      total_deposits: 0,
      deposit_count: 0,
      deposit_days: 0,
      deposit_frequency_per_month: 0,
      avg_deposit_amount: 0,
      largest_deposit: 0,
      total_withdrawals: 1050,
      net_cash_flow: -1050,
      ending_balance: -50,
      // days 1-2: 1000; days 3-19: 100; days 20-30: -50 -> (2000 + 1700 - 550) / 30 = 105
      avg_daily_balance: 105,
      negative_balance_days: 11,
    });
  });

  it('all-negative balance', () => {
    const neg = computeStatementMetrics(
      statement({
        periodStart: '2024-06-01',
        periodEnd: '2024-06-10',
        openingBalance: -100,
        transactions: [tx('2024-06-05', 'OVERDRAFT FEE', -36)],
      }),
    );
    // days 1-4: -100, days 5-10: -136 -> (-400 - 816) / 10 = -121.6
    expect(neg).toMatchObject({
      negative_balance_days: 10,
      avg_daily_balance: -121.6,
      min_daily_balance: -136,
      max_daily_balance: -100,
      ending_balance: -136,
      overdraft_count: 1,
      overdraft_total_fees: 36,
    });
  });

  it('leap-year February has 29 days', () => {
    const feb = computeStatementMetrics(
      statement({ periodStart: '2024-02-01', periodEnd: '2024-02-29', openingBalance: 1000, transactions: [] }),
    );
    expect(feb.days_covered).toBe(29);
    expect(feb.months_covered).toBe(1);
    expect(feb.daily_balances[28]).toEqual({ date: '2024-02-29', balance: 1000 });
    expect(feb.avg_daily_balance).toBe(1000);
    const feb23 = computeStatementMetrics(statement({ periodStart: '2023-02-01', periodEnd: '2023-02-28', openingBalance: 0 }));
    expect(feb23.days_covered).toBe(28);
  });

  it('sorts transactions by date and stretches the period to cover stray dates', () => {
    const s = computeStatementMetrics(
      statement({
        periodStart: '2024-07-02',
        periodEnd: '2024-07-03',
        openingBalance: 0,
        transactions: [tx('2024-07-03', 'DEPOSIT', 10), tx('2024-07-01', 'DEPOSIT', 20)],
      }),
    );
    expect(s.period_start).toBe('2024-07-01');
    expect(s.daily_balances.map((d) => d.balance)).toEqual([20, 20, 30]);
  });

  it('an empty, undated statement yields nulls rather than numbers', () => {
    const e = computeStatementMetrics(statement({ periodStart: null, periodEnd: null }));
    expect(e).toMatchObject({ days_covered: 0, months_covered: 0, avg_daily_balance: null, ending_balance: null, period_start: null });
  });

  it('rejects malformed dates', () => {
    expect(() => computeStatementMetrics(statement({ periodStart: '2024-02-32', periodEnd: '2024-03-01' }))).toThrow(RangeError);
    expect(computeStatementMetrics(statement({ periodStart: '2024-02-30', periodEnd: '2024-03-01', openingBalance: 0 })).days_covered).toBe(
      2,
    );
  });
});
