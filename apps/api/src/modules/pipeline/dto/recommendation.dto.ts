import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IntListQuery, ValidateInt } from '../../../platform/validation/decorators';
import { RULESET_KINDS } from '../../rulesets/rulesets.entities';

export const DECISIONS = ['approve', 'review', 'decline'] as const;
export const GRADES = ['A', 'B', 'C', 'D', 'F'] as const;
export const MAX_EVALUATE_RULESETS = 20;

export class FactorScoreDto {
  @ApiProperty({ description: 'Factor score 0-100' }) score: number;
  @ApiProperty({ description: 'Flat rulesets: integer weight 0-100; factor-list rulesets: weight 0-1' }) weight: number;
  @ApiProperty({ description: 'Contribution to total_score' }) weighted: number;
  @ApiPropertyOptional({ type: 'integer', description: 'Factor-list rulesets only' }) threshold?: number;
  @ApiPropertyOptional({ description: 'Factor-list rulesets only: score >= threshold' }) passed?: boolean;
}

const FACTOR_SCORES = {
  type: 'object',
  additionalProperties: { $ref: '#/components/schemas/FactorScoreDto' },
  description:
    'Flat rulesets: revenue, balance_health, nsf_overdraft, deposit_frequency, revenue_trend, debt_service, transaction_screening, health_score, cross_doc. ' +
    'Factor-list rulesets: the factors of the ruleset.',
} as const;

/** The evaluation of one ruleset on a deal (shared by recommendation and evaluate). */
export class EvaluationDto {
  @ApiProperty({ type: 'integer' }) ruleset_id: number;
  @ApiProperty() ruleset_name: string;
  @ApiProperty({ enum: RULESET_KINDS }) ruleset_kind: string;
  @ApiProperty() total_score: number;
  @ApiProperty({ enum: DECISIONS, description: '`review` only from factor-list rulesets (between the thresholds, or a failed factor)' })
  decision: string;
  @ApiProperty({ enum: GRADES, description: 'Letter grade of total_score (factor-list rulesets use the default grade minima)' })
  grade: string;
  @ApiProperty({ type: Number, nullable: true, description: 'USD; null unless approve' }) max_advance: number | null;
  @ApiProperty({ description: 'Cash flow coverage ratio' }) cfcr: number;
  @ApiProperty() cfcr_target: number;
  @ApiProperty() cfcr_below_target: boolean;
  @ApiProperty(FACTOR_SCORES) factor_scores: Record<string, FactorScoreDto>;
  @ApiProperty({ type: [String], description: 'Factor-list rulesets: factors below their threshold' }) failed_factors: string[];
  @ApiProperty({ type: [String], description: 'Decision sentence, then the most influential factors in plain words' }) reasons: string[];
}

/** GET /deals/{id}/recommendation (spec: Recommendation, plus grade, reasons and cfcr extras). */
export class RecommendationDto extends EvaluationDto {
  @ApiProperty({ type: 'integer' }) deal_id: number;
  @ApiProperty({ type: String, format: 'date-time' }) generated_at: string;
  @ApiProperty({ description: 'true when served from the 30-second cache' }) cached: boolean;
}

export class RulesetEvaluationDto extends EvaluationDto {
  @ApiProperty() is_default: boolean;
}

export class EvaluationResultDto {
  @ApiProperty({ type: 'integer' }) deal_id: number;
  @ApiProperty({ type: [RulesetEvaluationDto] }) evaluations: RulesetEvaluationDto[];
}

export class EvaluateQueryDto {
  @ValidateInt({ optional: true, query: true, min: 1, max: 2147483647, description: 'One ruleset to evaluate' })
  ruleset_id?: number;

  @IntListQuery(
    'ruleset_ids',
    MAX_EVALUATE_RULESETS,
    'Rulesets to evaluate: repeat the parameter (`ruleset_ids=1&ruleset_ids=2`) or separate with commas. Without any id, the default ruleset is evaluated',
  )
  ruleset_ids?: number[];
}

export class SummaryAcceptedDto {
  @ApiProperty({ enum: ['accepted'] }) status: 'accepted';
  @ApiProperty({ enum: [true] }) success: true;
  @ApiProperty() message: string;
  @ApiProperty({ type: 'integer' }) deal_id: number;
}
