import { type DescriptionFeatures, UNIDENTIFIED_RULE } from './categorize';
import {
  NON_REVENUE_CLASSES,
  type DealTransaction,
  type NonRevenueClass,
  type RevenueClass,
  type StatementInput,
  type StatementTransactionInput,
  type TransactionCategory,
} from './types';
import { cents, fromCents } from './util';

/**
 * True revenue (docs/revenue.md): every deposit gets a revenue class and the rule that decided it.
 * The description rules are in categorize.ts (creditRule); here the rules that need more than the
 * description (the account holder, an own-account transfer match) and a person's override.
 */

/** Per excluded class, the money left out of revenue. */
export type RevenueExclusions = Record<NonRevenueClass, number>;

export interface RevenueMonth {
  month: string;
  /** every deposit of the month */
  gross_deposits: number;
  /** deposits left out of revenue, by class */
  excluded: RevenueExclusions;
  excluded_total: number;
  /** gross_deposits - excluded_total */
  true_revenue: number;
  /** cash deposits (part of true_revenue, totalled apart) */
  cash_deposits: number;
}

export interface RevenueTable {
  /** one row per month of the deal's `monthly` list, oldest first */
  months: RevenueMonth[];
  totals: Omit<RevenueMonth, 'month'>;
  deposit_count: number;
  cash_deposit_count: number;
  /** deposits whose class a person set */
  overridden_count: number;
  /** deposits no rule named, counted as revenue (the ones to look at first) */
  unidentified_count: number;
  unidentified_total: number;
}

export const OVERRIDE_RULE = 'set by an underwriter';
const OWN_TRANSFER_RULE = 'own-account transfer: a debit of the same amount in another account of the deal';
const HOLDER_RULE = 'transfer from the account holder (a person): owner injection';

/** Words that make an account holder a business, not a person. */
const BUSINESS_WORDS =
  /\b(llc|l l c|inc|corp|corporation|co|company|ltd|lp|llp|pllc|pc|group|holdings?|enterprises?|services?|trust|partners|associates|restaurant|store|shop|bank)\b/i;
const words = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z ]+/g, ' ')
    .split(/\s+/)
    .filter((w) => w.length > 1);

/** The words of the holder's name when the holder reads as a person (2-4 words, no business word; a "DBA" part dropped); else null. */
export function personNameWords(holder: string | null | undefined): string[] | null {
  if (!holder) return null;
  const person = holder.split(/\b(?:dba|d\/b\/a|doing business as)\b/i)[0];
  if (BUSINESS_WORDS.test(person)) return null;
  const w = words(person);
  return w.length >= 2 && w.length <= 4 ? w : null;
}

/** Classes and rules of the deal's counted transactions (null for a debit), which are cash and which a person set. */
export interface DepositClasses {
  classes: (RevenueClass | null)[];
  rules: (string | null)[];
  cash: Uint8Array;
  overridden: Uint8Array;
  /** the account holder's name words per statement (null: not a person) */
  holders: (string[] | null)[];
  /** true when some deposit carries a person's class or category */
  anyOverride: boolean;
}

const categoryOf = (c: RevenueClass): TransactionCategory => (c === 'revenue' ? 'revenue' : c === 'transfer' ? 'transfer' : 'non_revenue');

/** A category a person set on a deposit, read as a class. */
const classOfCategory = (c: TransactionCategory): RevenueClass =>
  c === 'revenue' ? 'revenue' : c === 'transfer' ? 'transfer' : 'other_non_revenue';

export function newDepositClasses(n: number, statements: StatementInput[]): DepositClasses {
  return {
    classes: new Array<RevenueClass | null>(n).fill(null),
    rules: new Array<string | null>(n).fill(null),
    cash: new Uint8Array(n),
    overridden: new Uint8Array(n),
    holders: statements.map((s) => personNameWords(s.accountHolder)),
    anyOverride: false,
  };
}

/**
 * One deposit: the description rules' class, then a transfer or an unnamed deposit naming the
 * account holder (a person) as owner injection. Returns its category (which follows the class).
 */
export function classifyDeposit(
  dc: DepositClasses,
  i: number,
  t: StatementTransactionInput,
  f: DescriptionFeatures,
  statement: number,
): TransactionCategory {
  const rule = f.creditCategory;
  let cls = rule.revenue_class ?? 'revenue';
  let text = rule.rule;
  const holder = dc.holders[statement];
  if (holder && (cls === 'transfer' || (cls === 'revenue' && !f.knownRevenue && !f.cashDeposit))) {
    const d = new Set(words(t.description ?? ''));
    if (holder.every((w) => d.has(w))) {
      cls = 'owner_injection';
      text = HOLDER_RULE;
    }
  }
  dc.classes[i] = cls;
  dc.rules[i] = text;
  if (cls === 'revenue' && f.cashDeposit) dc.cash[i] = 1;
  if (t.revenueClass || t.category) dc.anyOverride = true;
  return rule.revenue_class === cls ? rule.category : categoryOf(cls);
}

/**
 * After the own-account transfer match: a deposit it made a transfer is one; then a person's class
 * (or category) wins over every rule. A person's category on a debit is kept too.
 */
export function applyOverrides(
  txs: StatementTransactionInput[],
  dc: DepositClasses,
  categories: TransactionCategory[],
  ownTransfers: number,
): void {
  if (!ownTransfers && !dc.anyOverride && !txs.some((t) => t.amount < 0 && t.category)) return;
  for (let i = 0; i < txs.length; i++) {
    const t = txs[i];
    if (t.amount > 0 && categories[i] === 'transfer' && dc.classes[i] !== 'transfer') {
      dc.classes[i] = 'transfer';
      dc.rules[i] = OWN_TRANSFER_RULE;
      dc.cash[i] = 0;
    }
    if (t.amount > 0 && (t.revenueClass || t.category)) {
      const cls = t.revenueClass ?? classOfCategory(t.category!);
      dc.classes[i] = cls;
      dc.rules[i] = OVERRIDE_RULE;
      dc.overridden[i] = 1;
      if (cls !== 'revenue') dc.cash[i] = 0;
      categories[i] = t.revenueClass ? categoryOf(cls) : t.category!;
    } else if (t.amount < 0 && t.category) categories[i] = t.category;
  }
}

const emptyExclusions = (): RevenueExclusions => Object.fromEntries(NON_REVENUE_CLASSES.map((c) => [c, 0])) as RevenueExclusions;

interface MonthCents {
  gross: number;
  excluded: RevenueExclusions;
  cash: number;
}

function finish(m: MonthCents): Omit<RevenueMonth, 'month'> {
  let excludedTotal = 0;
  const excluded = emptyExclusions();
  for (const c of NON_REVENUE_CLASSES) {
    excludedTotal += m.excluded[c];
    excluded[c] = fromCents(m.excluded[c]);
  }
  return {
    gross_deposits: fromCents(m.gross),
    excluded,
    excluded_total: fromCents(excludedTotal),
    true_revenue: fromCents(m.gross - excludedTotal),
    cash_deposits: fromCents(m.cash),
  };
}

/** The revenue table: per month of `monthly`, gross deposits, what each class excluded, true revenue, cash (all in cents until printed). */
export function revenueTable(screened: DealTransaction[], monthly: { month: string }[], overridden: Uint8Array): RevenueTable {
  const months = monthly.map((m) => m.month);
  const byMonth = new Map<string, MonthCents>(months.map((m) => [m, { gross: 0, excluded: emptyExclusions(), cash: 0 }]));
  let deposits = 0;
  let cash = 0;
  let overrides = 0;
  let unidentified = 0;
  let unidentifiedCents = 0;
  let lastDate = '';
  let m: MonthCents | undefined;
  for (let i = 0; i < screened.length; i++) {
    const t = screened[i];
    if (!t.revenue_class || !(t.amount > 0)) continue;
    const c = cents(t.amount);
    deposits++;
    if (overridden[i]) overrides++;
    if (t.revenue_rule === UNIDENTIFIED_RULE) {
      unidentified++;
      unidentifiedCents += c;
    }
    // rows come in statement order: consecutive deposits mostly share a month
    if (t.date !== lastDate) {
      lastDate = t.date;
      m = byMonth.get(t.date.slice(0, 7));
    }
    if (!m) continue;
    m.gross += c;
    if (t.revenue_class !== 'revenue') m.excluded[t.revenue_class] += c;
    else if (t.is_cash_deposit) {
      m.cash += c;
      cash++;
    }
  }
  // every counted transaction's month is a month of `monthly`: the totals are the months' sums
  const total: MonthCents = { gross: 0, excluded: emptyExclusions(), cash: 0 };
  for (const mc of byMonth.values()) {
    total.gross += mc.gross;
    total.cash += mc.cash;
    for (const k of NON_REVENUE_CLASSES) total.excluded[k] += mc.excluded[k];
  }
  return {
    months: months.map((month) => ({ month, ...finish(byMonth.get(month)!) })),
    totals: finish(total),
    deposit_count: deposits,
    cash_deposit_count: cash,
    overridden_count: overrides,
    unidentified_count: unidentified,
    unidentified_total: fromCents(unidentifiedCents),
  };
}
