import { Entity, Index, PrimaryKey } from '@mikro-orm/core';
import { Int, Json, Text, Timestamp, Bool } from '../../../platform/database/columns';
import { TenantScoped } from '../../../platform/database/tenant';
import type { RulesetKind } from '../../rulesets/rulesets.entities';
import type { Evaluation } from '@ledgerlens/underwriting';

/**
 * A generated recommendation with a snapshot of the ruleset used: later edits or deletion of the
 * ruleset never change it (spec: Recommendation). One row per generation; the newest is current.
 */
@TenantScoped()
@Entity({ tableName: 'recommendations' })
@Index({ properties: ['dealId', 'generatedAt'] })
export class RecommendationRecord {
  @PrimaryKey({ type: 'integer', autoincrement: true }) id: number;
  @Int() organizationId: number;
  @Bool() livemode: boolean;
  @Int() dealId: number;
  /** null never happens at write time; kept nullable because the ruleset may be deleted later */
  @Int({ nullable: true }) rulesetId: number | null;
  @Text({ length: 200 }) rulesetName: string;
  @Text({ length: 16 }) rulesetKind: RulesetKind;
  @Int() rulesetVersion: number;
  /** the ruleset as it was: {name, description, kind, ...definition} */
  @Json() rulesetSnapshot: Record<string, unknown>;
  /** the evaluation result (decision, total_score, factor_scores, ...) without deal_id/cached */
  @Json() result: Evaluation;
  @Timestamp() generatedAt: Date;
}
