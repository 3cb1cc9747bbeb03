import type { StatementTransaction } from '@ledgerlens/statements';
import { Transaction, TransactionCorrection } from '../entities/transaction.entities';
import type { CorrectedRows, DeletedRow } from '../repositories/transaction.repository';

/**
 * Corrections survive a new reading of their document (reprocess, reclassify). The corrected rows
 * of the earlier reading are matched to the rows of the new one by what the parser read (the
 * values before the first correction, from the audit trail): same date, amount and description,
 * the nearest position winning. A matched row keeps its id, its correction metadata and its audit
 * trail, and takes the corrected values over the new reading; an unmatched one is dropped with a
 * warning on the document, its audit trail kept. A row a person deleted is dropped from the new
 * reading again when it has one like it; a row a person added is kept (in its place by date) when
 * the new reading still lacks it.
 */

export interface Carryover {
  /** the new reading with deleted rows dropped, added rows placed, corrected values applied (each row keeps its provenance) */
  transactions: StatementTransaction[];
  /** index in `transactions` -> the corrected or added row that takes its place */
  kept: Map<number, Transaction>;
  /** index in `transactions` -> the corrected category (screening does not override it) */
  categories: Map<number, string>;
  /** corrected rows the new reading has no row for */
  unmatched: Transaction[];
}

const cents = (n: number) => Math.round(n * 100);
const words = (s: string) => s.trim().toLowerCase().replace(/\s+/g, ' ');
const exactKey = (r: { date: string; amount: number; description: string }) => `${r.date}|${cents(r.amount)}|${words(r.description)}`;
const looseKey = (r: { date: string; amount: number }) => `${r.date}|${cents(r.amount)}`;

/** What the parser read for a corrected row: each field's value before its first correction. */
function asRead(row: Transaction, trail: TransactionCorrection[]): { date: string; amount: number; description: string } {
  const first = (field: string) => trail.find((c) => c.field === field);
  const amount = first('amount');
  return {
    date: first('date')?.oldValue ?? row.date,
    amount: amount?.oldValue != null ? Number(amount.oldValue) : row.amount,
    description: first('description')?.oldValue ?? row.description,
  };
}

/** Finds rows of a reading by what was read, the nearest unclaimed position first. */
class RowIndex {
  private readonly exact = new Map<string, number[]>();
  private readonly loose = new Map<string, number[]>();
  readonly claimed = new Set<number>();

  constructor(rows: StatementTransaction[]) {
    rows.forEach((t, i) => {
      this.exact.set(exactKey(t), [...(this.exact.get(exactKey(t)) ?? []), i]);
      this.loose.set(looseKey(t), [...(this.loose.get(looseKey(t)) ?? []), i]);
    });
  }

  /** The same date, amount and description; else the date and amount alone when only one row has them. */
  find(read: { date: string; amount: number; description: string }, position: number): number | undefined {
    const free = (candidates: number[] | undefined) => (candidates ?? []).filter((i) => !this.claimed.has(i));
    const nearest = free(this.exact.get(exactKey(read))).sort((a, b) => Math.abs(a - position) - Math.abs(b - position) || a - b)[0];
    if (nearest !== undefined) return nearest;
    const loose = free(this.loose.get(looseKey(read)));
    return loose.length === 1 ? loose[0] : undefined;
  }
}

function applyCorrected(t: StatementTransaction, row: Transaction, trail: TransactionCorrection[]): void {
  const fields = new Set(trail.map((c) => c.field));
  if (fields.has('amount') || fields.has('transaction_type')) {
    t.amount = row.amount;
    t.transactionType = row.transactionType;
  }
  if (fields.has('date')) t.date = row.date;
  if (fields.has('description')) t.description = row.description;
}

/** The new reading without the rows a person deleted from an earlier one. */
function dropDeleted(parsed: StatementTransaction[], deleted: DeletedRow[]): StatementTransaction[] {
  const index = new RowIndex(parsed);
  for (const d of deleted) {
    const i = index.find(d, d.position);
    if (i !== undefined) index.claimed.add(i);
  }
  return parsed.filter((_, i) => !index.claimed.has(i));
}

/** Where a row a person added goes: after the last row dated on or before it. */
function placeByDate(rows: StatementTransaction[], date: string): number {
  let at = 0;
  rows.forEach((t, i) => {
    if (t.date <= date) at = i + 1;
  });
  return at;
}

export function carryCorrections(parsed: StatementTransaction[], previous: CorrectedRows): Carryover {
  const transactions = dropDeleted(parsed, previous.deleted).map((t) => ({ ...t }));
  const matched = new Map<Transaction, number>();
  const unmatched: Transaction[] = [];
  const added: Transaction[] = [];
  const index = new RowIndex(transactions);
  for (const row of previous.rows) {
    const trail = previous.trails.get(row.id) ?? [];
    const at = index.find(asRead(row, trail), row.position);
    if (at === undefined) {
      (row.origin === 'added' ? added : unmatched).push(row);
      continue;
    }
    index.claimed.add(at);
    matched.set(row, at);
    applyCorrected(transactions[at], row, trail);
  }
  // a row a person added and the new reading lacks goes in by its date (indices after it shift)
  const order: Array<StatementTransaction & { keep?: Transaction }> = transactions.map((t) => ({ ...t }));
  for (const [row, at] of matched) order[at].keep = row;
  for (const row of added) {
    const { date, description, amount, balance, transactionType } = row;
    order.splice(placeByDate(order, date), 0, { date, description, amount, balance, transactionType, keep: row });
  }
  const kept = new Map<number, Transaction>();
  const categories = new Map<number, string>();
  const rows = order.map(({ keep, ...t }, i) => {
    if (keep) {
      kept.set(i, keep);
      const fields = new Set((previous.trails.get(keep.id) ?? []).map((c) => c.field));
      if (fields.has('category') || keep.origin === 'added') categories.set(i, keep.category);
    }
    return t;
  });
  return { transactions: rows, kept, categories, unmatched };
}

/** The document warning for a correction the new reading has no row for. */
export function unmatchedWarning(row: Transaction): string {
  return `a correction could not be applied again: this reading has no row matching transaction ${row.id} (${row.date}, ${row.description}, ${row.amount.toFixed(2)}); its audit trail is kept`;
}
