import { Entity, OptionalProps, PrimaryKey } from '@mikro-orm/core';
import { Bool, Int, Json, Text, Timestamp } from '../../platform/database/columns';
import { TenantScoped } from '../../platform/database/tenant';

export const RULESET_KINDS = ['flat', 'factors'] as const;
export type RulesetKind = (typeof RULESET_KINDS)[number];

/**
 * A ruleset of either kind (README, "How the spec's variants became one API", ruleset kinds: flat
 * Form A is canonical, a body with `factors` is a factor-list ruleset). `definition` holds the fields of
 * the kind exactly as the API shows them (`weight_*`, grade minima, ... or `factors`,
 * `approval_threshold`, `decline_threshold`), so the underwriting package evaluates it unchanged.
 * `version` grows on every edit: a cached recommendation is valid only for the version it was computed
 * with.
 */
@TenantScoped()
@Entity({ tableName: 'rulesets' })
export class Ruleset {
  [OptionalProps]?: 'description' | 'isDefault' | 'version' | 'createdAt' | 'updatedAt';
  @PrimaryKey({ type: 'integer', autoincrement: true }) id: number;
  @Int() organizationId: number;
  @Bool() livemode: boolean;
  @Text({ length: 200 }) name: string;
  @Text({ nullable: true }) description: string | null = null;
  @Text({ length: 16 }) kind: RulesetKind;
  @Json() definition: Record<string, unknown>;
  @Bool({ default: false }) isDefault: boolean = false;
  @Int({ default: 1 }) version: number = 1;
  @Timestamp() createdAt: Date = new Date();
  @Timestamp() updatedAt: Date = new Date();
}

/** The entities of the rulesets module, registered with the ORM by the composition root (entities.ts). */
export const RULESETS_ENTITIES = [Ruleset];
