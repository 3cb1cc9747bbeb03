import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, ApiPropertyOptions } from '@nestjs/swagger';
import { Allow } from 'class-validator';
import { FORM_B_FACTORS } from '@ledgerlens/underwriting';
import { PageMetaDto } from '../../../platform/pagination/pagination';
import { RULESET_KINDS } from '../rulesets.entities';

/**
 * A ruleset body field. Which fields are required depends on the kind (a body with `factors` is a
 * factor-list ruleset), and the rules (weights summing to 100 or 1.0, descending grade minima,
 * decline < approval) span several fields: the underwriting package's validators check the whole
 * body in one place (RulesetsService), this decorator keeps the field and documents it.
 */
function BodyField(options: ApiPropertyOptions): PropertyDecorator {
  return applyDecorators(Allow(), ApiPropertyOptional(options));
}

const WEIGHT = (factor: string) =>
  ({
    type: 'integer',
    minimum: 0,
    maximum: 100,
    description: `Form A: weight of ${factor}, 0-100; the nine weights sum to exactly 100`,
  }) as const;
const GRADE = (grade: string) =>
  ({ type: 'integer', minimum: 0, maximum: 100, description: `Form A: minimum total score for grade ${grade}` }) as const;

export class RulesetFactorDto {
  @ApiProperty({ enum: FORM_B_FACTORS }) name: string;
  @ApiProperty({ type: Number, minimum: 0, maximum: 1, description: 'Weights of all factors sum to exactly 1.0' }) weight: number;
  @ApiProperty({
    type: 'integer',
    minimum: 0,
    maximum: 100,
    description: 'A factor scoring below its threshold fails; an approve with a failed factor becomes review',
  })
  threshold: number;
}

/** The documented body fields of both ruleset kinds (Form A flat, Form B factor list). */
const FIELD = {
  name: { type: String, maxLength: 200, description: 'Unique within the organization (case-insensitive)', example: 'Conservative' },
  description: { type: String, nullable: true, maxLength: 1000 },
  weight_revenue: WEIGHT('revenue'),
  weight_balance_health: WEIGHT('balance_health'),
  weight_nsf_overdraft: WEIGHT('nsf_overdraft'),
  weight_deposit_frequency: WEIGHT('deposit_frequency'),
  weight_revenue_trend: WEIGHT('revenue_trend'),
  weight_debt_service: WEIGHT('debt_service'),
  weight_transaction_screening: WEIGHT('transaction_screening'),
  weight_health_score: WEIGHT('health_score'),
  weight_cross_doc: WEIGHT('cross_doc'),
  grade_a_min: GRADE('A'),
  grade_b_min: GRADE('B'),
  grade_c_min: GRADE('C'),
  grade_d_min: { ...GRADE('D'), description: 'Form A: minimum total score for grade D; below it is grade F' },
  approve_threshold: { type: 'integer', minimum: 0, maximum: 100, description: 'Form A: minimum total score for approve' },
  max_advance_multiplier: {
    type: Number,
    exclusiveMinimum: true,
    minimum: 0,
    description: 'Form A: max advance = multiplier x average monthly revenue',
  },
  cfcr_target: { type: Number, minimum: 0, description: 'Form A: target cash flow coverage ratio' },
  max_total_holdback: {
    type: Number,
    nullable: true,
    exclusiveMinimum: true,
    minimum: 0,
    maximum: 1,
    description:
      'Either form, optional: affordability, the largest share of monthly revenue all positions together may take (default 0.25; null: the default)',
  },
  factor_rate: {
    type: Number,
    nullable: true,
    minimum: 1,
    maximum: 5,
    description: 'Either form, optional: affordability, the factor rate of a new advance (default 1.35; null: the default)',
  },
  term_months: {
    type: Number,
    nullable: true,
    exclusiveMinimum: true,
    minimum: 0,
    maximum: 36,
    description: 'Either form, optional: affordability, the term of a new advance in months (default 6; null: the default)',
  },
  factors: {
    type: [RulesetFactorDto],
    description: 'Form B: the factor list; weights sum to exactly 1.0. Its presence makes a factor-list ruleset',
  },
  approval_threshold: { type: Number, minimum: 0, maximum: 100, description: 'Form B: total score at or above which a deal is approved' },
  decline_threshold: {
    type: Number,
    minimum: 0,
    maximum: 100,
    description: 'Form B: total score at or below which a deal is declined (lower than approval_threshold)',
  },
} satisfies Record<string, ApiPropertyOptions>;

/** A field every body of that kind must carry (documentation of the create and replace bodies). */
const Required = (field: keyof typeof FIELD) => ApiProperty({ ...FIELD[field], required: true } as ApiPropertyOptions);

/**
 * The request fields of POST /rulesets, PUT /rulesets/{id} and PATCH /rulesets/{id}, as the server
 * reads them: any subset, checked as a whole by RulesetsService. The create and replace bodies are
 * documented more precisely as one of FlatRulesetInputDto and FactorRulesetInputDto.
 */
export class CreateRulesetDto {
  @BodyField({ ...FIELD.name, description: 'Required; unique within the organization (case-insensitive)' }) name?: unknown;
  @BodyField(FIELD.description) description?: unknown;
  @BodyField(FIELD.weight_revenue) weight_revenue?: unknown;
  @BodyField(FIELD.weight_balance_health) weight_balance_health?: unknown;
  @BodyField(FIELD.weight_nsf_overdraft) weight_nsf_overdraft?: unknown;
  @BodyField(FIELD.weight_deposit_frequency) weight_deposit_frequency?: unknown;
  @BodyField(FIELD.weight_revenue_trend) weight_revenue_trend?: unknown;
  @BodyField(FIELD.weight_debt_service) weight_debt_service?: unknown;
  @BodyField(FIELD.weight_transaction_screening) weight_transaction_screening?: unknown;
  @BodyField(FIELD.weight_health_score) weight_health_score?: unknown;
  @BodyField(FIELD.weight_cross_doc) weight_cross_doc?: unknown;
  @BodyField(FIELD.grade_a_min) grade_a_min?: unknown;
  @BodyField(FIELD.grade_b_min) grade_b_min?: unknown;
  @BodyField(FIELD.grade_c_min) grade_c_min?: unknown;
  @BodyField(FIELD.grade_d_min) grade_d_min?: unknown;
  @BodyField(FIELD.approve_threshold) approve_threshold?: unknown;
  @BodyField(FIELD.max_advance_multiplier) max_advance_multiplier?: unknown;
  @BodyField(FIELD.cfcr_target) cfcr_target?: unknown;
  @BodyField(FIELD.factors) factors?: unknown;
  @BodyField(FIELD.approval_threshold) approval_threshold?: unknown;
  @BodyField(FIELD.decline_threshold) decline_threshold?: unknown;
  @BodyField(FIELD.max_total_holdback) max_total_holdback?: unknown;
  @BodyField(FIELD.factor_rate) factor_rate?: unknown;
  @BodyField(FIELD.term_months) term_months?: unknown;
}

/** Form A body of POST /rulesets and PUT /rulesets/{id}: a flat ruleset, every field but `description` required. */
export class FlatRulesetInputDto {
  @Required('name') name: string;
  @ApiPropertyOptional(FIELD.description) description?: string | null;
  @Required('weight_revenue') weight_revenue: number;
  @Required('weight_balance_health') weight_balance_health: number;
  @Required('weight_nsf_overdraft') weight_nsf_overdraft: number;
  @Required('weight_deposit_frequency') weight_deposit_frequency: number;
  @Required('weight_revenue_trend') weight_revenue_trend: number;
  @Required('weight_debt_service') weight_debt_service: number;
  @Required('weight_transaction_screening') weight_transaction_screening: number;
  @Required('weight_health_score') weight_health_score: number;
  @Required('weight_cross_doc') weight_cross_doc: number;
  @Required('grade_a_min') grade_a_min: number;
  @Required('grade_b_min') grade_b_min: number;
  @Required('grade_c_min') grade_c_min: number;
  @Required('grade_d_min') grade_d_min: number;
  @Required('approve_threshold') approve_threshold: number;
  @Required('max_advance_multiplier') max_advance_multiplier: number;
  @Required('cfcr_target') cfcr_target: number;
  @ApiPropertyOptional(FIELD.max_total_holdback) max_total_holdback?: number | null;
  @ApiPropertyOptional(FIELD.factor_rate) factor_rate?: number | null;
  @ApiPropertyOptional(FIELD.term_months) term_months?: number | null;
}

/** Form B body of POST /rulesets and PUT /rulesets/{id}: a factor-list ruleset. */
export class FactorRulesetInputDto {
  @Required('name') name: string;
  @ApiPropertyOptional(FIELD.description) description?: string | null;
  @Required('factors') factors: RulesetFactorDto[];
  @Required('approval_threshold') approval_threshold: number;
  @Required('decline_threshold') decline_threshold: number;
  @ApiPropertyOptional(FIELD.max_total_holdback) max_total_holdback?: number | null;
  @ApiPropertyOptional(FIELD.factor_rate) factor_rate?: number | null;
  @ApiPropertyOptional(FIELD.term_months) term_months?: number | null;
}

/**
 * PATCH /rulesets/{id}: any subset of the fields. The merged ruleset must still be valid (weights
 * summing to 100 or 1.0). Sending `factors` to a flat ruleset (or Form A fields to a factor-list
 * one) converts it, and then every field of the new kind is required.
 */
export class UpdateRulesetDto extends CreateRulesetDto {}

const INT_N = { type: 'integer', nullable: true } as const;
const NUM_N = { type: Number, nullable: true } as const;

/**
 * A ruleset of either kind: the fields of the other kind are null (README, "How the spec's variants
 * became one API", ruleset kinds: a superset of both).
 */
export class RulesetDto {
  @ApiProperty({ type: 'integer' }) id: number;
  @ApiProperty() name: string;
  @ApiProperty({ type: String, nullable: true }) description: string | null;
  @ApiProperty({ enum: RULESET_KINDS, description: '`flat` (Form A, nine weights) or `factors` (Form B, factor list)' }) kind: string;
  @ApiProperty({ description: 'Exactly one ruleset of the organization (per live/test mode) is the default' }) is_default: boolean;
  @ApiProperty({ enum: ['live', 'test'] }) mode: 'live' | 'test';
  @ApiProperty(INT_N) weight_revenue: number | null;
  @ApiProperty(INT_N) weight_balance_health: number | null;
  @ApiProperty(INT_N) weight_nsf_overdraft: number | null;
  @ApiProperty(INT_N) weight_deposit_frequency: number | null;
  @ApiProperty(INT_N) weight_revenue_trend: number | null;
  @ApiProperty(INT_N) weight_debt_service: number | null;
  @ApiProperty(INT_N) weight_transaction_screening: number | null;
  @ApiProperty(INT_N) weight_health_score: number | null;
  @ApiProperty(INT_N) weight_cross_doc: number | null;
  @ApiProperty(INT_N) grade_a_min: number | null;
  @ApiProperty(INT_N) grade_b_min: number | null;
  @ApiProperty(INT_N) grade_c_min: number | null;
  @ApiProperty(INT_N) grade_d_min: number | null;
  @ApiProperty(INT_N) approve_threshold: number | null;
  @ApiProperty(NUM_N) max_advance_multiplier: number | null;
  @ApiProperty(NUM_N) cfcr_target: number | null;
  @ApiProperty({ type: [RulesetFactorDto], nullable: true }) factors: RulesetFactorDto[] | null;
  @ApiProperty(NUM_N) approval_threshold: number | null;
  @ApiProperty(NUM_N) decline_threshold: number | null;
  @ApiProperty({ ...NUM_N, description: 'Affordability: maximum total holdback; null: the default 0.25' }) max_total_holdback:
    number | null;
  @ApiProperty({ ...NUM_N, description: 'Affordability: factor rate of a new advance; null: the default 1.35' }) factor_rate: number | null;
  @ApiProperty({ ...NUM_N, description: 'Affordability: term of a new advance in months; null: the default 6' }) term_months: number | null;
  @ApiProperty({ type: String, format: 'date-time' }) created_at: string;
  @ApiProperty({ type: String, format: 'date-time' }) updated_at: string;
}

export class RulesetListDto {
  @ApiProperty({ type: [RulesetDto] }) data: RulesetDto[];
  @ApiProperty({ type: PageMetaDto }) meta: PageMetaDto;
}
