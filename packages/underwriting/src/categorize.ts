import { type LenderMatch, type LenderMatcher, OWN_ACCOUNT_RE, isFunderKind, lenderDirectory, lenderMatcher } from './lenders';
import type { RevenueClass, StatementTransactionInput, TransactionCategory } from './types';

/**
 * Keyword rules for categorisation and screening. All matching is case-insensitive on the
 * printed description. The README lists the rules in the same order.
 */

/** Names of the funders (mca and lender kinds) of the shipped directory, lower case (see lenders/directory.json). */
export const KNOWN_LENDERS: readonly string[] = lenderDirectory()
  .filter((e) => isFunderKind(e.kind))
  .map((e) => e.name.toLowerCase());

/** Generic lender words (a debit with one of these is debt service). "capital one" is a bank, not a lender. */
const GENERIC_LENDER_RE = /\b(loan|advance|funding|financing|lending|lender|capital(?! one))\b/i;

export const NSF_RE = /\bnsf\b|non[- ]?sufficient|insufficient funds|returned item (fee|charge)|return(ed)? check (fee|charge)|\bisf\b/i;
export const OVERDRAFT_RE = /overdraft|overdrawn|\bod (fee|charge|item)|uncollected funds fee|\bodp\b/i;
export const RETURNED_RE =
  /returned (item|ach|check|deposit|payment)|return(ed)? deposited|deposited item return|\bach return|\bchargeback\b|\bunpaid item\b/i;
export const GAMBLING_RE =
  /casino|draftkings|fanduel|betmgm|sportsbook|\blottery\b|\blotto\b|poker|bet365|bovada|pointsbet|gambl|\bslots?\b/i;
export const CASH_WITHDRAWAL_RE = /\batm\b(?!.*deposit)|cash withdrawal|withdrawal (at|from) branch|counter withdrawal|cash w\/d/i;
/** Card processors and sales platforms: a known source of revenue. */
export const KNOWN_REVENUE_RE =
  /stripe|\bsquare\b|\bsq ?\*|paypal|shopify|clover|heartland|first data|fiserv|worldpay|global payments|\btsys\b|elavon|paymentech|merchant (dep|deposit|services|settle|bnkcd|bankcard)|bankcard|\bbkcd\b|card settle|settlement|batch dep|\btoast\b|doordash|uber ?eats|grubhub|amzn mktp|amazon (payments|marketplace)|\betsy\b|\bebay\b|authorize\.net|braintree|amex settle|american express settle|visa settle|mastercard settle|discover settle/i;
const CUSTOMER_DEPOSIT_RE =
  /\bwire\b|zelle|venmo|cash ?app|mobile deposit|remote deposit|branch deposit|atm deposit|cash deposit|check deposit|counter deposit|\bach credit\b|ach deposit|customer|invoice|\bpos credit\b|\bdeposit\b/i;
const REFUND_RE = /refund|reversal|revers(ed|e)|\breturn\b|returned|chargeback|adjustment|\brebate\b|cash ?back|tax ref|irs treas/i;
const INTEREST_RE = /interest (paid|earned|payment)|\binterest\b|dividend|insurance claim/i;
/** Money the owners put in: not revenue. */
export const OWNER_INJECTION_RE =
  /\bowner'?s? (contribution|injection|investment|equity|capital|deposit|loan)\b|\b(shareholder|stockholder|member|partner)'?s? (contribution|loan|investment|capital|deposit)\b|\bcapital (contribution|injection)\b|\bequity (contribution|injection)\b|\bpaid[- ]in capital\b/i;
/** Cash brought to the bank: revenue, called out and totalled apart. */
export const CASH_DEPOSIT_RE =
  /cash deposit|\bcash dep\b|atm (cash )?deposit|teller deposit|counter deposit|branch deposit|\bcurrency deposit|\bdeposit cash\b/i;
const LOAN_PROCEEDS_RE =
  /loan (proceeds|disbursement|deposit)|proceeds|disbursement|\bsba\b|\bppp\b|\beidl\b|line of credit|\bloc (draw|advance)\b/i;
export const TRANSFER_RE =
  /\b(transfer|xfer|trnsfr|tfr)\b|\b(from|to) (checking|savings|chk|sav|acct|account)\b|book transfer|internal transfer|\bsweep\b/i;
const OWN_WIRE_RE = OWN_ACCOUNT_RE;
/** Operating expenses a recurrence alone must not turn into a lender position. */
export const OPEX_RE =
  /payroll|\badp\b|gusto|paychex|\brent\b|lease|utilit|electric|\bgas\b|water|insurance|\birs\b|tax|verizon|at&t|comcast|t-mobile|salary|wages/i;

export interface CategoryResult {
  category: TransactionCategory;
  /** short explanation of the rule that matched */
  rule: string;
  /** a credit's revenue class (absent for a debit) */
  revenue_class?: RevenueClass;
}

/**
 * The directory's (or the organization's) name in a description, after the transfer rule: money
 * moved to or from the merchant's own accounts ("BLUEVINE TRANSFER TO SAVINGS") names no lender.
 */
export function lenderMatchOf(description: string, matcher: LenderMatcher = lenderMatcher()): LenderMatch | null {
  const m = matcher.match(description);
  if (!m) return null;
  if (OWN_WIRE_RE.test(description)) return null;
  return m;
}

/** Funder (mca or lender kind) named in the description, or null. Returns the funder's name in lower case. */
export function matchKnownLender(description: string, matcher?: LenderMatcher): string | null {
  const m = lenderMatchOf(description, matcher);
  return m && m.is_funder ? m.name.toLowerCase() : null;
}

export function isKnownRevenueSource(description: string): boolean {
  return KNOWN_REVENUE_RE.test(description);
}

/** Everything the keyword rules say about one description (independent of the amount). */
export interface DescriptionFeatures {
  creditCategory: CategoryResult;
  debitCategory: CategoryResult;
  nsf: boolean;
  overdraft: boolean;
  returned: boolean;
  gambling: boolean;
  cashWithdrawal: boolean;
  knownRevenue: boolean;
  /** a cash deposit by its wording */
  cashDeposit: boolean;
  /** the funder's name (lower case) when a funder (mca or lender kind) is named, else null */
  lender: string | null;
  /** the directory or organization name found (any kind: a bank, processor or payroll name too), transfer rule applied */
  lenderMatch: LenderMatch | null;
  genericLender: boolean;
  opex: boolean;
  counterparty: string;
}

type FeatureCaches = { features: Map<string, DescriptionFeatures>; exact: Map<string, DescriptionFeatures> };

function rememberExact(caches: FeatureCaches, limit: number, description: string, f: DescriptionFeatures) {
  if (caches.exact.size > limit) caches.exact.clear();
  caches.exact.set(description, f);
}

/**
 * Keyword features of a description. Cached (per lender matcher: an organization's names change
 * what a description means) by the description with long digit runs (reference numbers) masked,
 * since no rule depends on them; the cache is bounded.
 */
export function descriptionFeatures(description: string, matcher: LenderMatcher = lenderMatcher()): DescriptionFeatures {
  const caches = matcher.caches as FeatureCaches;
  let f = caches.exact.get(description);
  if (f) return f;
  const key = description.replace(/\d{4,}/g, '#');
  f = caches.features.get(key);
  if (f) {
    rememberExact(caches, matcher.cacheLimits.exact, description, f);
    return f;
  }
  f = computeFeatures(key, matcher);
  if (caches.features.size > matcher.cacheLimits.features) caches.features.clear();
  caches.features.set(key, f);
  rememberExact(caches, matcher.cacheLimits.exact, description, f);
  return f;
}

/** The text the generic lender words are looked for in: a name that is no funder (a bank, a store) taken out. */
function genericText(d: string, m: LenderMatch | null): string {
  if (!m || m.is_funder) return d;
  const at = d.indexOf(m.matched);
  return at < 0 ? d : `${d.slice(0, at)} ${d.slice(at + m.matched.length)}`;
}

function computeFeatures(key: string, matcher: LenderMatcher): DescriptionFeatures {
  const d = key;
  const nsf = NSF_RE.test(d);
  const overdraft = !nsf && OVERDRAFT_RE.test(d);
  const lenderMatch = lenderMatchOf(d, matcher);
  const lender = lenderMatch?.is_funder ? lenderMatch.name.toLowerCase() : null;
  const genericLender = GENERIC_LENDER_RE.test(genericText(d, lenderMatch));
  const knownRevenue = KNOWN_REVENUE_RE.test(d);
  const transfer = TRANSFER_RE.test(d) && !(/\bwire\b/i.test(d) && !OWN_WIRE_RE.test(d));
  const returned = RETURNED_RE.test(d);
  const cashWithdrawal = CASH_WITHDRAWAL_RE.test(d);
  const gambling = GAMBLING_RE.test(d);
  const creditCategory = creditRule(d, { lender, knownRevenue, transfer, loanText: genericText(d, lenderMatch) });
  let debitCategory: CategoryResult;
  if (nsf || overdraft) debitCategory = { category: 'operating_expense', rule: 'bank fee' };
  else if (lender || genericLender) debitCategory = { category: 'debt_service', rule: 'lender or loan payment' };
  else if (transfer) debitCategory = { category: 'transfer', rule: 'transfer between accounts' };
  else if (returned) debitCategory = { category: 'other', rule: 'returned deposit' };
  else if (cashWithdrawal) debitCategory = { category: 'other', rule: 'cash withdrawal' };
  else if (gambling) debitCategory = { category: 'other', rule: 'gambling' };
  else debitCategory = { category: 'operating_expense', rule: 'other debit' };
  return Object.freeze({
    creditCategory: Object.freeze(creditCategory),
    debitCategory: Object.freeze(debitCategory),
    nsf,
    overdraft,
    returned,
    gambling,
    cashWithdrawal,
    knownRevenue,
    cashDeposit: CASH_DEPOSIT_RE.test(d),
    lender,
    lenderMatch,
    genericLender,
    opex: OPEX_RE.test(d),
    counterparty: lender ?? computeCounterparty(d),
  });
}

/** The rule of a deposit no rule names: it counts as revenue. */
export const UNIDENTIFIED_RULE = 'unidentified deposit (revenue: no rule excludes it)';

const credit = (revenue_class: RevenueClass, rule: string): CategoryResult => ({
  category: revenue_class === 'revenue' ? 'revenue' : revenue_class === 'transfer' ? 'transfer' : 'non_revenue',
  rule,
  revenue_class,
});

/**
 * A credit's revenue class by its wording, the first rule that matches (docs/revenue.md). A deposit
 * no rule names is revenue: only a rule excludes a deposit.
 */
/** `loanText`: the description with a name that is no funder (a bank, a store: "ADVANCE AUTO PARTS") taken out, for the generic loan words. */
function creditRule(d: string, f: { lender: string | null; knownRevenue: boolean; transfer: boolean; loanText: string }): CategoryResult {
  if (OWNER_INJECTION_RE.test(d)) return credit('owner_injection', 'owner injection (owner, shareholder or member contribution)');
  if (f.lender || LOAN_PROCEEDS_RE.test(d) || /\bloan\b|\badvance\b/i.test(f.loanText))
    return credit('loan_proceeds', 'loan or advance proceeds');
  if (REFUND_RE.test(d)) return credit('refund', 'refund, reversal or return');
  if (INTEREST_RE.test(d)) return credit('other_non_revenue', 'interest, dividend or insurance claim');
  if (f.knownRevenue) return credit('revenue', 'card processor or sales platform settlement');
  if (f.transfer) return credit('transfer', 'transfer between accounts');
  if (CASH_DEPOSIT_RE.test(d)) return credit('revenue', 'cash deposit (revenue, called out)');
  if (CUSTOMER_DEPOSIT_RE.test(d)) return credit('revenue', 'customer deposit');
  return credit('revenue', UNIDENTIFIED_RULE);
}

/**
 * Category of one transaction from its sign and description (first matching rule wins).
 *
 * Credits (see creditRule): owner injections, loan/advance proceeds, refunds/reversals/returns,
 * interest -> non_revenue; card processors -> revenue; transfers -> transfer; customer, cash and
 * unidentified deposits -> revenue.
 * Debits: NSF/overdraft fees -> operating_expense; lender or loan payments -> debt_service;
 * transfers -> transfer; returned deposits, cash withdrawals, gambling -> other; else operating_expense.
 */
export function categorizeTransaction(tx: Pick<StatementTransactionInput, 'description' | 'amount'>): CategoryResult {
  if (tx.amount === 0) return { category: 'other', rule: 'zero amount' };
  const f = descriptionFeatures(tx.description ?? '');
  return tx.amount > 0 ? f.creditCategory : f.debitCategory;
}

const STOPWORDS = new Set([
  'ach',
  'debit',
  'credit',
  'pmt',
  'pymt',
  'payment',
  'payments',
  'web',
  'ppd',
  'ccd',
  'tel',
  'corp',
  'co',
  'entry',
  'descr',
  'desc',
  'orig',
  'inc',
  'llc',
  'ltd',
  'pos',
  'purchase',
  'withdrawal',
  'recurring',
  'electronic',
  'online',
  'preauthorized',
  'preauth',
  'card',
  'id',
  'ref',
  'ind',
  'name',
  'trn',
  'the',
  'of',
  'xx',
  'xxxx',
  'dbt',
  'cr',
  'dr',
]);

/**
 * Normalised counterparty used to group recurring debits: a known lender's name when present,
 * otherwise the description lower-cased with digits, punctuation and ACH boiler-plate words removed.
 */
export function counterpartyKey(description: string): string {
  return descriptionFeatures(description).counterparty;
}

function computeCounterparty(description: string): string {
  const words = description
    .toLowerCase()
    .replace(/[^a-z& ]+/g, ' ')
    .split(/\s+/)
    .filter((w) => w.length > 1 && !STOPWORDS.has(w));
  return words.length ? words.slice(0, 4).join(' ') : 'unknown';
}
