import type { DealRecord } from '../pipeline/records';
import type { CrmProviderName, Direction } from './crm.entities';

/**
 * Deal fields a mapping may name (`banklyze_field`). Writable ones may be mapped from the CRM
 * (`from_crm`, `both`); the others are computed by the service and only pushed.
 */
export const DEAL_FIELDS: Record<string, { writable: boolean; read: (d: DealRecord) => unknown }> = {
  business_name: { writable: true, read: (d) => d.businessName },
  dba_name: { writable: true, read: (d) => d.dbaName },
  owner_name: { writable: true, read: (d) => d.ownerName },
  industry: { writable: true, read: (d) => d.industry },
  entity_type: { writable: true, read: (d) => d.entityType },
  ein: { writable: true, read: (d) => d.ein },
  source_type: { writable: true, read: (d) => d.sourceType },
  funding_amount_requested: { writable: true, read: (d) => (d.fundingAmountRequested === null ? null : Number(d.fundingAmountRequested)) },
  deal_id: { writable: false, read: (d) => d.id },
  status: { writable: false, read: (d) => d.status },
  decision: { writable: false, read: (d) => d.decision },
  decided_at: { writable: false, read: (d) => d.decidedAt?.toISOString() ?? null },
  health_score: { writable: false, read: (d) => d.healthScore },
  health_grade: { writable: false, read: (d) => d.healthGrade },
  avg_monthly_deposits: { writable: false, read: (d) => (d.avgMonthlyDeposits === null ? null : Number(d.avgMonthlyDeposits)) },
  avg_daily_balance: { writable: false, read: (d) => (d.avgDailyBalance === null ? null : Number(d.avgDailyBalance)) },
  document_count: { writable: false, read: (d) => d.documentCount },
  created_at: { writable: false, read: (d) => d.createdAt.toISOString() },
};
export const DEAL_FIELD_NAMES = Object.keys(DEAL_FIELDS);

export function dealValues(deal: DealRecord): Record<string, unknown> {
  return Object.fromEntries(Object.entries(DEAL_FIELDS).map(([name, f]) => [name, f.read(deal)]));
}

/**
 * Form B direction names (with the service name spelled `banklyze`, as the spec prints it: README,
 * "How the spec's variants became one API", rule 2) and back.
 */
const FORM_B: Record<Direction, string> = { to_crm: 'banklyze_to_crm', from_crm: 'crm_to_banklyze', both: 'bidirectional' };
export const FORM_B_DIRECTIONS = Object.values(FORM_B);
export const ANY_DIRECTION = [...Object.keys(FORM_B), ...FORM_B_DIRECTIONS];
export const toFormB = (d: Direction) => FORM_B[d];
export function canonicalDirection(value: string): Direction | null {
  if (value in FORM_B) return value as Direction;
  const found = (Object.entries(FORM_B) as [Direction, string][]).find(([, b]) => b === value);
  return found ? found[0] : null;
}
export const inbound = (d: Direction) => d === 'from_crm' || d === 'both';
export const outbound = (d: Direction) => d === 'to_crm' || d === 'both';

/** The CRM object a provider's deal lives in (Form B `crm_field` is `object.field`). */
export const CRM_OBJECT: Record<CrmProviderName, string> = {
  salesforce: 'Opportunity',
  hubspot: 'deals',
  pipedrive: 'deals',
  custom: 'deal',
};

/** `Opportunity.Amount` -> `Amount` when the prefix names the provider's deal object; other names unchanged. */
export function bareCrmField(provider: CrmProviderName, field: string): string {
  const dot = field.indexOf('.');
  if (dot < 0) return field;
  const object = field.slice(0, dot).toLowerCase();
  const known = [CRM_OBJECT[provider].toLowerCase(), 'deal', 'deals', 'opportunity'];
  return known.includes(object) ? field.slice(dot + 1) : field;
}
