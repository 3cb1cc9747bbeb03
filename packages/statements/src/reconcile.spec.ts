import { reconcile } from './reconcile';
import { StatementTransaction } from './types';

const tx = (amount: number, balance: number | null): StatementTransaction => ({
  date: '2025-01-02',
  description: 'x',
  amount,
  balance,
  transactionType: amount >= 0 ? 'credit' : 'debit',
});

describe('reconcile', () => {
  it('accepts opening + credits - debits = closing with a consistent running balance', () => {
    const r = reconcile(100, 150.5, [tx(100, 200), tx(-49.5, 150.5)]);
    expect(r).toMatchObject({
      reconciled: true,
      firstBrokenRow: null,
      expectedClosing: 150.5,
      difference: 0,
      totalCredits: 100,
      totalDebits: 49.5,
      balanceChecks: 2,
      balanceChecksPassed: 2,
    });
    expect(r.confidence).toBe(1);
  });

  it('reports the first row whose running balance breaks', () => {
    const r = reconcile(100, 150.5, [tx(100, 200), tx(-40, 150.5), tx(-9.5, 150.5)]);
    expect(r.reconciled).toBe(false);
    expect(r.firstBrokenRow).toBe(1);
    expect(r.totalsMatch).toBe(true);
    expect(r.confidence).toBeLessThan(1);
  });

  it('reports the difference when totals do not match', () => {
    const r = reconcile(100, 300, [tx(100, null)]);
    expect(r).toMatchObject({ reconciled: false, expectedClosing: 200, difference: 100, totalsMatch: false, firstBrokenRow: null });
  });

  it('checks balances printed only on some rows', () => {
    const r = reconcile(0, 30, [tx(10, null), tx(10, 20), tx(10, null), tx(0, 30)]);
    expect(r.reconciled).toBe(true);
    expect(r.balanceChecks).toBe(2);
  });

  it('cannot reconcile without an opening balance', () => {
    expect(reconcile(null, 10, [tx(10, 10)]).reconciled).toBe(false);
  });
});
