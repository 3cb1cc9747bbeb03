import type { DescriptionFeatures } from './categorize';
import type { UnderwritingParams } from './params';
import type { StatementTransactionInput, TransactionCategory } from './types';
import { cents, round2 } from './util';

/** One side of an own-account transfer: the statement row it is. */
export interface TransferSide {
  /** the account (DealAccount.account) the row belongs to */
  account: string;
  statement_id: string | number | null;
  /** the row's position in its statement */
  statement_tx_index: number;
  date: string;
  description: string;
}

/** A debit in one of the merchant's accounts and the credit of the same amount in another. */
export interface OwnTransfer {
  amount: number;
  /** days between the debit and the credit */
  days_apart: number;
  debit: TransferSide;
  credit: TransferSide;
}

export interface TransferSummary {
  count: number;
  /** sum of the transferred amounts (each transfer once) */
  total: number;
  /** the matching window (UnderwritingParams.transferMatchDays) */
  window_days: number;
  transfers: OwnTransfer[];
}

/** What matching reads of the deal's counted transactions (flat, with where each came from). */
export interface TransferCandidates {
  txs: StatementTransactionInput[];
  /** statement index of each */
  st: Int32Array;
  /** index inside its statement */
  tx: Int32Array;
  id: (string | number | null)[];
  days: number[];
}

/**
 * Own-account transfers. With statements of more than one account, a debit in one account and a
 * credit of the same amount (to the cent) in another, at most transferMatchDays days apart, are one
 * transfer: both rows become `transfer` (neither revenue nor expense). Each row is matched once.
 * Credits are taken by date; each takes the nearest unmatched debit, preferring pairs where a side
 * reads as a transfer (first pass) over those where neither does (second pass). A card-processor
 * settlement (known revenue) and a lender payment (debt service) are never a transfer.
 */
export function matchOwnTransfers(
  flat: TransferCandidates,
  features: DescriptionFeatures[],
  categories: TransactionCategory[],
  accounts: string[],
  p: UnderwritingParams,
): TransferSummary {
  const found: TransferSummary = { count: 0, total: 0, window_days: p.transferMatchDays, transfers: [] };
  if (new Set(accounts).size <= 1) return found;
  const debitsByCents = new Map<number, number[]>();
  const credits: number[] = [];
  flat.txs.forEach((t, i) => {
    if (t.amount < 0 && categories[i] !== 'debt_service') {
      const g = debitsByCents.get(-cents(t.amount));
      if (g) g.push(i);
      else debitsByCents.set(-cents(t.amount), [i]);
    } else if (t.amount > 0 && !features[i].knownRevenue) credits.push(i);
  });
  credits.sort((a, b) => flat.days[a] - flat.days[b] || a - b);
  const used = new Set<number>();
  for (const wording of [true, false]) {
    for (const i of credits) {
      if (used.has(i)) continue;
      const j = nearestDebit(i, debitsByCents.get(cents(flat.txs[i].amount)) ?? [], { flat, accounts, categories, used, p, wording });
      if (j === null) continue;
      used.add(i).add(j);
      categories[i] = 'transfer';
      categories[j] = 'transfer';
      found.transfers.push(pairOf(flat, accounts, j, i));
    }
  }
  found.transfers.sort((a, b) => a.credit.date.localeCompare(b.credit.date) || a.amount - b.amount);
  found.count = found.transfers.length;
  found.total = round2(found.transfers.reduce((s, t) => s + cents(t.amount), 0) / 100);
  return found;
}

function nearestDebit(
  i: number,
  candidates: number[],
  c: {
    flat: TransferCandidates;
    accounts: string[];
    categories: TransactionCategory[];
    used: Set<number>;
    p: UnderwritingParams;
    wording: boolean;
  },
): number | null {
  let best: number | null = null;
  for (const j of candidates) {
    if (c.used.has(j) || c.accounts[c.flat.st[j]] === c.accounts[c.flat.st[i]]) continue;
    const apart = Math.abs(c.flat.days[j] - c.flat.days[i]);
    if (apart > c.p.transferMatchDays) continue;
    const reads = c.categories[i] === 'transfer' || c.categories[j] === 'transfer';
    if (reads !== c.wording) continue;
    if (best === null || apart < Math.abs(c.flat.days[best] - c.flat.days[i])) best = j;
  }
  return best;
}

function pairOf(flat: TransferCandidates, accounts: string[], debit: number, credit: number): OwnTransfer {
  const side = (k: number): TransferSide => ({
    account: accounts[flat.st[k]],
    statement_id: flat.id[k],
    statement_tx_index: flat.tx[k],
    date: flat.txs[k].date,
    description: flat.txs[k].description ?? '',
  });
  return {
    amount: round2(flat.txs[credit].amount),
    days_apart: Math.abs(flat.days[credit] - flat.days[debit]),
    debit: side(debit),
    credit: side(credit),
  };
}
