import type { UnderwritingParams } from './params';
import { clamp, dayNumber, formatMoney, round2 } from './util';

export type CrossDocFindingType =
  | 'overlap'
  | 'gap'
  | 'balance_mismatch'
  | 'reconciliation_mismatch'
  | 'duplicate_transactions'
  | 'own_account_transfers';

export interface CrossDocFinding {
  type: CrossDocFindingType;
  severity: 'info' | 'warning' | 'error';
  message: string;
  /** statement indexes (position in the deal's statement list) the finding is about */
  statements: number[];
  /** points taken off the cross_doc score */
  deduction: number;
}

export interface CrossDocResult {
  score: number;
  findings: CrossDocFinding[];
}

export interface CrossDocStatement {
  index: number;
  label: string;
  account: string;
  start: string | null;
  end: string | null;
  openingBalance: number | null;
  closingBalance: number | null;
  /** opening + sum(amounts) - closing, null when unknown */
  reconciliationDifference: number | null;
}

export interface CrossDocInput {
  statements: CrossDocStatement[];
  /** [earlier statement index, later statement index, number of transactions counted once] */
  duplicates: { kept: number; dropped: number; count: number }[];
  ownTransfers: { count: number; total: number };
}

/**
 * Consistency between statements. Per account (bank + last 4), statements are taken in order of
 * period start and each is compared with the furthest-reaching earlier one:
 * overlap (-overlapPenalty), gap > gapToleranceDays (-gapPenalty), closing vs next opening differing by
 * more than balanceTolerance (-balanceMismatchPenalty, only when they do not overlap). Inside each
 * statement, opening + transactions != closing (-reconciliationPenalty). Duplicates and own-account
 * transfers are informational. Score = clamp(100 - sum of deductions, 0, 100).
 */
export function crossDocumentCheck(input: CrossDocInput, p: UnderwritingParams): CrossDocResult {
  const findings: CrossDocFinding[] = [];
  for (const s of input.statements) {
    if (s.reconciliationDifference !== null && Math.abs(s.reconciliationDifference) > p.balanceTolerance) {
      findings.push({
        type: 'reconciliation_mismatch',
        severity: 'error',
        message: `${s.label}: opening balance plus transactions differs from the closing balance by ${formatMoney(s.reconciliationDifference)}`,
        statements: [s.index],
        deduction: p.crossDocReconciliationPenalty,
      });
    }
  }
  const byAccount = new Map<string, CrossDocStatement[]>();
  for (const s of input.statements) {
    if (!s.start || !s.end) continue;
    const g = byAccount.get(s.account);
    if (g) g.push(s);
    else byAccount.set(s.account, [s]);
  }
  for (const group of byAccount.values()) {
    group.sort((a, b) => dayNumber(a.start!) - dayNumber(b.start!) || a.index - b.index);
    let prev = group[0];
    for (let k = 1; k < group.length; k++) {
      const cur = group[k];
      const prevEnd = dayNumber(prev.end!);
      const curStart = dayNumber(cur.start!);
      const overlap = prevEnd - curStart + 1;
      if (overlap > 0) {
        findings.push({
          type: 'overlap',
          severity: 'warning',
          message: `${prev.label} and ${cur.label} overlap by ${overlap} day${overlap === 1 ? '' : 's'}`,
          statements: [prev.index, cur.index],
          deduction: p.crossDocOverlapPenalty,
        });
      } else {
        const gap = -overlap;
        if (gap > p.gapToleranceDays) {
          findings.push({
            type: 'gap',
            severity: 'warning',
            message: `${gap} day${gap === 1 ? '' : 's'} missing between ${prev.label} and ${cur.label}`,
            statements: [prev.index, cur.index],
            deduction: p.crossDocGapPenalty,
          });
        }
        if (prev.closingBalance !== null && cur.openingBalance !== null) {
          const diff = round2(cur.openingBalance - prev.closingBalance);
          if (Math.abs(diff) > p.balanceTolerance) {
            findings.push({
              type: 'balance_mismatch',
              severity: 'error',
              message: `${cur.label} opens at ${formatMoney(cur.openingBalance)} but ${prev.label} closed at ${formatMoney(prev.closingBalance)} (difference ${formatMoney(diff)})`,
              statements: [prev.index, cur.index],
              deduction: p.crossDocBalanceMismatchPenalty,
            });
          }
        }
      }
      if (dayNumber(cur.end!) >= prevEnd) prev = cur;
    }
  }
  for (const d of input.duplicates) {
    if (d.count === 0) continue;
    const kept = input.statements.find((s) => s.index === d.kept)!;
    const dropped = input.statements.find((s) => s.index === d.dropped)!;
    findings.push({
      type: 'duplicate_transactions',
      severity: 'info',
      message: `${d.count} transaction${d.count === 1 ? '' : 's'} of ${dropped.label} also appear${d.count === 1 ? 's' : ''} in ${kept.label}; counted once`,
      statements: [d.kept, d.dropped],
      deduction: 0,
    });
  }
  if (input.ownTransfers.count > 0) {
    findings.push({
      type: 'own_account_transfers',
      severity: 'info',
      message: `${input.ownTransfers.count} transfer${input.ownTransfers.count === 1 ? '' : 's'} between the merchant's own accounts (${formatMoney(input.ownTransfers.total)}) excluded from revenue`,
      statements: [],
      deduction: 0,
    });
  }
  const deductions = findings.reduce((a, f) => a + f.deduction, 0);
  return { score: clamp(100 - deductions), findings };
}
