import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261125000000_initial } from './Migration20261125000000_initial';
import { Migration20261125010000_deal_analysis } from './Migration20261125010000_deal_analysis';
import { Migration20261125020000_rulesets } from './Migration20261125020000_rulesets';
import { Migration20261125030000_documents } from './Migration20261125030000_documents';
import { Migration20261126020000_report } from './Migration20261126020000_report';
import { Migration20261126021300_webhooks } from './Migration20261126021300_webhooks';
import { Migration20261126053600_shares } from './Migration20261126053600_shares';
import { Migration20261126055000_field_sources } from './Migration20261126055000_field_sources';
import { Migration20261126073200_crm } from './Migration20261126073200_crm';
import { Migration20261126072900_usage } from './Migration20261126072900_usage';
import { Migration20261126074000_collaboration } from './Migration20261126074000_collaboration';
import { Migration20261126073256_ingest } from './Migration20261126073256_ingest';
import { Migration20261126090000_readings } from './Migration20261126090000_readings';
import { Migration20261127120000_share_lockout } from './Migration20261127120000_share_lockout';
import { Migration20261127130000_correction_trail } from './Migration20261127130000_correction_trail';
import { Migration20261127141500_idempotency_fingerprint } from './Migration20261127141500_idempotency_fingerprint';
import { Migration20261128090000_deal_read_indexes } from './Migration20261128090000_deal_read_indexes';
import { Migration20261128100000_transaction_source } from './Migration20261128100000_transaction_source';
import { Migration20261128110000_deal_recommendation } from './Migration20261128110000_deal_recommendation';
import { Migration20261128120000_workbench_review } from './Migration20261128120000_workbench_review';
import { Migration20261128130000_tamper_findings } from './Migration20261128130000_tamper_findings';

/** Versioned migrations, oldest first. Never edit one that has shipped: add a new one. */
export const MIGRATIONS: MigrationObject[] = [
  { name: 'Migration20261125000000_initial', class: Migration20261125000000_initial },
  { name: 'Migration20261125010000_deal_analysis', class: Migration20261125010000_deal_analysis },
  { name: 'Migration20261125020000_rulesets', class: Migration20261125020000_rulesets },
  { name: 'Migration20261125030000_documents', class: Migration20261125030000_documents },
  { name: 'Migration20261126020000_report', class: Migration20261126020000_report },
  { name: 'Migration20261126021300_webhooks', class: Migration20261126021300_webhooks },
  { name: 'Migration20261126053600_shares', class: Migration20261126053600_shares },
  { name: 'Migration20261126055000_field_sources', class: Migration20261126055000_field_sources },
  { name: 'Migration20261126073200_crm', class: Migration20261126073200_crm },
  { name: 'Migration20261126072900_usage', class: Migration20261126072900_usage },
  { name: 'Migration20261126074000_collaboration', class: Migration20261126074000_collaboration },
  { name: 'Migration20261126073256_ingest', class: Migration20261126073256_ingest },
  { name: 'Migration20261126090000_readings', class: Migration20261126090000_readings },
  { name: 'Migration20261127120000_share_lockout', class: Migration20261127120000_share_lockout },
  { name: 'Migration20261127130000_correction_trail', class: Migration20261127130000_correction_trail },
  { name: 'Migration20261127141500_idempotency_fingerprint', class: Migration20261127141500_idempotency_fingerprint },
  { name: 'Migration20261128090000_deal_read_indexes', class: Migration20261128090000_deal_read_indexes },
  { name: 'Migration20261128100000_transaction_source', class: Migration20261128100000_transaction_source },
  { name: 'Migration20261128110000_deal_recommendation', class: Migration20261128110000_deal_recommendation },
  { name: 'Migration20261128120000_workbench_review', class: Migration20261128120000_workbench_review },
  { name: 'Migration20261128130000_tamper_findings', class: Migration20261128130000_tamper_findings },
];
