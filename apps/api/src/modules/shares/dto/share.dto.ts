import { ApiProperty } from '@nestjs/swagger';
import { PageMetaDto } from '../../../platform/pagination/pagination';
import { AffordabilityDto, RevenueExclusionsDto } from '../../pipeline/dto/report.dto';
import { ValidateDateTime, ValidateInt, ValidateString } from '../../../platform/validation/decorators';

/**
 * Both forms' fields (README, "How the spec's variants became one API", rule 2): Form A
 * `label`/`expires_at`, Form B `expires_in_hours`/`password`.
 */
export class CreateShareDto {
  @ValidateString({ optional: true, nullable: true, maxLength: 255, description: 'Form A: a name for the link' })
  label?: string | null;

  @ValidateDateTime({ optional: true, nullable: true, description: 'Form A: ISO 8601 UTC; after it viewers get 404. Omit for none' })
  expires_at?: string | null;

  @ValidateInt({ optional: true, min: 1, max: 24 * 365, description: 'Form B: the link expires this many hours after creation' })
  expires_in_hours?: number;

  @ValidateString({
    optional: true,
    minLength: 4,
    maxLength: 200,
    description: 'Form B: viewers must send it in `X-Share-Password`; stored only as a hash',
  })
  password?: string;
}

/** Share link: the union of Form A and Form B fields (README, "How the spec's variants became one API", rule 2). */
export class ShareLinkDto {
  @ApiProperty({ type: 'integer' }) id: number;
  @ApiProperty({ type: 'integer' }) deal_id: number;
  @ApiProperty({ example: 'shr_3kT9...', description: 'Opaque token, `shr_` prefix' }) token: string;
  @ApiProperty({ description: '`{share_url}/share/<token>`: a human page; the JSON view is `/v1/share/<token>`' }) url: string;
  @ApiProperty({ type: String, nullable: true }) label: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) expires_at: string | null;
  @ApiProperty({ type: 'integer' }) view_count: number;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) last_viewed_at: string | null;
  @ApiProperty() password_protected: boolean;
  @ApiProperty({ description: 'false once expired or revoked' }) active: boolean;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) revoked_at: string | null;
  @ApiProperty({ description: 'Audit name of the creator (`user:12`, `api_key:3`)' }) created_by: string;
  @ApiProperty({ type: String, format: 'date-time' }) created_at: string;
}

export class ShareLinkListDto {
  @ApiProperty({ type: [ShareLinkDto] }) data: ShareLinkDto[];
  @ApiProperty({ type: PageMetaDto }) meta: PageMetaDto;
}

export class ActiveShareLinksDto {
  @ApiProperty({ type: [ShareLinkDto], description: 'Active (not expired, not revoked) links' }) data: ShareLinkDto[];
}

/**
 * One lender position as a share viewer sees it: who, how often, how much, since when, what is
 * left, and the marks an underwriter looks at. Not the evidence rows (no transactions) nor the
 * directory ids.
 */
export class SharedPositionDto {
  @ApiProperty({ description: "The lender's name, or the counterparty wording when the position was found by recurrence" })
  lender: string;
  @ApiProperty({ description: 'true: a lender of the directory or of the organization' }) known_lender: boolean;
  @ApiProperty({ enum: ['daily', 'weekly', 'biweekly', 'monthly', 'irregular'], description: 'Payment cadence' }) frequency: string;
  @ApiProperty() payment_amount: number;
  @ApiProperty({ type: String, format: 'date' }) first_seen: string;
  @ApiProperty({ type: String, format: 'date' }) last_seen: string;
  @ApiProperty({ type: Number, nullable: true, description: 'The deposit from the lender that started the position' })
  funding_amount: number | null;
  @ApiProperty({ type: Number, nullable: true, description: 'Estimated payback less what was paid, not below 0' })
  estimated_remaining_balance: number | null;
  @ApiProperty({ enum: ['new', 'renewal', 'modification'] }) start_reason: string;
  @ApiProperty({ type: 'integer', nullable: true, description: 'Expected payment days with no payment' }) missed_payments: number | null;
  @ApiProperty({ type: 'integer', nullable: true, description: 'Payments returned within 10 days' }) bounced_payments: number | null;
  @ApiProperty({ type: Boolean, nullable: true, description: 'Overlaps another position in time' }) stacked: boolean | null;
  @ApiProperty() is_active: boolean;
}

/** The positions table of the share page. */
export class SharedPositionsDto {
  @ApiProperty({ type: [SharedPositionDto] }) positions: SharedPositionDto[];
  @ApiProperty({ type: 'integer' }) active_count: number;
  @ApiProperty({ type: 'integer', description: 'The most positions running at the same time' }) stacking_count: number;
  @ApiProperty({ description: 'Estimated monthly payments of the positions together' }) estimated_monthly_total: number;
}

/** One month (or the totals) of the true-revenue table: figures only. */
export class SharedRevenueRowDto {
  @ApiProperty({ description: 'Every deposit' }) gross_deposits: number;
  @ApiProperty({ type: RevenueExclusionsDto, description: 'Deposits left out of revenue, by class' }) excluded: RevenueExclusionsDto;
  @ApiProperty() excluded_total: number;
  @ApiProperty({ description: 'gross_deposits - excluded_total' }) true_revenue: number;
  @ApiProperty({ description: 'Cash deposits: part of true_revenue, totalled apart' }) cash_deposits: number;
}

export class SharedRevenueMonthDto extends SharedRevenueRowDto {
  @ApiProperty({ example: '2024-06', description: 'YYYY-MM' }) month: string;
}

/** True revenue per month (docs/revenue.md), as the report has it, without the per-deposit detail. */
export class SharedRevenueDto {
  @ApiProperty({ type: [SharedRevenueMonthDto], description: 'Oldest first' }) months: SharedRevenueMonthDto[];
  @ApiProperty({ type: SharedRevenueRowDto }) totals: SharedRevenueRowDto;
}

/** Transfers between the merchant's own accounts: how many and how much, not the accounts or rows. */
export class SharedOwnTransfersDto {
  @ApiProperty({ type: 'integer' }) count: number;
  @ApiProperty({ description: 'Sum of the transferred amounts (neither revenue nor expense)' }) total: number;
}

/** The deal as a share viewer sees it: summary figures only, no transactions, flags or notes. */
export class SharedDealDto {
  @ApiProperty({ type: 'integer' }) id: number;
  @ApiProperty() business_name: string;
  @ApiProperty({ type: String, nullable: true }) dba_name: string | null;
  @ApiProperty({ type: String, nullable: true }) industry: string | null;
  @ApiProperty({ type: String, nullable: true }) entity_type: string | null;
  @ApiProperty({ type: Number, nullable: true }) health_score: number | null;
  @ApiProperty({ type: String, nullable: true, description: 'Letter grade of the health score (the one grade shown)' })
  paper_grade: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    enum: ['approve', 'decline', 'funded', null],
    description: 'The decision a person recorded (`POST /v1/deals/{id}/decision`); null until someone decides',
  })
  decision: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    enum: ['approve', 'review', 'decline', null],
    description: 'The system’s recommendation (default ruleset), not a decision; null before the deal is scored',
  })
  recommendation: string | null;
  @ApiProperty({
    type: [String],
    description:
      'What must be checked before relying on the figures: each statement that failed reconciliation or needs review, with the failed check (shown first)',
  })
  warnings: string[];
  @ApiProperty({ type: Number, nullable: true }) avg_monthly_deposits: number | null;
  @ApiProperty({ type: Number, nullable: true }) avg_daily_balance: number | null;
  @ApiProperty({ type: Number, nullable: true }) ending_balance: number | null;
  @ApiProperty({ type: Number, nullable: true }) total_deposits: number | null;
  @ApiProperty({ type: 'integer', nullable: true }) months_covered: number | null;
  @ApiProperty({ type: 'integer', nullable: true }) nsf_count: number | null;
  @ApiProperty({ type: String, nullable: true }) ai_summary: string | null;
  @ApiProperty() funding_amount_requested: number;
  @ApiProperty({ type: Number, nullable: true }) max_advance: number | null;
  @ApiProperty({ type: String, format: 'date', nullable: true }) report_date: string | null;
  @ApiProperty({
    type: SharedPositionsDto,
    nullable: true,
    description:
      'The lender positions (cadence, payment, dates, funding, estimated remaining balance, renewal, missed and bounced payments); null before the deal is analysed',
  })
  lender_positions: SharedPositionsDto | null;
  @ApiProperty({
    type: SharedRevenueDto,
    nullable: true,
    description:
      'True revenue per month: gross deposits, what each non-revenue class excluded, true revenue; null before the deal is analysed',
  })
  revenue: SharedRevenueDto | null;
  @ApiProperty({ type: SharedOwnTransfersDto, nullable: true, description: "Transfers between the merchant's own accounts" })
  own_transfers: SharedOwnTransfersDto | null;
  @ApiProperty({
    type: AffordabilityDto,
    nullable: true,
    description:
      'The largest new advance the cash flow carries, with its arithmetic (`steps`); the affordability `max_advance` may differ from the recommendation’s `max_advance` above',
  })
  affordability: AffordabilityDto | null;
}

/** GET /v1/share/{token} (Form A shape: a bare object). */
export class ShareViewDto {
  @ApiProperty() token: string;
  @ApiProperty({ type: SharedDealDto }) deal: SharedDealDto;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) expires_at: string | null;
  @ApiProperty({ type: String, format: 'date-time', description: 'When the link was created' }) shared_at: string;
}

export class SharePasswordFormDto {
  @ValidateString({ optional: true, maxLength: 200, description: 'The link password (the HTML page posts it)' })
  password?: string;
}
