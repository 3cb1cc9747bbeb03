import { parseStatementFile } from '@ledgerlens/statements';
import { makeStatement } from './corpus';
import { LAYOUTS } from './layouts';

describe('statement corpus', () => {
  it('has at least 8 layouts', () => {
    expect(new Set(LAYOUTS.map((l) => l.name)).size).toBeGreaterThanOrEqual(8);
  });

  it('is deterministic from the seed', async () => {
    const a = await makeStatement(LAYOUTS[0], 42, 20);
    const b = await makeStatement(LAYOUTS[0], 42, 20);
    const c = await makeStatement(LAYOUTS[0], 43, 20);
    expect(Buffer.from(a.bytes).equals(Buffer.from(b.bytes))).toBe(true);
    expect(a.truth).toEqual(b.truth);
    expect(c.truth.transactions).not.toEqual(a.truth.transactions);
  });

  it('ground truth reconciles', async () => {
    for (const l of LAYOUTS) {
      const { truth } = await makeStatement(l, 9, 15);
      const sum = truth.transactions!.reduce((s, t) => s + t.amount, 0);
      expect(Math.round((truth.openingBalance! + sum) * 100) / 100).toBe(truth.closingBalance);
    }
  });

  it.each(LAYOUTS.map((l) => l.name))('layout %s parses back to its ground truth', async (name) => {
    const item = await makeStatement(
      LAYOUTS.find((l) => l.name === name)!,
      11,
      25,
    );
    const r = await parseStatementFile(item.bytes);
    const key = (t: { date: string; amount: number; description: string }) =>
      `${t.date}|${t.amount.toFixed(2)}|${t.description.toLowerCase().replace(/[^a-z0-9]/g, '')}`;
    expect(r.transactions.map(key).sort()).toEqual(item.truth.transactions!.map(key).sort());
    expect(r.reconciliation.reconciled).toBe(true);
    expect([r.openingBalance, r.closingBalance, r.periodStart, r.periodEnd, r.accountNumberLast4]).toEqual([
      item.truth.openingBalance,
      item.truth.closingBalance,
      item.truth.periodStart,
      item.truth.periodEnd,
      item.truth.accountNumberLast4,
    ]);
  });
});
