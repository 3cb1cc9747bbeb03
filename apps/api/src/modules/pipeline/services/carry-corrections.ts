import type { StatementTransactionInput } from '@ledgerlens/underwriting';
import { Transaction, TransactionCorrection } from '../entities/transaction.entities';
import type { CorrectedRows } from '../repositories/transaction.repository';

/**
 * Corrections survive a new reading of their document (reprocess, reclassify). The corrected rows
 * of the earlier reading are matched to the rows of the new one by what the parser read (the
 * values before the first correction, from the audit trail): same date, amount and description,
 * the nearest position winning. A matched row keeps its id, its correction metadata and its audit
 * trail, and takes the corrected values over the new reading; an unmatched one is dropped with a
 * warning on the document, its audit trail kept.
 */

export interface Carryover {
  /** the new reading with the corrected amount, type and description applied to the matched rows */
  transactions: StatementTransactionInput[];
  /** index in the new reading -> the corrected row that takes its place */
  kept: Map<number, Transaction>;
  /** index in the new reading -> the corrected category (screening does not override it) */
  categories: Map<number, string>;
  /** corrected rows the new reading has no row for */
  unmatched: Transaction[];
}

const cents = (n: number) => Math.round(n * 100);
const words = (s: string) => s.trim().toLowerCase().replace(/\s+/g, ' ');

/** What the parser read for a corrected row: each field's value before its first correction. */
function asRead(row: Transaction, trail: TransactionCorrection[]): { amount: number; description: string } {
  const first = (field: string) => trail.find((c) => c.field === field);
  const amount = first('amount');
  const description = first('description');
  return {
    amount: amount?.oldValue != null ? Number(amount.oldValue) : row.amount,
    description: description?.oldValue ?? row.description,
  };
}

export function carryCorrections(parsed: StatementTransactionInput[], previous: CorrectedRows): Carryover {
  const transactions = parsed.map((t) => ({ ...t }));
  const kept = new Map<number, Transaction>();
  const categories = new Map<number, string>();
  const unmatched: Transaction[] = [];
  const byKey = new Map<string, number[]>();
  const byLooseKey = new Map<string, number[]>();
  parsed.forEach((t, i) => {
    const key = `${t.date}|${cents(t.amount)}|${words(t.description)}`;
    const loose = `${t.date}|${cents(t.amount)}`;
    byKey.set(key, [...(byKey.get(key) ?? []), i]);
    byLooseKey.set(loose, [...(byLooseKey.get(loose) ?? []), i]);
  });
  const nearest = (candidates: number[], position: number) =>
    candidates.filter((i) => !kept.has(i)).sort((a, b) => Math.abs(a - position) - Math.abs(b - position) || a - b)[0];
  for (const row of previous.rows) {
    const trail = previous.trails.get(row.id) ?? [];
    const read = asRead(row, trail);
    let index = nearest(byKey.get(`${row.date}|${cents(read.amount)}|${words(read.description)}`) ?? [], row.position);
    if (index === undefined) {
      // the description read differently this time: the date and amount alone, when only one row has them
      const loose = (byLooseKey.get(`${row.date}|${cents(read.amount)}`) ?? []).filter((i) => !kept.has(i));
      if (loose.length === 1) index = loose[0];
    }
    if (index === undefined) {
      unmatched.push(row);
      continue;
    }
    kept.set(index, row);
    const fields = new Set(trail.map((c) => c.field));
    const t = transactions[index];
    if (fields.has('amount') || fields.has('transaction_type')) {
      t.amount = row.amount;
      t.transactionType = row.transactionType;
    }
    if (fields.has('description')) t.description = row.description;
    if (fields.has('category')) categories.set(index, row.category);
  }
  return { transactions, kept, categories, unmatched };
}

/** The document warning for a correction the new reading has no row for. */
export function unmatchedWarning(row: Transaction): string {
  return `a correction could not be applied again: this reading has no row matching transaction ${row.id} (${row.date}, ${row.description}, ${row.amount.toFixed(2)}); its audit trail is kept`;
}
