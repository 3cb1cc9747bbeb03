import { oneDigitApart, oneDigitRows, periodFindings, roundDepositFindings } from './tamper-arith';
import type { StatementTransaction } from './types';

const tx = (date: string, amount: number, description = 'Card payment', page = 1, y = 100): StatementTransaction => ({
  date,
  description,
  amount,
  balance: null,
  transactionType: amount > 0 ? 'credit' : 'debit',
  source: { page, boxes: [[40, y, 560, y + 10]] } as StatementTransaction['source'],
});

describe('one-digit edits', () => {
  it('tells a value with one digit changed in place from any other', () => {
    expect(oneDigitApart(635.02, 335.02)).toBe(true);
    expect(oneDigitApart(-3189.02, -5189.02)).toBe(true);
    expect(oneDigitApart(635.02, 335.03)).toBe(false); // two digits
    expect(oneDigitApart(205, -95)).toBe(false); // sign
    expect(oneDigitApart(1239.13, 239.13)).toBe(false); // a digit fewer
  });

  it('finds the rows a difference could come from', () => {
    const txs = [tx('2025-01-02', 205), tx('2025-01-02', 635.02), tx('2025-01-02', -10.44)];
    expect(oneDigitRows(txs, [0, 1, 2], -300)).toEqual([1]);
    expect(oneDigitRows(txs, [0, 1, 2], 0)).toEqual([]);
  });
});

describe('period vs dates', () => {
  const rows = ['2025-01-03', '2025-01-09', '2025-01-15', '2025-01-22', '2025-01-30'].map((d, i) => tx(d, -10 - i, 'Fee', 1, 100 + 12 * i));

  it('rows inside the printed period (and within the posting lag) give nothing', () => {
    expect(periodFindings(rows, '2025-01-01', '2025-01-31')).toEqual([]);
    expect(periodFindings([...rows, tx('2025-02-02', -5)], '2025-01-01', '2025-01-31')).toEqual([]);
    expect(periodFindings(rows, null, '2025-01-31')).toEqual([]);
  });

  it('names a row dated outside the period, on its page', () => {
    const edited = [...rows.slice(0, 4), tx('2025-02-20', 900, 'Deposit', 2, 300)];
    const f = periodFindings(edited, '2025-01-01', '2025-01-31');
    expect(f).toHaveLength(1);
    expect(f[0]).toMatchObject({ kind: 'period_dates', page: 2, row: 4, boxes: [[40, 300, 560, 310]] });
    expect(f[0].message).toMatch(/row 5 on 2025-02-20 \(900\.00\)/);
  });

  it('a period no bank prints', () => {
    expect(periodFindings(rows, '2025-01-31', '2025-01-01')[0].message).toMatch(/ends before it starts/);
    expect(periodFindings(rows, '2023-01-01', '2025-01-31')[0].message).toMatch(/spans 762 days/);
  });

  it('most rows outside: a misread period or year, not edited rows', () => {
    expect(periodFindings(rows, '2024-01-01', '2024-01-31')).toEqual([]);
  });
});

describe('round deposits', () => {
  const credits = [412.37, 1288.1, 95.44, 2310.87, 640.05, 1775.2, 83.91, 2904.66, 350.12, 1999.99];
  const account = credits.map((a, i) => tx(`2025-01-${String(i + 2).padStart(2, '0')}`, a, 'Customer payment', 1, 100 + 12 * i));

  it('an account of uneven deposits gives nothing', () => {
    expect(roundDepositFindings(account)).toEqual([]);
  });

  it('names a round deposit larger than the others', () => {
    const edited = [...account, tx('2025-01-20', 10000, 'Customer payment', 2, 500)];
    const f = roundDepositFindings(edited);
    expect(f).toHaveLength(1);
    expect(f[0]).toMatchObject({ kind: 'round_amount', severity: 'medium', page: 2, row: 10 });
    expect(f[0].message).toMatch(/10000\.00 is a round amount, larger than any other deposit/);
  });

  it('not where deposits are often round, nor for a transfer, nor a small round one', () => {
    const payroll = [...account, tx('2025-01-15', 1200, 'Customer payment'), tx('2025-01-20', 10000)];
    expect(roundDepositFindings(payroll)).toEqual([]);
    expect(roundDepositFindings([...account, tx('2025-01-20', 10000, 'Transfer from savings')])).toEqual([]);
    expect(roundDepositFindings([...account, tx('2025-01-20', 1000)])).toEqual([]);
  });
});
