import type { UnderwritingParams } from './params';
import type { StatementInput } from './types';
import { cents, dayToDate } from './util';

/** How the statements of an account were found to belong together. */
export type AccountGrouping = 'account_number' | 'balance_continuity' | 'single_statement';

/** One bank account of the deal and the statements read as its own. */
export interface DealAccount {
  /** "A1", "A2", ... in order of the account's first period start */
  account: string;
  /** the bank name printed most often on its statements; null when none is printed */
  bank_name: string | null;
  account_number_last4: string | null;
  grouped_by: AccountGrouping;
  statement_count: number;
  /** document ids of its statements, in order of period start */
  statement_ids: (string | number | null)[];
  period_start: string | null;
  period_end: string | null;
}

/** What grouping reads of one statement: its period as day numbers (null when undated). */
export interface AccountStatement {
  statement: Pick<StatementInput, 'id' | 'bankName' | 'accountNumberLast4' | 'openingBalance' | 'closingBalance'>;
  start: number | null;
  end: number | null;
}

export interface AccountGroups {
  /** per statement (input order): the key of its account ("A1", ...) */
  keys: string[];
  accounts: DealAccount[];
}

const last4Of = (s: AccountStatement) => (s.statement.accountNumberLast4 ?? '').trim() || null;
const bankOf = (s: AccountStatement) =>
  (s.statement.bankName ?? '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();

/** Two bank names can name the same bank: one is unprinted, or one contains the other ("chase" in "jpmorgan chase bank n a"). */
const sameBankName = (x: string, y: string) => !x || !y || x.includes(y) || y.includes(x);

/** A printed, non-zero balance in cents (a zero balance links nothing: new and emptied accounts share it). */
function balanceCents(x: number | null | undefined): number | null {
  return typeof x === 'number' && Number.isFinite(x) && cents(x) !== 0 ? cents(x) : null;
}

/**
 * `next` continues `prev`'s account: it opens at the very balance `prev` closed at (to the cent) and
 * starts on the day after `prev` ends, or up to gapToleranceDays later. A copy of a statement (the
 * same period start and the same opening balance) is the same account too.
 */
function continues(prev: AccountStatement, next: AccountStatement, p: UnderwritingParams): boolean {
  if (prev.start === null || next.start === null || prev.end === null) return false;
  const opening = balanceCents(next.statement.openingBalance);
  if (opening === null) return false;
  if (next.start === prev.start && opening === balanceCents(prev.statement.openingBalance)) return true;
  const after = next.start - prev.end;
  return after >= 1 && after <= p.gapToleranceDays + 1 && opening === balanceCents(prev.statement.closingBalance);
}

/**
 * Groups the deal's statements into accounts. Statements printing the same last 4 digits of the
 * account number are one account (bank names are printed inconsistently, so the name does not split
 * them). A statement without them joins the account of a statement it continues, or that continues it,
 * by balance (see `continues`), when the bank names do not contradict and no two different account
 * numbers end up together. Any other statement is an account of its own: two statements without an
 * account number and without balance continuity are never merged, even at the same bank.
 */
export function groupAccounts(statements: AccountStatement[], p: UnderwritingParams): AccountGroups {
  const n = statements.length;
  const parent = statements.map((_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i])));
  const digits = statements.map(last4Of);
  const groupDigits = new Map<number, string | null>(statements.map((_, i) => [i, digits[i]]));
  const groupBanks = new Map<number, string[]>(statements.map((s, i) => [i, bankOf(s) ? [bankOf(s)] : []]));
  const byContinuity = new Set<number>();
  const union = (a: number, b: number, continuity: boolean) => {
    const ra = find(a);
    const rb = find(b);
    if (ra === rb) return;
    const da = groupDigits.get(ra) ?? null;
    const db = groupDigits.get(rb) ?? null;
    if (da && db && da !== db) return;
    const banks = [...groupBanks.get(ra)!, ...groupBanks.get(rb)!];
    // by balance alone, never across banks that contradict (a chain through a statement without a bank name included)
    if (continuity && banks.some((x) => banks.some((y) => !sameBankName(x, y)))) return;
    parent[rb] = ra;
    groupDigits.set(ra, da ?? db);
    groupBanks.set(ra, banks);
    if (continuity) byContinuity.add(ra);
    if (byContinuity.has(rb)) byContinuity.add(ra);
  };
  const order = statements.map((_, i) => i).sort((a, b) => (statements[a].start ?? Infinity) - (statements[b].start ?? Infinity) || a - b);
  for (let x = 0; x < n; x++) {
    for (let y = x + 1; y < n; y++) {
      const a = order[x];
      const b = order[y];
      if (digits[a] && digits[a] === digits[b]) union(a, b, false);
    }
  }
  for (const a of order) {
    for (const b of order) {
      if (a === b || (digits[a] && digits[b])) continue;
      if (continues(statements[a], statements[b], p)) union(a, b, true);
    }
  }
  return labelAccounts(statements, order, find, byContinuity);
}

/** Names the groups A1, A2, ... by their first statement, and describes each. */
function labelAccounts(
  statements: AccountStatement[],
  order: number[],
  find: (i: number) => number,
  byContinuity: Set<number>,
): AccountGroups {
  const members = new Map<number, number[]>();
  for (const i of order) {
    const r = find(i);
    const g = members.get(r);
    if (g) g.push(i);
    else members.set(r, [i]);
  }
  const keys = new Array<string>(statements.length);
  const accounts: DealAccount[] = [];
  for (const [root, group] of members) {
    const key = `A${accounts.length + 1}`;
    for (const i of group) keys[i] = key;
    const starts = group.map((i) => statements[i].start).filter((d): d is number => d !== null);
    const ends = group.map((i) => statements[i].end).filter((d): d is number => d !== null);
    const last4 = group.map((i) => last4Of(statements[i])).find((d) => d !== null) ?? null;
    accounts.push({
      account: key,
      bank_name: mostCommon(group.map((i) => (statements[i].statement.bankName ?? '').trim()).filter(Boolean)),
      account_number_last4: last4,
      grouped_by: group.length === 1 ? 'single_statement' : byContinuity.has(root) || !last4 ? 'balance_continuity' : 'account_number',
      statement_count: group.length,
      statement_ids: group.map((i) => statements[i].statement.id ?? null),
      period_start: starts.length ? dayToDate(Math.min(...starts)) : null,
      period_end: ends.length ? dayToDate(Math.max(...ends)) : null,
    });
  }
  return { keys, accounts };
}

function mostCommon(values: string[]): string | null {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  let best: string | null = null;
  for (const [v, c] of counts) if (best === null || c > counts.get(best)!) best = v;
  return best;
}
