import { AFFORDABILITY_FIELDS, FLAT_WEIGHT_FIELDS } from '@ledgerlens/underwriting';
import { Ruleset } from './rulesets.entities';
import { RulesetDto, RulesetFactorDto } from './dto/ruleset.dto';

export const FLAT_FIELDS = [
  ...FLAT_WEIGHT_FIELDS,
  'grade_a_min',
  'grade_b_min',
  'grade_c_min',
  'grade_d_min',
  'approve_threshold',
  'max_advance_multiplier',
  'cfcr_target',
] as const;
export const FACTOR_FIELDS = ['factors', 'approval_threshold', 'decline_threshold'] as const;

export function mapRuleset(r: Ruleset): RulesetDto {
  const d = r.definition;
  const flat = r.kind === 'flat';
  const num = (field: string): number | null => (typeof d[field] === 'number' ? (d[field] as number) : null);
  const fields = Object.fromEntries(FLAT_FIELDS.map((f) => [f, flat ? num(f) : null])) as Record<
    (typeof FLAT_FIELDS)[number],
    number | null
  >;
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    kind: r.kind,
    is_default: r.isDefault,
    mode: r.livemode ? 'live' : 'test',
    ...fields,
    factors: flat ? null : ((d.factors as RulesetFactorDto[] | undefined) ?? []),
    approval_threshold: flat ? null : num('approval_threshold'),
    decline_threshold: flat ? null : num('decline_threshold'),
    ...(Object.fromEntries(AFFORDABILITY_FIELDS.map((f) => [f, num(f)])) as Record<(typeof AFFORDABILITY_FIELDS)[number], number | null>),
    created_at: r.createdAt.toISOString(),
    updated_at: r.updatedAt.toISOString(),
  };
}
