/**
 * Public types of @ledgerlens/underwriting.
 *
 * Convention: INPUTS (statements, parameters) are camelCase TypeScript objects;
 * every RESULT object is snake_case so the API can return it unchanged.
 */

/** One transaction as printed on a statement (the statements parser produces this shape). */
export interface StatementTransactionInput {
  /** YYYY-MM-DD */
  date: string;
  description: string;
  /** signed: credits > 0, debits < 0 */
  amount: number;
  /** running balance where printed */
  balance: number | null;
  transactionType?: 'credit' | 'debit';
  /** a category a person set (a correction): kept over the rules */
  category?: TransactionCategory | null;
  /** a revenue class a person set on a deposit (an override): kept over the rules */
  revenueClass?: RevenueClass | null;
}

/** One parsed bank statement. */
export interface StatementInput {
  id?: string | number;
  bankName?: string | null;
  accountNumberLast4?: string | null;
  accountHolder?: string | null;
  periodStart: string | null;
  periodEnd: string | null;
  openingBalance: number | null;
  closingBalance: number | null;
  /** ISO 4217 code; null/absent = unknown, read as the deal's reporting currency */
  currency?: string | null;
  transactions: StatementTransactionInput[];
}

export const CATEGORIES = ['revenue', 'non_revenue', 'debt_service', 'operating_expense', 'transfer', 'other'] as const;
export type TransactionCategory = (typeof CATEGORIES)[number];

/**
 * What a deposit is, for true revenue (docs/revenue.md): `revenue` counts; every other class is
 * excluded from revenue. Cash deposits are revenue, flagged (is_cash_deposit) and totalled apart.
 */
export const REVENUE_CLASSES = ['revenue', 'transfer', 'loan_proceeds', 'refund', 'owner_injection', 'other_non_revenue'] as const;
export type RevenueClass = (typeof REVENUE_CLASSES)[number];
/** The classes excluded from revenue. */
export type NonRevenueClass = Exclude<RevenueClass, 'revenue'>;
export const NON_REVENUE_CLASSES = REVENUE_CLASSES.filter((c): c is NonRevenueClass => c !== 'revenue');

/** Screening buckets, in priority order: a transaction that matches several keeps the first. */
export const SCREENING_BUCKETS = [
  'nsf_fee',
  'overdraft_fee',
  'returned_item',
  'duplicate_transaction',
  'gambling',
  'mca_payment',
  'large_unusual_deposit',
  'round_number_deposit',
  'cash_withdrawal',
  'repeat_charge',
] as const;
export type ScreeningBucket = (typeof SCREENING_BUCKETS)[number];

/** Per-transaction result (snake_case, API-facing). */
export interface ScreenedTransaction {
  /** position in the input list given to screenTransactions */
  index: number;
  date: string;
  description: string;
  amount: number;
  balance: number | null;
  transaction_type: 'credit' | 'debit';
  category: TransactionCategory;
  /** normalised counterparty used for recurrence detection */
  counterparty: string;
  is_nsf_fee: boolean;
  is_overdraft_fee: boolean;
  is_large_deposit: boolean;
  is_large_strange: boolean;
  is_repeat_charge: boolean;
  is_suspicious: boolean;
  /** true when the debit belongs to a detected lender (MCA/loan) position */
  is_lender_payment: boolean;
  screening_bucket: ScreeningBucket | null;
  flag_reason: string | null;
}

/** Deal-level per-transaction result: screening plus where it came from. */
export interface DealTransaction extends ScreenedTransaction {
  statement_index: number;
  statement_id: string | number | null;
  /** index of the transaction inside its statement */
  statement_tx_index: number;
  /** false when the transaction is a copy of one in an earlier, overlapping statement of the same account */
  counted: boolean;
  /** a deposit's revenue class (null for a debit) */
  revenue_class: RevenueClass | null;
  /** the rule that decided the revenue class ("set by an underwriter" for an override); null for a debit */
  revenue_rule: string | null;
  /** a cash deposit (counted as revenue, totalled apart) */
  is_cash_deposit: boolean;
}

export type BucketCounts = Record<ScreeningBucket, number>;

/** Per-statement analysis (Form B analysis record, plus a few helpful extras). */
export interface StatementMetrics {
  statement_id: string | number | null;
  period_start: string | null;
  period_end: string | null;
  days_covered: number;
  months_covered: number;
  transaction_count: number;
  total_deposits: number;
  total_withdrawals: number;
  /** alias of total_deposits (Form A document analysis) */
  total_credits: number;
  /** alias of total_withdrawals (Form A document analysis) */
  total_debits: number;
  net_cash_flow: number;
  opening_balance: number | null;
  avg_daily_balance: number | null;
  min_daily_balance: number | null;
  max_daily_balance: number | null;
  ending_balance: number | null;
  negative_balance_days: number;
  deposit_count: number;
  withdrawal_count: number;
  deposit_days: number;
  deposit_frequency_per_month: number;
  avg_deposit_amount: number;
  largest_deposit: number;
  revenue_deposits: number;
  nsf_count: number;
  nsf_total_fees: number;
  overdraft_count: number;
  overdraft_total_fees: number;
  screening_flags: number;
  screening_buckets: BucketCounts;
  /** opening + sum(amounts) - closing, null when either balance is missing */
  reconciliation_difference: number | null;
  /** end-of-day balance for every day of the period (carried over days without transactions) */
  daily_balances: { date: string; balance: number }[];
}
