import type { ENTITY_TYPES, SOURCE_TYPES } from '../entities/deal.entities';

type EntityType = (typeof ENTITY_TYPES)[number];
type SourceType = (typeof SOURCE_TYPES)[number];

/** How people read the entity and source types (reports, share pages): "LLC", not "Llc" or "llc". */
const ENTITY_TYPE_LABELS: Record<EntityType, string> = {
  llc: 'LLC',
  corp: 'Corporation',
  sole_proprietor: 'Sole proprietor',
  partnership: 'Partnership',
  non_profit: 'Non-profit',
};
const SOURCE_TYPE_LABELS: Record<SourceType, string> = {
  direct: 'Direct',
  broker: 'Broker',
  referral: 'Referral',
  crm: 'CRM',
  api: 'API',
};
export const entityTypeLabel = (value: string): string => (ENTITY_TYPE_LABELS as Record<string, string>)[value] ?? value.replace(/_/g, ' ');
export const sourceTypeLabel = (value: string): string => (SOURCE_TYPE_LABELS as Record<string, string>)[value] ?? value.replace(/_/g, ' ');
