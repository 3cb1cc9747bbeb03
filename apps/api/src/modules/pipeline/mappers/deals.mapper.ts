import { Deal, DecisionOffer } from '../entities/deal.entities';
import type { DealReport } from '@ledgerlens/underwriting';
import { DealDetailDto, DealSummaryDto } from '../dto/deal.dto';
import {
  AuthenticityDto,
  CrossDocDto,
  CurrencySummaryDto,
  FeeEventDto,
  RelatedDealFindingDto,
  ReportRecommendationDto,
  ReviewDto,
  StatementRowDto,
} from '../dto/report.dto';

export function mapDealSummary(deal: Omit<Deal, 'report' | 'analysis'>): DealSummaryDto {
  return {
    id: deal.id,
    business_name: deal.businessName,
    dba_name: deal.dbaName,
    owner_name: deal.ownerName,
    industry: deal.industry,
    entity_type: deal.entityType,
    source_type: deal.sourceType,
    ein: deal.ein,
    external_reference: deal.externalReference,
    status: deal.status,
    document_count: deal.documentCount,
    health_score: deal.healthScore,
    health_grade: deal.healthGrade,
    avg_monthly_deposits: deal.avgMonthlyDeposits,
    avg_daily_balance: deal.avgDailyBalance,
    funding_amount_requested: deal.fundingAmountRequested,
    screening_flags: deal.screeningFlags,
    recommendation_decision: deal.recommendation,
    decision: deal.decision,
    decided_at: deal.decidedAt?.toISOString() ?? null,
    decision_reason: deal.decisionReason,
    decision_offer: offerDetail(deal.decisionOffer),
    decided_by: deal.decidedBy,
    mode: deal.livemode ? 'live' : 'test',
    created_at: deal.createdAt.toISOString(),
    updated_at: deal.updatedAt.toISOString(),
  };
}

/** The report as stored on the deal: the underwriting package's report plus the recommendation. */
export type StoredReport = Omit<DealReport, 'statements'> & {
  statements: StatementRowDto[];
  recommendation?: ReportRecommendationDto | null;
  ai_summary_meta?: Record<string, unknown>;
};

/** Fields a report stored before they existed lack. */
const withDefaults = <T extends object>(stored: T, defaults: Partial<T>): T => Object.assign({}, defaults, stored); // (not a spread: see mapDealDetail)

/**
 * The report sections are served only when the deal is ready (spec: Deal report).
 * Object.assign, not `{ ...summary, ... }`: V8 builds a literal that spreads an object and then
 * defines twenty-odd more properties through a slow runtime path (~30 us per deal against ~1.4 us
 * this way, measured on Node 20; it was a tenth of GET /v1/deals/{id}'s CPU, docs/performance.md).
 */
export function mapDealDetail(deal: Omit<Deal, 'analysis'>): DealDetailDto {
  // Reports are stored JSON written by buildDealReport; older ones may lack the newer sections.
  const report: Partial<StoredReport> = deal.status === 'ready' ? ((deal.report ?? {}) as Partial<StoredReport>) : {};
  return Object.assign(mapDealSummary(deal), {
    report_date: report.report_date ?? null,
    business: {
      id: deal.id,
      business_name: deal.businessName,
      dba_name: deal.dbaName,
      owner_name: deal.ownerName,
      status: deal.status,
      entity_type: deal.entityType,
      ein: deal.ein,
      industry: deal.industry,
      source_type: deal.sourceType,
    },
    ai_summary: report.ai_summary ?? null,
    coverage: report.coverage ? withDefaults(report.coverage, { period_start: null, period_end: null }) : null,
    financials: report.financials ?? null,
    nsf_overdraft: report.nsf_overdraft ?? null,
    screening: report.screening ?? null,
    health: report.health ?? null,
    recommendation: report.recommendation ? withDefaults(report.recommendation, { reasons: [] }) : null,
    authenticity: (report.authenticity as AuthenticityDto | undefined) ?? null,
    review: (report.review as ReviewDto | undefined) ?? null,
    currency: (report.currency as CurrencySummaryDto | undefined) ?? null,
    cross_doc: (report.cross_doc as CrossDocDto | undefined) ?? null,
    lender_positions: report.lender_positions ?? null,
    statements: report.statements ?? [],
    monthly: report.monthly ?? [],
    daily_balances: report.daily_balances ?? [],
    nsf_events: (report.nsf_events as FeeEventDto[] | undefined) ?? [],
    revenue_sources: report.revenue_sources ?? [],
    related_deals: (report.related_deals as RelatedDealFindingDto[] | undefined) ?? [],
  });
}

/** The offer with its payback (amount x factor rate, to the cent). */
export function offerDetail(offer: DecisionOffer | null): (DecisionOffer & { payback_amount: number }) | null {
  return offer ? { ...offer, payback_amount: Math.round(offer.amount * offer.factor_rate * 100) / 100 } : null;
}
