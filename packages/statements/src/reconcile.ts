import { round2 } from './tokens';
import { Reconciliation, StatementTransaction } from './types';

const EPS = 0.005;

/**
 * Checks opening + credits - debits = closing, and the printed running balance row by row.
 * The first row whose printed balance does not follow from the previous one is reported.
 */
export function reconcile(
  openingBalance: number | null,
  closingBalance: number | null,
  transactions: StatementTransaction[],
): Reconciliation {
  let credits = 0;
  let debits = 0;
  for (const t of transactions) {
    if (t.amount >= 0) credits += t.amount;
    else debits += -t.amount;
  }
  credits = round2(credits);
  debits = round2(debits);
  const expectedClosing = openingBalance === null ? null : round2(openingBalance + credits - debits);
  const difference = expectedClosing === null || closingBalance === null ? null : round2(closingBalance - expectedClosing);
  const totalsMatch = difference === null ? null : Math.abs(difference) < EPS;

  let checks = 0;
  let passed = 0;
  let firstBrokenRow: number | null = null;
  let running = openingBalance;
  for (let i = 0; i < transactions.length; i++) {
    const t = transactions[i];
    if (running !== null) running = round2(running + t.amount);
    if (t.balance !== null) {
      if (running !== null) {
        checks++;
        if (Math.abs(running - t.balance) < EPS) passed++;
        else if (firstBrokenRow === null) firstBrokenRow = i;
      }
      running = t.balance; // resynchronise on the printed balance
    }
  }
  // printed balances must also end at the closing balance
  const lastBal = [...transactions].reverse().find((t) => t.balance !== null)?.balance ?? null;
  const reconciled = totalsMatch === true && firstBrokenRow === null && transactions.length > 0;
  let confidence: number;
  if (totalsMatch === null) confidence = checks ? (0.6 * passed) / checks : 0;
  else if (reconciled) confidence = checks ? 1 : 0.9;
  else {
    const chainScore = checks ? passed / checks : 0;
    const brokenAt = firstBrokenRow === null ? 1 : firstBrokenRow / Math.max(1, transactions.length);
    confidence = 0.5 * chainScore * (totalsMatch ? 1 : 0.6) * (0.5 + 0.5 * brokenAt);
  }
  if (lastBal !== null && closingBalance !== null && firstBrokenRow === null && Math.abs(lastBal - closingBalance) >= EPS && reconciled) {
    confidence = Math.min(confidence, 0.8);
  }
  return {
    reconciled,
    firstBrokenRow,
    expectedClosing,
    difference,
    confidence: Math.round(confidence * 1000) / 1000,
    totalCredits: credits,
    totalDebits: debits,
    balanceChecks: checks,
    balanceChecksPassed: passed,
    totalsMatch,
  };
}
