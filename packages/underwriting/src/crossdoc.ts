import type { UnderwritingParams } from './params';
import { cents, clamp, dayNumber, formatMoney, fromCents } from './util';

export type CrossDocFindingType =
  | 'overlap'
  | 'gap'
  | 'balance_mismatch'
  | 'reconciliation_mismatch'
  | 'duplicate_transactions'
  | 'own_account_transfers'
  | 'coverage_gap'
  | 'currency_mismatch'
  | 'currency_unstated';

export interface CrossDocFinding {
  type: CrossDocFindingType;
  severity: 'info' | 'warning' | 'error';
  message: string;
  /** statement indexes (position in the deal's statement list) the finding is about */
  statements: number[];
  /** ids of those statements (the document ids in the server) */
  statement_ids: (string | number | null)[];
  /** points taken off the cross_doc score */
  deduction: number;
}

export interface CrossDocResult {
  score: number;
  findings: CrossDocFinding[];
}

export interface CrossDocStatement {
  index: number;
  id?: string | number | null;
  label: string;
  account: string;
  start: string | null;
  end: string | null;
  openingBalance: number | null;
  closingBalance: number | null;
  /** opening + sum(amounts) - closing, null when unknown */
  reconciliationDifference: number | null;
  /** ISO 4217 code; null when unknown (read as the deal's reporting currency) */
  currency?: string | null;
}

export interface CrossDocInput {
  statements: CrossDocStatement[];
  /** [earlier statement index, later statement index, number of transactions counted once] */
  duplicates: { kept: number; dropped: number; count: number }[];
  ownTransfers: { count: number; total: number };
  /** the currency the deal's figures are in; statements in another currency are a finding */
  reportingCurrency?: string;
}

/**
 * Consistency between statements. Per account (accounts.ts: the same last 4 digits, else balance
 * continuity; a statement with neither is an account of its own), statements are taken in order of
 * period start and each is compared with the furthest-reaching earlier one:
 * overlap (-overlapPenalty), gap > gapToleranceDays (-gapPenalty), closing vs next opening differing by
 * more than balanceTolerance (-balanceMismatchPenalty, only when they do not overlap). Inside each
 * statement, opening + transactions != closing (-reconciliationPenalty). Duplicates and own-account
 * transfers are informational. With several accounts, days missing from the union of all periods
 * are coverage gaps (-gapPenalty each; with one account they are already the per-account gaps).
 * A statement in another currency than the reporting one is left out of every sum
 * (-currencyPenalty); one naming no currency, beside statements that name one, is counted in the
 * reporting currency and named (currency_unstated, no deduction). Score = clamp(100 - sum of deductions, 0, 100).
 */
export function crossDocumentCheck(input: CrossDocInput, p: UnderwritingParams): CrossDocResult {
  const byAccount = datedByAccount(input.statements);
  const findings: CrossDocFinding[] = [
    ...reconciliationFindings(input.statements, p),
    ...[...byAccount.values()].flatMap((group) => sequenceFindings(group, p)),
    ...(byAccount.size > 1 ? coverageGaps(input.statements, p) : []),
    ...(input.reportingCurrency ? currencyFindings(input.statements, input.reportingCurrency, p) : []),
    ...informationalFindings(input),
  ];
  const idOf = new Map(input.statements.map((s) => [s.index, s.id ?? null]));
  for (const f of findings) f.statement_ids = f.statements.map((i) => idOf.get(i) ?? null);
  const deductions = findings.reduce((a, f) => a + f.deduction, 0);
  return { score: clamp(100 - deductions), findings };
}

/** Inside each statement: opening + transactions != closing. */
function reconciliationFindings(statements: CrossDocStatement[], p: UnderwritingParams): CrossDocFinding[] {
  const findings: CrossDocFinding[] = [];
  for (const s of statements) {
    if (s.reconciliationDifference !== null && Math.abs(s.reconciliationDifference) > p.balanceTolerance) {
      findings.push({
        statement_ids: [],
        type: 'reconciliation_mismatch',
        severity: 'error',
        message: `${s.label}: opening balance plus transactions differs from the closing balance by ${formatMoney(s.reconciliationDifference)}`,
        statements: [s.index],
        deduction: p.crossDocReconciliationPenalty,
      });
    }
  }
  return findings;
}

/** The dated statements per account, in input order. */
function datedByAccount(statements: CrossDocStatement[]): Map<string, CrossDocStatement[]> {
  const byAccount = new Map<string, CrossDocStatement[]>();
  for (const s of statements) {
    if (!s.start || !s.end) continue;
    const g = byAccount.get(s.account);
    if (g) g.push(s);
    else byAccount.set(s.account, [s]);
  }
  return byAccount;
}

/** One account's statements by period start, each compared with the furthest-reaching earlier one. */
function sequenceFindings(group: CrossDocStatement[], p: UnderwritingParams): CrossDocFinding[] {
  const findings: CrossDocFinding[] = [];
  group.sort((a, b) => dayNumber(a.start!) - dayNumber(b.start!) || a.index - b.index);
  let prev = group[0];
  for (let k = 1; k < group.length; k++) {
    const cur = group[k];
    findings.push(...pairFindings(prev, cur, p));
    if (dayNumber(cur.end!) >= dayNumber(prev.end!)) prev = cur;
  }
  return findings;
}

/** Overlap, or gap and balance mismatch, between an earlier statement of an account and the next. */
function pairFindings(prev: CrossDocStatement, cur: CrossDocStatement, p: UnderwritingParams): CrossDocFinding[] {
  const overlap = dayNumber(prev.end!) - dayNumber(cur.start!) + 1;
  if (overlap > 0) {
    return [
      {
        statement_ids: [],
        type: 'overlap',
        severity: 'warning',
        message: `${prev.label} and ${cur.label} overlap by ${overlap} day${overlap === 1 ? '' : 's'}`,
        statements: [prev.index, cur.index],
        deduction: p.crossDocOverlapPenalty,
      },
    ];
  }
  const findings: CrossDocFinding[] = [];
  const gap = -overlap;
  if (gap > p.gapToleranceDays) {
    findings.push({
      statement_ids: [],
      type: 'gap',
      severity: 'warning',
      message: `${gap} day${gap === 1 ? '' : 's'} missing between ${prev.label} and ${cur.label}`,
      statements: [prev.index, cur.index],
      deduction: p.crossDocGapPenalty,
    });
  }
  if (prev.closingBalance !== null && cur.openingBalance !== null) {
    const diff = fromCents(cents(cur.openingBalance) - cents(prev.closingBalance));
    if (Math.abs(diff) > p.balanceTolerance) {
      findings.push({
        statement_ids: [],
        type: 'balance_mismatch',
        severity: 'error',
        message: `${cur.label} opens at ${formatMoney(cur.openingBalance)} but ${prev.label} closed at ${formatMoney(prev.closingBalance)} (difference ${formatMoney(diff)})`,
        statements: [prev.index, cur.index],
        deduction: p.crossDocBalanceMismatchPenalty,
      });
    }
  }
  return findings;
}

/** Statements in another currency than the reporting one, and those naming none beside some that do. */
function currencyFindings(statements: CrossDocStatement[], reportingCurrency: string, p: UnderwritingParams): CrossDocFinding[] {
  const findings: CrossDocFinding[] = [];
  // a statement naming no currency is counted in the reporting one: said aloud when another statement names it
  const named = statements.some((s) => s.currency);
  for (const s of statements) {
    if (!s.currency && named) {
      findings.push({
        statement_ids: [],
        type: 'currency_unstated',
        severity: 'warning',
        message: `${s.label} names no currency and none was declared at upload: its amounts are counted in ${reportingCurrency}, the currency the deal's other statements name; check it`,
        statements: [s.index],
        deduction: 0,
      });
      continue;
    }
    if (!s.currency || s.currency === reportingCurrency) continue;
    findings.push({
      statement_ids: [],
      type: 'currency_mismatch',
      severity: 'error',
      message: `${s.label} is in ${s.currency}, the deal is reported in ${reportingCurrency}: its amounts are not added to the deal's figures`,
      statements: [s.index],
      deduction: p.crossDocCurrencyPenalty,
    });
  }
  return findings;
}

/** Transactions counted once across overlapping statements, and own-account transfers (no deduction). */
function informationalFindings(input: CrossDocInput): CrossDocFinding[] {
  const findings: CrossDocFinding[] = [];
  for (const d of input.duplicates) {
    if (d.count === 0) continue;
    const kept = input.statements.find((s) => s.index === d.kept)!;
    const dropped = input.statements.find((s) => s.index === d.dropped)!;
    findings.push({
      statement_ids: [],
      type: 'duplicate_transactions',
      severity: 'info',
      message: `${d.count} transaction${d.count === 1 ? '' : 's'} of ${dropped.label} also appear${d.count === 1 ? 's' : ''} in ${kept.label}; counted once`,
      statements: [d.kept, d.dropped],
      deduction: 0,
    });
  }
  if (input.ownTransfers.count > 0) {
    findings.push({
      statement_ids: [],
      type: 'own_account_transfers',
      severity: 'info',
      message: `${input.ownTransfers.count} transfer${input.ownTransfers.count === 1 ? '' : 's'} between the merchant's own accounts (${formatMoney(input.ownTransfers.total)}) excluded from revenue and expenses`,
      statements: [],
      deduction: 0,
    });
  }
  return findings;
}

/** Days missing between the merged periods of every statement, whatever the account. */
function coverageGaps(statements: CrossDocStatement[], p: UnderwritingParams): CrossDocFinding[] {
  const dated = statements.filter((s) => s.start && s.end).sort((a, b) => dayNumber(a.start!) - dayNumber(b.start!) || a.index - b.index);
  const findings: CrossDocFinding[] = [];
  let reach = dated.length ? dated[0] : null;
  for (const cur of dated.slice(1)) {
    const gap = dayNumber(cur.start!) - dayNumber(reach!.end!) - 1;
    if (gap > p.gapToleranceDays) {
      findings.push({
        statement_ids: [],
        type: 'coverage_gap',
        severity: 'warning',
        message: `no statement covers the ${gap} days between ${reach!.end} and ${cur.start}`,
        statements: [reach!.index, cur.index],
        deduction: p.crossDocGapPenalty,
      });
    }
    if (dayNumber(cur.end!) > dayNumber(reach!.end!)) reach = cur;
  }
  return findings;
}
