import { ApiProperty } from '@nestjs/swagger';
import { PageMetaDto } from '../../../platform/pagination/pagination';
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
