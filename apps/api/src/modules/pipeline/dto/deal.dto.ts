import { ApiProperty, ApiPropertyOptional, type ApiPropertyOptions } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { Allow, IsObject, IsOptional, ValidateNested } from 'class-validator';
import { PageMetaDto, PageQueryDto } from '../../../platform/pagination/pagination';
import { ValidateEnum, ValidateNumber, ValidateString } from '../../../platform/validation/decorators';
import { DEAL_STATUSES, DECISIONS, ENTITY_TYPES, SOURCE_TYPES } from '../entities/deal.entities';
import {
  AuthenticityDto,
  CoverageDto,
  CrossDocDto,
  CurrencySummaryDto,
  DailyBalanceDto,
  FeeEventDto,
  FinancialsDto,
  HealthDto,
  LenderPositionsDto,
  MonthSummaryDto,
  NsfOverdraftDto,
  RelatedDealFindingDto,
  ReportRecommendationDto,
  DealAccountDto,
  StalenessDto,
  OwnTransfersDto,
  AffordabilityDto,
  RevenueSourceDto,
  RevenueTableDto,
  ReviewDto,
  ScreeningDto,
  StatementRowDto,
} from './report.dto';

const EIN = /^\d{9}$/;
const EIN_MESSAGE = 'ein must be exactly 9 digits, no dashes';

export class CreateDealDto {
  @ValidateString({ minLength: 1, maxLength: 500, example: 'Acme Bakery LLC' }) business_name: string;
  @ValidateNumber({ positive: true, max: 1e12, example: 75000, description: 'USD, greater than 0' }) funding_amount_requested: number;
  @ValidateString({ optional: true, nullable: true, maxLength: 500 }) dba_name?: string | null;
  @ValidateString({ optional: true, nullable: true, maxLength: 500 }) owner_name?: string | null;
  @ValidateString({ optional: true, nullable: true, pattern: EIN, patternMessage: EIN_MESSAGE, example: '123456789' }) ein?: string | null;
  @ValidateEnum(ENTITY_TYPES, { optional: true, nullable: true }) entity_type?: string | null;
  @ValidateString({ optional: true, nullable: true, maxLength: 255 }) industry?: string | null;
  @ValidateEnum(SOURCE_TYPES, { optional: true, nullable: true }) source_type?: string | null;
  @ValidateString({
    optional: true,
    nullable: true,
    minLength: 1,
    maxLength: 255,
    example: 'CRM-10442',
    description:
      'Your own reference for the deal (e.g. its CRM record id), unique per organization and mode (409 DUPLICATE_RESOURCE otherwise); bulk ingest attaches statements to the deal holding it',
  })
  external_reference?: string | null;
}

export class UpdateDealDto {
  @ValidateString({ optional: true, minLength: 1, maxLength: 500 }) business_name?: string;
  @ValidateNumber({ optional: true, positive: true, max: 1e12 }) funding_amount_requested?: number;
  @ValidateString({ optional: true, nullable: true, maxLength: 500 }) dba_name?: string | null;
  @ValidateString({ optional: true, nullable: true, maxLength: 500 }) owner_name?: string | null;
  @ValidateString({ optional: true, nullable: true, pattern: EIN, patternMessage: EIN_MESSAGE }) ein?: string | null;
  @ValidateEnum(ENTITY_TYPES, { optional: true, nullable: true }) entity_type?: string | null;
  @ValidateString({ optional: true, nullable: true, maxLength: 255 }) industry?: string | null;
  @ValidateEnum(SOURCE_TYPES, { optional: true, nullable: true }) source_type?: string | null;
}

export const DEAL_SORTS = ['created_at', 'updated_at', 'business_name', 'status', 'health_score'] as const;

export class ListDealsQueryDto extends PageQueryDto {
  @ValidateString({ optional: true, maxLength: 500, description: 'Free-text search over business name, DBA name and owner name' })
  q?: string;
  @ValidateEnum(DEAL_STATUSES, { optional: true }) status?: string;
  @ValidateEnum(DEAL_SORTS, { optional: true, description: 'Default updated_at' }) sort?: (typeof DEAL_SORTS)[number];
  @ValidateEnum(['asc', 'desc'] as const, { optional: true, description: 'Default desc' }) order?: 'asc' | 'desc';
}

/** The terms an approval offers. */
export class DecisionOfferDto {
  @ValidateNumber({ positive: true, max: 1e9, description: 'The advance, in the deal currency' }) amount: number;
  @ValidateNumber({ min: 1, max: 3, description: 'Payback = amount x factor rate (e.g. 1.35)' }) factor_rate: number;
  @ValidateNumber({ positive: true, max: 60, description: 'Expected term in months' }) term_months: number;
  @ValidateNumber({ positive: true, max: 100, description: 'Share of daily receipts withheld, in percent' }) holdback_percent: number;
}

export class DecisionDto {
  @ApiProperty({ enum: DECISIONS, description: 'Other values are rejected with 422 INVALID_DECISION' })
  @Allow()
  decision: string;
  @ValidateString({
    optional: true,
    minLength: 1,
    maxLength: 2000,
    description: 'Why: kept with the decision, on the timeline and in the exports (the web app asks it for a decline)',
  })
  reason?: string;
  @ApiPropertyOptional({ type: DecisionOfferDto, description: 'The offer of an approval (approve or funded only)' })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => DecisionOfferDto)
  offer?: DecisionOfferDto;
}

/** The offer as the deal shows it: the terms with their payback. */
export class DecisionOfferDetailDto extends DecisionOfferDto {
  @ApiProperty({ description: 'amount x factor_rate, to the cent' }) payback_amount: number;
}

export class DealSummaryDto {
  @ApiProperty({ type: 'integer' }) id: number;
  @ApiProperty() business_name: string;
  @ApiProperty({ type: String, nullable: true }) dba_name: string | null;
  @ApiProperty({ type: String, nullable: true }) owner_name: string | null;
  @ApiProperty({ type: String, nullable: true }) industry: string | null;
  @ApiProperty({ type: String, nullable: true, enum: [...ENTITY_TYPES, null] }) entity_type: string | null;
  @ApiProperty({ type: String, nullable: true, enum: [...SOURCE_TYPES, null] }) source_type: string | null;
  @ApiProperty({ type: String, nullable: true }) ein: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Your reference for the deal, as sent on creation or by ingest' })
  external_reference: string | null;
  @ApiProperty({ enum: DEAL_STATUSES }) status: string;
  @ApiProperty({ type: 'integer' }) document_count: number;
  @ApiProperty({ type: Number, nullable: true }) health_score: number | null;
  @ApiProperty({ type: String, nullable: true }) health_grade: string | null;
  @ApiProperty({ type: Number, nullable: true }) avg_monthly_deposits: number | null;
  @ApiProperty({ type: Number, nullable: true }) avg_daily_balance: number | null;
  @ApiProperty() funding_amount_requested: number;
  @ApiProperty({ type: 'integer' }) screening_flags: number;
  @ApiProperty({
    type: String,
    nullable: true,
    enum: ['approve', 'decline', 'review', null],
    description:
      "The current recommendation's decision with the default ruleset (the detail's `recommendation` and GET /v1/deals/{id}/recommendation have its reasons); null until the deal is ready",
  })
  recommendation_decision: 'approve' | 'decline' | 'review' | null;
  @ApiProperty({ type: String, nullable: true, enum: [...DECISIONS, null] }) decision: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) decided_at: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'The reason given with the current decision' }) decision_reason: string | null;
  @ApiProperty({ type: DecisionOfferDetailDto, nullable: true, description: "The current approval's offer" })
  decision_offer: DecisionOfferDetailDto | null;
  @ApiProperty({ type: String, nullable: true, description: 'Who made the current decision (user:<id> or key:<id>)' })
  decided_by: string | null;
  @ApiProperty({ enum: ['live', 'test'] }) mode: 'live' | 'test';
  @ApiProperty({ type: String, format: 'date-time' }) created_at: string;
  @ApiProperty({ type: String, format: 'date-time' }) updated_at: string;
}

export class DealBusinessDto {
  @ApiProperty({ type: 'integer' }) id: number;
  @ApiProperty() business_name: string;
  @ApiProperty({ type: String, nullable: true }) dba_name: string | null;
  @ApiProperty({ type: String, nullable: true }) owner_name: string | null;
  @ApiProperty() status: string;
  @ApiProperty({ type: String, nullable: true }) entity_type: string | null;
  @ApiProperty({ type: String, nullable: true }) ein: string | null;
  @ApiProperty({ type: String, nullable: true }) industry: string | null;
  @ApiProperty({ type: String, nullable: true }) source_type: string | null;
}

const SECTION = (type: new () => object, description?: string): ApiPropertyOptions => ({
  type,
  nullable: true,
  ...(description ? { description } : {}),
});

/**
 * GET /deals/{id}: the deal with its report (spec "Deal report" plus authenticity, review,
 * currency, per-statement, monthly, daily, lender, fee, revenue-source, cross-document and
 * related-deal sections). Object sections are null and lists empty until the deal is `ready`.
 */
export class DealDetailDto extends DealSummaryDto {
  @ApiProperty({ type: String, format: 'date', nullable: true }) report_date: string | null;
  @ApiProperty({ type: DealBusinessDto }) business: DealBusinessDto;
  @ApiProperty({ type: String, nullable: true }) ai_summary: string | null;
  @ApiProperty(SECTION(CoverageDto)) coverage: CoverageDto | null;
  @ApiProperty(SECTION(FinancialsDto)) financials: FinancialsDto | null;
  @ApiProperty(SECTION(NsfOverdraftDto)) nsf_overdraft: NsfOverdraftDto | null;
  @ApiProperty(SECTION(ScreeningDto)) screening: ScreeningDto | null;
  @ApiProperty(SECTION(HealthDto)) health: HealthDto | null;
  @ApiProperty(SECTION(ReportRecommendationDto)) recommendation: ReportRecommendationDto | null;
  @ApiProperty(SECTION(AuthenticityDto, 'Tamper risk per document and for the deal')) authenticity: AuthenticityDto | null;
  @ApiProperty(SECTION(ReviewDto, 'Documents that need review (failed, risky, not reconciled, low confidence, parse warnings)'))
  review: ReviewDto | null;
  @ApiProperty(SECTION(CurrencySummaryDto)) currency: CurrencySummaryDto | null;
  @ApiProperty(SECTION(CrossDocDto, 'Consistency between statements: gaps, overlaps, mismatches, currencies'))
  cross_doc: CrossDocDto | null;
  @ApiProperty(SECTION(LenderPositionsDto)) lender_positions: LenderPositionsDto | null;
  @ApiProperty({ type: [DealAccountDto], description: 'The bank accounts of the analysed statements' }) accounts: DealAccountDto[];
  @ApiProperty(SECTION(StalenessDto, 'Statements outside the look-back window, left out of every figure')) staleness: StalenessDto | null;
  @ApiProperty(SECTION(OwnTransfersDto, "Transfers between the merchant's own accounts (neither revenue nor expense)"))
  own_transfers: OwnTransfersDto | null;
  @ApiProperty(SECTION(AffordabilityDto, 'Existing holdback and the largest new advance the cash flow carries, with the arithmetic'))
  affordability: AffordabilityDto | null;
  @ApiProperty({ type: [StatementRowDto] }) statements: StatementRowDto[];
  @ApiProperty({ type: [MonthSummaryDto] }) monthly: MonthSummaryDto[];
  @ApiProperty({ type: [DailyBalanceDto] }) daily_balances: DailyBalanceDto[];
  @ApiProperty({ type: [FeeEventDto], description: 'Every NSF and overdraft fee' }) nsf_events: FeeEventDto[];
  @ApiProperty({ type: [RevenueSourceDto], description: 'Top revenue sources by counterparty' }) revenue_sources: RevenueSourceDto[];
  @ApiProperty(
    SECTION(
      RevenueTableDto,
      'True revenue per month: gross deposits, what each non-revenue class excluded, true revenue, cash deposits (docs/revenue.md)',
    ),
  )
  revenue: RevenueTableDto | null;
  @ApiProperty({ type: [RelatedDealFindingDto], description: 'The same account or file seen in another deal of the organization' })
  related_deals: RelatedDealFindingDto[];
}

/**
 * The deal list's page metadata: `total` is exact up to 10,000 matching deals; above that it is
 * PostgreSQL's estimate, marked `total_estimated` (exact again on the last page). The page bound
 * stays exact either way.
 */
export class DealPageMetaDto extends PageMetaDto {
  @ApiPropertyOptional({
    type: Boolean,
    enum: [true],
    description:
      'Present (true) when more than 10,000 deals match: `total` and `total_pages` are then an estimate, at least the deals up to and one past this page (exact on the last page). A page with deals is always within the bound; a page past the last is 422 as usual.',
  })
  total_estimated?: true;
}

export class DealListDto {
  @ApiProperty({ type: [DealSummaryDto] }) data: DealSummaryDto[];
  @ApiProperty({ type: DealPageMetaDto }) meta: DealPageMetaDto;
}

export class DealsByStatusDto {
  @ApiProperty({ type: 'integer' }) new: number;
  @ApiProperty({ type: 'integer' }) processing: number;
  @ApiProperty({ type: 'integer' }) under_review: number;
  @ApiProperty({ type: 'integer' }) ready: number;
  @ApiProperty({ type: 'integer', description: 'Deals whose every document failed' }) failed: number;
}

export class DealStatsDto {
  @ApiProperty({ type: 'integer' }) total_deals: number;
  @ApiProperty({ type: Number, nullable: true }) avg_health_score: number | null;
  @ApiProperty({ type: Number, nullable: true }) avg_funding_requested: number | null;
  @ApiProperty({ type: 'integer' }) total_approved: number;
  @ApiProperty({ type: 'integer' }) total_declined: number;
  @ApiProperty({ type: 'integer' }) total_funded: number;
  @ApiProperty({ type: 'integer' }) deals_this_week: number;
  @ApiProperty({ type: 'integer' }) deals_this_month: number;
  @ApiProperty({ type: DealsByStatusDto }) deals_by_status: DealsByStatusDto;
}

export class DecisionResultDto {
  @ApiProperty({ enum: ['ok'] }) status: 'ok';
  @ApiProperty({ enum: [true] }) success: true;
  @ApiProperty() message: string;
  @ApiProperty({ type: 'integer' }) deal_id: number;
  @ApiProperty({ enum: DECISIONS }) decision: string;
  @ApiProperty({ type: String, nullable: true, enum: [...DECISIONS, null] }) previous_decision: string | null;
  @ApiProperty({ type: String, format: 'date-time' }) decided_at: string;
  @ApiProperty({ type: String, nullable: true }) reason: string | null;
  @ApiProperty({ type: DecisionOfferDetailDto, nullable: true }) offer: DecisionOfferDetailDto | null;
}

/** POST /v1/deals/{deal_id}/rescore. */
export class RescoreResultDto {
  @ApiProperty({ enum: ['ok'] }) status: 'ok';
  @ApiProperty({ enum: [true] }) success: true;
  @ApiProperty() message: string;
  @ApiProperty({ type: 'integer' }) deal_id: number;
  @ApiProperty({
    description:
      'true when the screening, report and recommendation were recomputed; false when nothing changed since the last scoring (the same documents and corrections): nothing was written',
  })
  rescored: boolean;
  @ApiProperty({ type: () => DealDetailDto, description: 'The deal with its report and recommendation as they now stand' })
  deal: DealDetailDto;
}

export class BatchCreatedDealDto {
  @ApiProperty({ type: 'integer' }) index: number;
  @ApiProperty({ type: 'integer' }) id: number;
  @ApiProperty() business_name: string;
  @ApiProperty() status: string;
  @ApiProperty() funding_amount_requested: number;
  @ApiProperty({ type: String, format: 'date-time' }) created_at: string;
}

export class BatchErrorDto {
  @ApiProperty({ type: 'integer', description: 'Position of the item in the request array' }) index: number;
  @ApiProperty() detail: string;
  @ApiProperty({ type: 'array', items: { type: 'object', additionalProperties: true } }) errors: unknown[];
}

export class BatchCreateResultDto {
  @ApiProperty({ type: [BatchCreatedDealDto] }) created: BatchCreatedDealDto[];
  @ApiProperty({ type: [BatchErrorDto] }) errors: BatchErrorDto[];
  @ApiPropertyOptional({ type: 'integer' }) total_created?: number;
  @ApiPropertyOptional({ type: 'integer' }) total_errors?: number;
}
