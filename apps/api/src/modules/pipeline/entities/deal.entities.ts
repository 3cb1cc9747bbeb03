import { Entity, OptionalProps, Index, PrimaryKey } from '@mikro-orm/core';
import { Double, Int, Json, Money, Text, Timestamp, Bool } from '../../../platform/database/columns';
import { TenantScoped } from '../../../platform/database/tenant';
import type { StoredDealAnalysis, StoredDealReport } from '@ledgerlens/underwriting';

/** `failed`: every document of the deal failed (none completed); reprocessing moves it on. */
export const DEAL_STATUSES = ['new', 'processing', 'under_review', 'ready', 'failed'] as const;
export type DealStatus = (typeof DEAL_STATUSES)[number];
export const ENTITY_TYPES = ['llc', 'corp', 'sole_proprietor', 'partnership', 'non_profit'] as const;
export const SOURCE_TYPES = ['direct', 'broker', 'referral', 'crm', 'api'] as const;
export const DECISIONS = ['approve', 'decline', 'funded'] as const;
export type Decision = (typeof DECISIONS)[number];

@TenantScoped()
@Entity({ tableName: 'deals' })
// The read indexes (list orders, stats, search) are Migration20261128090000_deal_read_indexes's; the default order's:
@Index({ name: 'deals_list_updated_at_index', properties: ['organizationId', 'livemode', 'updatedAt', 'id'] })
export class Deal {
  [OptionalProps]?:
    | 'createdAt'
    | 'updatedAt'
    | 'status'
    | 'documentCount'
    | 'screeningFlags'
    | 'report'
    | 'recommendation'
    | 'analysis'
    | 'dbaName'
    | 'ownerName'
    | 'industry'
    | 'entityType'
    | 'sourceType'
    | 'ein'
    | 'externalReference'
    | 'healthScore'
    | 'healthGrade'
    | 'avgMonthlyDeposits'
    | 'avgDailyBalance'
    | 'decision'
    | 'decidedAt'
    | 'decisionReason'
    | 'decisionOffer'
    | 'decidedBy';
  @PrimaryKey({ type: 'integer', autoincrement: true }) id: number;
  @Int() organizationId: number;
  @Bool() livemode: boolean;
  @Text({ length: 500 }) businessName: string;
  @Text({ length: 500, nullable: true }) dbaName: string | null = null;
  @Text({ length: 500, nullable: true }) ownerName: string | null = null;
  @Text({ length: 255, nullable: true }) industry: string | null = null;
  @Text({ length: 32, nullable: true }) entityType: string | null = null;
  @Text({ length: 32, nullable: true }) sourceType: string | null = null;
  @Text({ length: 9, nullable: true }) ein: string | null = null;
  @Text({ length: 255, nullable: true }) externalReference: string | null = null;
  @Text({ length: 32 }) status: DealStatus = 'new';
  @Money() fundingAmountRequested: number;
  @Int({ default: 0 }) documentCount: number = 0;
  @Double({ nullable: true }) healthScore: number | null = null;
  @Text({ length: 2, nullable: true }) healthGrade: string | null = null;
  @Money({ nullable: true }) avgMonthlyDeposits: number | null = null;
  @Money({ nullable: true }) avgDailyBalance: number | null = null;
  @Int({ default: 0 }) screeningFlags: number = 0;
  /**
   * The stored deal report (sections of spec "Deal report"), written when the deal becomes ready;
   * versioned (`report_version`): read a stored one through `upgradeStoredReport`.
   */
  @Json({ nullable: true }) report: StoredDealReport | null = null;
  /**
   * The underwriting analysis behind the report (`DealAnalysis` of @ledgerlens/underwriting,
   * without its per-transaction arrays), written with the report; rulesets are evaluated on it.
   */
  @Json({ nullable: true }) analysis: StoredDealAnalysis | null = null;
  /** The current recommendation's decision (approve, decline, review), for the deal list; null until one is generated. */
  @Text({ length: 16, nullable: true }) recommendation: 'approve' | 'decline' | 'review' | null = null;
  @Text({ length: 16, nullable: true }) decision: Decision | null = null;
  @Timestamp({ nullable: true }) decidedAt: Date | null = null;
  /** Why the person decided so (the web app asks it for a decline), and the offer an approval made. */
  @Text({ nullable: true }) decisionReason: string | null = null;
  @Json({ nullable: true }) decisionOffer: DecisionOffer | null = null;
  @Text({ length: 64, nullable: true }) decidedBy: string | null = null;
  @Timestamp() createdAt: Date = new Date();
  @Timestamp() updatedAt: Date = new Date();
}

/** Append-only audit trail of underwriting decisions; a deal may be decisioned again. */
@TenantScoped()
@Entity({ tableName: 'deal_decisions' })
export class DealDecision {
  [OptionalProps]?: 'createdAt' | 'previousDecision' | 'reason' | 'offer';
  @PrimaryKey({ type: 'integer', autoincrement: true }) id: number;
  @Int() organizationId: number;
  @Bool() livemode: boolean;
  @Int() @Index() dealId: number;
  @Text({ length: 16 }) decision: Decision;
  @Text({ length: 16, nullable: true }) previousDecision: string | null = null;
  @Text({ length: 64 }) actor: string;
  @Text({ nullable: true }) reason: string | null = null;
  @Json({ nullable: true }) offer: DecisionOffer | null = null;
  @Timestamp() createdAt: Date = new Date();
}

/** The terms an approval offers: advance, factor rate, term and holdback (payback = amount x factor rate). */
export interface DecisionOffer {
  amount: number;
  factor_rate: number;
  term_months: number;
  holdback_percent: number;
}
