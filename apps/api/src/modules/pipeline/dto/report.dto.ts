import { ApiProperty } from '@nestjs/swagger';
import {
  type Affordability,
  type DealAccount,
  type OwnTransfer,
  type StaleStatement,
  type StalenessSummary,
  type TransferSide,
  type TransferSummary,
  HEALTH_FACTORS,
  RISK_LEVELS,
  SCREENING_BUCKETS,
  type Authenticity,
  type BucketCounts,
  type CrossDocFinding,
  type CrossDocFindingType,
  type CrossDocResult,
  type CurrencySummary,
  type DealAnalysis,
  type DocumentAuthenticity,
  type DocumentReview,
  type FeeEvent,
  LENDER_KINDS,
  type LenderKind,
  type LenderPosition,
  type LenderPositionSummary,
  type PositionEvidence,
  type PositionEvidenceRole,
  type PositionStart,
  type MonthSummary,
  type RelatedDealFinding,
  type ReportRecommendation,
  type RevenueSource,
  type RevenueExclusions,
  type RevenueMonth,
  type RevenueTable,
  type ReviewSection,
  type StatementRow,
} from '@ledgerlens/underwriting';

/**
 * The typed deal report: one class per object, each implementing the type of
 * @ledgerlens/underwriting it mirrors, so the compiler keeps the contract and the math in step
 * (`report-drift.spec.ts` checks both directions, and the documented properties against a real
 * report). Document ids are documented as integers (the server's ids); their TypeScript type is the
 * underwriting one, which accepts any id, so a report is served without a cast.
 */

/** A document id as the underwriting types carry it: the server's integer ids. */
type DocumentId = DocumentAuthenticity['document_id'];

type Coverage = DealAnalysis['coverage'];
type Financials = DealAnalysis['financials'];
type NsfOverdraft = DealAnalysis['nsf_overdraft'];
type Screening = DealAnalysis['screening'];
type Health = DealAnalysis['health'];

const INT = { type: 'integer' } as const;
const NULLABLE_NUMBER = { type: Number, nullable: true } as const;
const NULLABLE_STRING = { type: String, nullable: true } as const;
const NULLABLE_DATE = { type: String, format: 'date', nullable: true } as const;
const DATE = { type: String, format: 'date' } as const;
const DEAL_RISK_LEVELS = [...RISK_LEVELS, 'unknown'] as const;
const GRADES = ['A', 'B', 'C', 'D', 'F'] as const;
const FINDING_TYPES: CrossDocFindingType[] = [
  'overlap',
  'gap',
  'balance_mismatch',
  'reconciliation_mismatch',
  'duplicate_transactions',
  'own_account_transfers',
  'coverage_gap',
  'currency_mismatch',
  'currency_unstated',
];

export class ScreeningBucketsDto implements BucketCounts {
  @ApiProperty(INT) nsf_fee: number;
  @ApiProperty(INT) overdraft_fee: number;
  @ApiProperty(INT) returned_item: number;
  @ApiProperty(INT) duplicate_transaction: number;
  @ApiProperty(INT) gambling: number;
  @ApiProperty(INT) mca_payment: number;
  @ApiProperty(INT) large_unusual_deposit: number;
  @ApiProperty(INT) round_number_deposit: number;
  @ApiProperty(INT) cash_withdrawal: number;
  @ApiProperty(INT) repeat_charge: number;
}
// A new bucket in the package must get a property above; this fails the build otherwise.
const _bucketsCovered: Record<(typeof SCREENING_BUCKETS)[number], true> = {
  nsf_fee: true,
  overdraft_fee: true,
  returned_item: true,
  duplicate_transaction: true,
  gambling: true,
  mca_payment: true,
  large_unusual_deposit: true,
  round_number_deposit: true,
  cash_withdrawal: true,
  repeat_charge: true,
};
void _bucketsCovered;

export class CoverageDto implements Coverage {
  @ApiProperty(INT) months_covered: number;
  @ApiProperty(INT) days_covered: number;
  @ApiProperty(INT) statement_count: number;
  @ApiProperty({ ...NULLABLE_DATE, description: 'First covered day' }) period_start: string | null;
  @ApiProperty({ ...NULLABLE_DATE }) period_end: string | null;
}

export class FinancialsDto implements Financials {
  @ApiProperty() avg_monthly_deposits: number;
  @ApiProperty() avg_monthly_revenue: number;
  @ApiProperty() avg_daily_balance: number;
  @ApiProperty() min_daily_balance: number;
  @ApiProperty() max_daily_balance: number;
  @ApiProperty() ending_balance: number;
  @ApiProperty() total_deposits: number;
  @ApiProperty() total_withdrawals: number;
  @ApiProperty() total_revenue: number;
  @ApiProperty() net_cash_flow: number;
  @ApiProperty(INT) deposit_count: number;
  @ApiProperty(INT) withdrawal_count: number;
  @ApiProperty() deposit_frequency_per_month: number;
  @ApiProperty() avg_deposit_amount: number;
  @ApiProperty() largest_deposit: number;
  @ApiProperty(INT) deposit_days: number;
  @ApiProperty(INT) revenue_deposit_days: number;
  @ApiProperty(INT) negative_balance_days: number;
  @ApiProperty(INT) low_balance_days: number;
  @ApiProperty({ description: 'The low-balance threshold used' }) low_balance_threshold: number;
  @ApiProperty() total_operating_expenses: number;
  @ApiProperty() total_debt_service: number;
}

export class NsfOverdraftDto implements NsfOverdraft {
  @ApiProperty({ ...INT, description: 'Number of NSF fee transactions' }) total_nsf_fees: number;
  @ApiProperty({ ...INT, description: 'Number of overdraft fee transactions' }) total_overdraft_fees: number;
  @ApiProperty(INT) nsf_months: number;
  @ApiProperty(INT) overdraft_months: number;
  @ApiProperty() nsf_fee_amount: number;
  @ApiProperty() overdraft_fee_amount: number;
}

export class ScreeningDto implements Screening {
  @ApiProperty({ ...INT, description: "Equals the number of the deal's transactions served by `transactions?flagged=true`" })
  total_flags: number;
  @ApiProperty({ type: ScreeningBucketsDto }) buckets: ScreeningBucketsDto;
  @ApiProperty(INT) transaction_count: number;
  @ApiProperty() flagged_ratio: number;
}

export class HealthFactorsDto implements Record<(typeof HEALTH_FACTORS)[number], number> {
  @ApiProperty() revenue: number;
  @ApiProperty() balance_health: number;
  @ApiProperty() nsf_overdraft: number;
  @ApiProperty() deposit_frequency: number;
  @ApiProperty() revenue_trend: number;
  @ApiProperty() debt_service: number;
}

export class HealthDto implements Health {
  @ApiProperty() score: number;
  @ApiProperty({ enum: GRADES }) grade: (typeof GRADES)[number];
  @ApiProperty({ type: HealthFactorsDto }) factors: HealthFactorsDto;
}

/** The report's `recommendation` section: the stored default recommendation. */
export class ReportRecommendationDto implements ReportRecommendation {
  @ApiProperty({ enum: ['approve', 'review', 'decline'] }) decision: ReportRecommendation['decision'];
  @ApiProperty() total_score: number;
  @ApiProperty(NULLABLE_NUMBER) max_advance: number | null;
  @ApiProperty() cfcr: number;
  @ApiProperty() ruleset_name: string;
  @ApiProperty(INT) ruleset_id: number;
  @ApiProperty({ enum: GRADES }) grade: ReportRecommendation['grade'];
  @ApiProperty({ type: [String], description: 'Decision sentence first; a high-risk document is always named' }) reasons: string[];
}

export class DocumentAuthenticityDto implements DocumentAuthenticity {
  @ApiProperty(INT) document_id: DocumentId;
  @ApiProperty() filename: string;
  @ApiProperty({ enum: DEAL_RISK_LEVELS, description: 'pdf_risk_level of the document' }) risk_level: (typeof DEAL_RISK_LEVELS)[number];
  @ApiProperty({ type: [String] }) reasons: string[];
}

export class AuthenticityDto implements Authenticity {
  @ApiProperty({ enum: DEAL_RISK_LEVELS, description: 'The highest risk of any processed document; `high` makes every approve a review' })
  risk_level: (typeof DEAL_RISK_LEVELS)[number];
  @ApiProperty({ type: [String] }) reasons: string[];
  @ApiProperty({ type: [Number] }) high_risk_document_ids: DocumentId[];
  @ApiProperty({ type: [DocumentAuthenticityDto] }) documents: DocumentAuthenticityDto[];
}

export class DocumentReviewDto implements DocumentReview {
  @ApiProperty(INT) document_id: DocumentId;
  @ApiProperty() filename: string;
  @ApiProperty() status: string;
  @ApiProperty({ type: [String] }) reasons: string[];
  @ApiProperty({ type: [String], description: 'Parse warnings (year assumed, balances not reconciled, ...)' }) warnings: string[];
}

export class ReviewDto implements ReviewSection {
  @ApiProperty(INT) needs_review_count: number;
  @ApiProperty({ type: [DocumentReviewDto], description: 'Documents that need a human look, with why' }) documents: DocumentReviewDto[];
}

export class CurrencySummaryDto implements CurrencySummary {
  @ApiProperty({ example: 'USD' }) reporting_currency: string;
  @ApiProperty({ type: [String] }) currencies: string[];
  @ApiProperty({ type: [Number], description: 'Statements in another currency: left out of every figure' })
  excluded_statement_ids: CurrencySummary['excluded_statement_ids'];
  @ApiProperty({
    type: [Number],
    description:
      'Statements naming no currency (none printed, none declared at upload): counted in the reporting currency; beside statements that name one, a `currency_unstated` cross_doc finding names each',
  })
  unstated_statement_ids: CurrencySummary['unstated_statement_ids'];
}

export class StatementRowDto implements StatementRow {
  @ApiProperty(INT) document_id: DocumentId;
  @ApiProperty() filename: string;
  @ApiProperty(NULLABLE_STRING) bank_name: string | null;
  @ApiProperty(NULLABLE_STRING) account_number_last4: string | null;
  @ApiProperty(NULLABLE_STRING) account_holder: string | null;
  @ApiProperty(NULLABLE_DATE) period_start: string | null;
  @ApiProperty(NULLABLE_DATE) period_end: string | null;
  @ApiProperty(NULLABLE_NUMBER) opening_balance: number | null;
  @ApiProperty(NULLABLE_NUMBER) closing_balance: number | null;
  @ApiProperty(NULLABLE_STRING) currency: string | null;
  @ApiProperty({ type: Boolean, nullable: true }) reconciled: boolean | null;
  @ApiProperty({ enum: DEAL_RISK_LEVELS }) risk_level: (typeof DEAL_RISK_LEVELS)[number];
  @ApiProperty(INT) transaction_count: number;
  @ApiProperty(NULLABLE_NUMBER) total_deposits: number | null;
  @ApiProperty(NULLABLE_NUMBER) total_withdrawals: number | null;
  @ApiProperty({ description: 'false when the statement is left out of every figure: in another currency than the deal, or stale' })
  included: boolean;
  @ApiProperty({ description: 'true when the statement lies outside the look-back window (see `staleness`)' }) stale: boolean;
}

export class MonthSummaryDto implements MonthSummary {
  @ApiProperty({ example: '2025-01' }) month: string;
  @ApiProperty(INT) days_covered: number;
  @ApiProperty() deposits: number;
  @ApiProperty() revenue: number;
  @ApiProperty({ description: 'revenue / days_covered x 30.4375' }) revenue_rate: number;
  @ApiProperty() withdrawals: number;
  @ApiProperty(INT) deposit_count: number;
  @ApiProperty(INT) revenue_deposit_days: number;
  @ApiProperty(INT) nsf_count: number;
  @ApiProperty(INT) overdraft_count: number;
  @ApiProperty(NULLABLE_NUMBER) ending_balance: number | null;
  @ApiProperty(NULLABLE_NUMBER) avg_daily_balance: number | null;
}

export class DailyBalanceDto {
  @ApiProperty(DATE) date: string;
  @ApiProperty() balance: number;
}

export class PositionEvidenceDto implements PositionEvidence {
  @ApiProperty({ ...INT, description: "The transaction's index in the deal analysis" }) index: number;
  @ApiProperty({
    enum: ['funding', 'payment', 'returned_payment', 'return'],
    description: 'funding deposit, payment, a payment that was returned (bounced), or the return itself',
  })
  role: PositionEvidenceRole;
  @ApiProperty(DATE) date: string;
  @ApiProperty({ description: 'Signed amount (credits positive)' }) amount: number;
  @ApiProperty({ type: 'integer', nullable: true, description: 'Document id of the statement' })
  statement_id: PositionEvidence['statement_id'];
  @ApiProperty({ type: 'integer', nullable: true, description: "The row's index in its statement (the transaction list's order)" })
  statement_tx_index: number | null;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'The transaction (GET /v1/deals/{deal_id}/transactions, PATCH /v1/documents/{document_id}/transactions/{transaction_id})',
  })
  transaction_id: PositionEvidence['transaction_id'];
}

export class LenderPositionDto implements LenderPosition {
  @ApiProperty() counterparty: string;
  @ApiProperty() known_lender: boolean;
  @ApiProperty({
    ...NULLABLE_STRING,
    description: 'Lender directory id, or "org:<id>" for one of the organization\'s lenders; null when found by recurrence',
  })
  lender_id: string | null;
  @ApiProperty(NULLABLE_STRING) lender_name: string | null;
  @ApiProperty({
    type: String,
    enum: [...LENDER_KINDS, null],
    nullable: true,
    description: 'mca or lender (the funder kinds); null when no funder is named',
  })
  lender_kind: LenderKind | null;
  @ApiProperty({ ...INT, description: '1, 2, ... per counterparty in time order' }) sequence: number;
  @ApiProperty({
    enum: ['new', 'renewal', 'modification'],
    description: 'renewal: a new funding deposit of the same lender; modification: a lasting change of the payment amount',
  })
  start_reason: PositionStart;
  @ApiProperty({ enum: ['daily', 'weekly', 'biweekly', 'monthly', 'irregular'], description: 'Payment cadence' })
  frequency: LenderPosition['frequency'];
  @ApiProperty() payment_amount: number;
  @ApiProperty(INT) payment_count: number;
  @ApiProperty({ description: 'Sum of the payments, returned ones left out' }) total_paid: number;
  @ApiProperty(DATE) first_seen: string;
  @ApiProperty(DATE) last_seen: string;
  @ApiProperty() estimated_monthly_total: number;
  @ApiProperty({ description: 'estimated_monthly_total / 21.75 business days' }) estimated_daily_debit: number;
  @ApiProperty({ description: 'estimated_monthly_total / (52/12) weeks' }) estimated_weekly_debit: number;
  @ApiProperty(NULLABLE_NUMBER) share_of_deposits: number | null;
  @ApiProperty() is_active: boolean;
  @ApiProperty({ ...NULLABLE_NUMBER, description: 'The deposit from the lender that started the position' }) funding_amount: number | null;
  @ApiProperty(NULLABLE_DATE) funding_date: string | null;
  @ApiProperty({ ...NULLABLE_NUMBER, description: 'funding_amount x factor_rate' }) estimated_payback: number | null;
  @ApiProperty({ ...NULLABLE_NUMBER, description: 'estimated_payback - total_paid, not below 0' }) estimated_remaining_balance:
    number | null;
  @ApiProperty({ type: 'integer', nullable: true, description: 'Expected payment days with no payment; null in reports stored before' })
  missed_payments: number | null;
  @ApiProperty({ type: 'integer', nullable: true, description: 'Payments returned within 10 days; null in reports stored before' })
  bounced_payments: number | null;
  @ApiProperty({ type: Boolean, nullable: true, description: 'Overlaps another position in time' }) stacked: boolean | null;
  @ApiProperty({ type: [PositionEvidenceDto], description: 'The transactions the position stands on' }) transactions: PositionEvidenceDto[];
}

export class LenderPositionsDto implements LenderPositionSummary {
  @ApiProperty({ type: [LenderPositionDto] }) positions: LenderPositionDto[];
  @ApiProperty(INT) position_count: number;
  @ApiProperty(INT) active_count: number;
  @ApiProperty(INT) stacking_count: number;
  @ApiProperty() estimated_monthly_total: number;
  @ApiProperty({ ...NULLABLE_STRING, description: 'Version of the lender directory the names were matched with' })
  directory_version: string | null;
  @ApiProperty({ ...NULLABLE_NUMBER, description: 'Factor rate of the payback estimates' }) factor_rate: number | null;
  @ApiProperty({ type: String, enum: ['params', 'default', null], nullable: true, description: "params: the ruleset's; default: 1.35" })
  factor_rate_source: 'params' | 'default' | null;
}

export class FeeEventDto implements FeeEvent {
  @ApiProperty(DATE) date: string;
  @ApiProperty() description: string;
  @ApiProperty() amount: number;
  @ApiProperty({ enum: ['nsf', 'overdraft'] }) type: 'nsf' | 'overdraft';
  @ApiProperty({ type: 'integer', nullable: true, description: 'Document id' }) statement_id: FeeEvent['statement_id'];
}

export class RevenueSourceDto implements RevenueSource {
  @ApiProperty() counterparty: string;
  @ApiProperty() total: number;
  @ApiProperty(INT) deposit_count: number;
  @ApiProperty() share_of_revenue: number;
  @ApiProperty(DATE) first_seen: string;
  @ApiProperty(DATE) last_seen: string;
}

export class CrossDocFindingDto implements CrossDocFinding {
  @ApiProperty({ enum: FINDING_TYPES }) type: CrossDocFindingType;
  @ApiProperty({ enum: ['info', 'warning', 'error'] }) severity: 'info' | 'warning' | 'error';
  @ApiProperty() message: string;
  @ApiProperty({ type: [Number], description: "Positions in the deal's statement list" }) statements: number[];
  @ApiProperty({ type: [Number], description: 'Document ids' }) statement_ids: CrossDocFinding['statement_ids'];
  @ApiProperty({ description: 'Points taken off the cross_doc score' }) deduction: number;
}

export class CrossDocDto implements CrossDocResult {
  @ApiProperty() score: number;
  @ApiProperty({ type: [CrossDocFindingDto] }) findings: CrossDocFindingDto[];
}

export class RelatedDealFindingDto implements RelatedDealFinding {
  @ApiProperty({ enum: ['same_account', 'same_file'] }) type: 'same_account' | 'same_file';
  @ApiProperty({ enum: ['warning', 'error'] }) severity: 'warning' | 'error';
  @ApiProperty() message: string;
  @ApiProperty(INT) document_id: DocumentId;
  @ApiProperty(INT) other_deal_id: number;
  @ApiProperty() other_business_name: string;
  @ApiProperty(INT) other_document_id: DocumentId;
}

export class DealAccountDto implements DealAccount {
  @ApiProperty({ description: 'A1, A2, ... in order of the first period start' }) account: string;
  @ApiProperty(NULLABLE_STRING) bank_name: string | null;
  @ApiProperty(NULLABLE_STRING) account_number_last4: string | null;
  @ApiProperty({
    enum: ['account_number', 'balance_continuity', 'single_statement'],
    description:
      'account_number: the same last 4 digits; balance_continuity: a statement opens at the balance another closed at, on the next day (a statement without an account number joins an account this way); single_statement: nothing ties it to another statement',
  })
  grouped_by: DealAccount['grouped_by'];
  @ApiProperty(INT) statement_count: number;
  @ApiProperty({ type: [Number], description: 'Document ids, by period start' }) statement_ids: DealAccount['statement_ids'];
  @ApiProperty(NULLABLE_DATE) period_start: string | null;
  @ApiProperty(NULLABLE_DATE) period_end: string | null;
}

export class StaleStatementDto implements StaleStatement {
  @ApiProperty({ type: 'integer', nullable: true, description: 'Document id' }) statement_id: StaleStatement['statement_id'];
  @ApiProperty(NULLABLE_DATE) period_start: string | null;
  @ApiProperty(NULLABLE_DATE) period_end: string | null;
  @ApiProperty({ ...INT, description: "Calendar months between its last month and the newest statement's last month" })
  months_before_newest: number;
}

export class StalenessDto implements StalenessSummary {
  @ApiProperty({ ...INT, description: 'The look-back window in calendar months' }) lookback_months: number;
  @ApiProperty(NULLABLE_DATE) newest_period_end: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'YYYY-MM: the oldest month a statement must reach into to count' })
  window_start_month: string | null;
  @ApiProperty({ type: [StaleStatementDto], description: 'Statements left out of every figure' }) stale_statements: StaleStatementDto[];
}

export class TransferSideDto implements TransferSide {
  @ApiProperty({ description: 'The account (accounts[].account)' }) account: string;
  @ApiProperty({ type: 'integer', nullable: true, description: 'Document id' }) statement_id: TransferSide['statement_id'];
  @ApiProperty({ ...INT, description: "The row's position in its statement" }) statement_tx_index: number;
  @ApiProperty(DATE) date: string;
  @ApiProperty() description: string;
}

export class OwnTransferDto implements OwnTransfer {
  @ApiProperty() amount: number;
  @ApiProperty(INT) days_apart: number;
  @ApiProperty({ type: TransferSideDto }) debit: TransferSideDto;
  @ApiProperty({ type: TransferSideDto }) credit: TransferSideDto;
}

export class OwnTransfersDto implements TransferSummary {
  @ApiProperty(INT) count: number;
  @ApiProperty({ description: 'Sum of the transferred amounts' }) total: number;
  @ApiProperty({ ...INT, description: 'Days a debit and its credit may lie apart' }) window_days: number;
  @ApiProperty({ type: [OwnTransferDto] }) transfers: OwnTransferDto[];
}

export class AffordabilityDto implements Affordability {
  @ApiProperty({ description: 'Average monthly revenue' }) monthly_revenue: number;
  @ApiProperty({ description: 'Estimated monthly debits of the active lender positions' }) existing_monthly_debits: number;
  @ApiProperty(INT) active_position_count: number;
  @ApiProperty({ ...NULLABLE_NUMBER, description: 'existing_monthly_debits / monthly_revenue; null without revenue' })
  existing_holdback: number | null;
  @ApiProperty({ description: 'The largest share of revenue all positions together may take' }) max_total_holdback: number;
  @ApiProperty() factor_rate: number;
  @ApiProperty() term_months: number;
  @ApiProperty({ description: 'max_total_holdback x monthly_revenue - existing_monthly_debits' }) monthly_headroom: number;
  @ApiProperty({ description: 'max(0, monthly_headroom) x term_months' }) max_payback: number;
  @ApiProperty({ description: 'max_payback / factor_rate' }) max_advance: number;
  @ApiProperty({ type: [String], description: 'The arithmetic, one line per step' }) steps: string[];
}

export class RevenueExclusionsDto implements RevenueExclusions {
  @ApiProperty({ description: 'Transfers between accounts (by wording, or matched to a debit in another account of the deal)' })
  transfer: number;
  @ApiProperty({ description: 'Loan and MCA proceeds' }) loan_proceeds: number;
  @ApiProperty({ description: 'Refunds, reversals and returns' }) refund: number;
  @ApiProperty({ description: 'Owner, shareholder or member contributions, and transfers from the account holder (a person)' })
  owner_injection: number;
  @ApiProperty({ description: 'Interest, dividends, insurance claims, and deposits a person put in another category' })
  other_non_revenue: number;
}

export class RevenueTotalsDto implements Omit<RevenueMonth, 'month'> {
  @ApiProperty({ description: 'Every deposit' }) gross_deposits: number;
  @ApiProperty({ type: RevenueExclusionsDto, description: 'Deposits left out of revenue, by class' }) excluded: RevenueExclusionsDto;
  @ApiProperty() excluded_total: number;
  @ApiProperty({ description: 'gross_deposits - excluded_total' }) true_revenue: number;
  @ApiProperty({ description: 'Cash deposits: part of true_revenue, totalled apart' }) cash_deposits: number;
}

export class RevenueMonthDto extends RevenueTotalsDto implements RevenueMonth {
  @ApiProperty({ example: '2024-06', description: 'YYYY-MM' }) month: string;
}

export class RevenueTableDto implements RevenueTable {
  @ApiProperty({ type: [RevenueMonthDto], description: 'One row per month of `monthly`, oldest first' }) months: RevenueMonthDto[];
  @ApiProperty({ type: RevenueTotalsDto }) totals: RevenueTotalsDto;
  @ApiProperty(INT) deposit_count: number;
  @ApiProperty(INT) cash_deposit_count: number;
  @ApiProperty({ ...INT, description: 'Deposits whose revenue class an underwriter set' }) overridden_count: number;
  @ApiProperty({ ...INT, description: 'Deposits no rule named, counted as revenue: the ones an underwriter checks first' })
  unidentified_count: number;
  @ApiProperty({ description: 'Their total (part of true revenue)' }) unidentified_total: number;
}
