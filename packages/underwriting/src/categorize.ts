import type { StatementTransactionInput, TransactionCategory } from './types';

/**
 * Keyword rules for categorisation and screening. All matching is case-insensitive on the
 * printed description. The README lists the rules in the same order.
 */

/** Known MCA funders and small-business lenders (matched as words in the description). */
export const KNOWN_LENDERS: readonly string[] = [
  'ondeck',
  'on deck capital',
  'kabbage',
  'bluevine',
  'fundbox',
  'credibly',
  'rapid finance',
  'rapid advance',
  'yellowstone capital',
  'pearl capital',
  'everest business funding',
  'fora financial',
  'libertas',
  'kalamata',
  'mulligan funding',
  'national funding',
  'cfg merchant',
  'forward financing',
  'itria',
  'velocity capital',
  'lendini',
  'clearco',
  'shopify capital',
  'paypal working capital',
  'square capital',
  'sq capital',
  'amazon lending',
  'reliant funding',
  'greenbox capital',
  '1st merchant funding',
  'byzfunder',
  'idea financial',
  'headway capital',
  'world business lenders',
  'vox funding',
  'fox business funding',
  'wynwood capital',
  'parkview advance',
  'can capital',
  'elevate funding',
  'biz2credit',
  'lendio',
  'expansion capital',
  'merchant cash advance',
  'mca',
];

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const LENDER_RE = new RegExp(`\\b(${KNOWN_LENDERS.map(escape).join('|')})\\b`, 'i');
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
const REFUND_RE =
  /refund|reversal|revers(ed|e)|\breturn\b|returned|chargeback|adjustment|\brebate\b|cash ?back|interest (paid|earned|payment)|\binterest\b|dividend|tax ref|irs treas|insurance claim/i;
const LOAN_PROCEEDS_RE =
  /loan (proceeds|disbursement|deposit)|proceeds|disbursement|\bsba\b|\bppp\b|\beidl\b|line of credit|\bloc (draw|advance)\b/i;
export const TRANSFER_RE =
  /\b(transfer|xfer|trnsfr|tfr)\b|\b(from|to) (checking|savings|chk|sav|acct|account)\b|book transfer|internal transfer|\bsweep\b/i;
const OWN_WIRE_RE = /\b(from|to) (checking|savings|chk|sav|acct|account)\b|internal|book transfer/i;
/** Operating expenses a recurrence alone must not turn into a lender position. */
export const OPEX_RE =
  /payroll|\badp\b|gusto|paychex|\brent\b|lease|utilit|electric|\bgas\b|water|insurance|\birs\b|tax|verizon|at&t|comcast|t-mobile|salary|wages/i;

export interface CategoryResult {
  category: TransactionCategory;
  /** short explanation of the rule that matched */
  rule: string;
}

/** Lender name in the description, or null. Returns the matched name in lower case. */
export function matchKnownLender(description: string): string | null {
  const m = LENDER_RE.exec(description);
  return m ? m[1].toLowerCase() : null;
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
  lender: string | null;
  genericLender: boolean;
  opex: boolean;
  counterparty: string;
}

const featureCache = new Map<string, DescriptionFeatures>();
const exactCache = new Map<string, DescriptionFeatures>();
function rememberExact(description: string, f: DescriptionFeatures) {
  if (exactCache.size > 100_000) exactCache.clear();
  exactCache.set(description, f);
}

/**
 * Keyword features of a description. Cached by the description with long digit runs (reference
 * numbers) masked, since no rule depends on them; the cache is bounded.
 */
export function descriptionFeatures(description: string): DescriptionFeatures {
  let f = exactCache.get(description);
  if (f) return f;
  const key = description.replace(/\d{4,}/g, '#');
  f = featureCache.get(key);
  if (f) {
    rememberExact(description, f);
    return f;
  }
  const d = key;
  const nsf = NSF_RE.test(d);
  const overdraft = !nsf && OVERDRAFT_RE.test(d);
  const lender = matchKnownLender(d);
  const genericLender = GENERIC_LENDER_RE.test(d);
  const knownRevenue = KNOWN_REVENUE_RE.test(d);
  const transfer = TRANSFER_RE.test(d) && !(/\bwire\b/i.test(d) && !OWN_WIRE_RE.test(d));
  const returned = RETURNED_RE.test(d);
  const cashWithdrawal = CASH_WITHDRAWAL_RE.test(d);
  const gambling = GAMBLING_RE.test(d);
  let creditCategory: CategoryResult;
  if (lender || LOAN_PROCEEDS_RE.test(d) || /\bloan\b|\badvance\b/i.test(d))
    creditCategory = { category: 'non_revenue', rule: 'loan or advance proceeds' };
  else if (REFUND_RE.test(d)) creditCategory = { category: 'non_revenue', rule: 'refund, reversal, return or interest' };
  else if (knownRevenue) creditCategory = { category: 'revenue', rule: 'card processor or sales platform settlement' };
  else if (transfer) creditCategory = { category: 'transfer', rule: 'transfer between accounts' };
  else if (CUSTOMER_DEPOSIT_RE.test(d)) creditCategory = { category: 'revenue', rule: 'customer deposit' };
  else creditCategory = { category: 'other', rule: 'unidentified credit' };
  let debitCategory: CategoryResult;
  if (nsf || overdraft) debitCategory = { category: 'operating_expense', rule: 'bank fee' };
  else if (lender || genericLender) debitCategory = { category: 'debt_service', rule: 'lender or loan payment' };
  else if (transfer) debitCategory = { category: 'transfer', rule: 'transfer between accounts' };
  else if (returned) debitCategory = { category: 'other', rule: 'returned deposit' };
  else if (cashWithdrawal) debitCategory = { category: 'other', rule: 'cash withdrawal' };
  else if (gambling) debitCategory = { category: 'other', rule: 'gambling' };
  else debitCategory = { category: 'operating_expense', rule: 'other debit' };
  f = {
    creditCategory: Object.freeze(creditCategory),
    debitCategory: Object.freeze(debitCategory),
    nsf,
    overdraft,
    returned,
    gambling,
    cashWithdrawal,
    knownRevenue,
    lender,
    genericLender,
    opex: OPEX_RE.test(d),
    counterparty: lender ?? computeCounterparty(d),
  };
  if (featureCache.size > 50_000) featureCache.clear();
  Object.freeze(f);
  featureCache.set(key, f);
  rememberExact(description, f);
  return f;
}

/**
 * Category of one transaction from its sign and description (first matching rule wins).
 *
 * Credits: loan/advance proceeds -> non_revenue; refunds, reversals, returns, interest -> non_revenue;
 * card processors -> revenue; own-account transfers -> transfer; customer deposits, wires, Zelle,
 * cash/check/mobile deposits -> revenue; anything else -> other.
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
  const lender = matchKnownLender(description);
  if (lender) return lender;
  const words = description
    .toLowerCase()
    .replace(/[^a-z& ]+/g, ' ')
    .split(/\s+/)
    .filter((w) => w.length > 1 && !STOPWORDS.has(w));
  return words.length ? words.slice(0, 4).join(' ') : 'unknown';
}
