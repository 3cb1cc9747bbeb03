import { Deal } from './deals.entities';
import { DealDetailDto, DealSummaryDto } from './dto/deal.dto';

export function mapDealSummary(deal: Deal): DealSummaryDto {
  return {
    id: deal.id,
    business_name: deal.businessName,
    dba_name: deal.dbaName,
    owner_name: deal.ownerName,
    industry: deal.industry,
    entity_type: deal.entityType,
    source_type: deal.sourceType,
    ein: deal.ein,
    status: deal.status,
    document_count: deal.documentCount,
    health_score: deal.healthScore,
    health_grade: deal.healthGrade,
    avg_monthly_deposits: deal.avgMonthlyDeposits,
    avg_daily_balance: deal.avgDailyBalance,
    funding_amount_requested: deal.fundingAmountRequested,
    screening_flags: deal.screeningFlags,
    decision: deal.decision,
    decided_at: deal.decidedAt?.toISOString() ?? null,
    mode: deal.livemode ? 'live' : 'test',
    created_at: deal.createdAt.toISOString(),
    updated_at: deal.updatedAt.toISOString(),
  };
}

type ReportSection = Record<string, unknown> | null;

/** The report sections are served only when the deal is ready (spec: Deal report). */
export function mapDealDetail(deal: Deal): DealDetailDto {
  const report = deal.status === 'ready' ? (deal.report ?? {}) : {};
  const section = (name: string): ReportSection => (report[name] as ReportSection | undefined) ?? null;
  return {
    ...mapDealSummary(deal),
    report_date: (report.report_date as string | undefined) ?? null,
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
    ai_summary: (report.ai_summary as string | undefined) ?? null,
    coverage: section('coverage'),
    financials: section('financials'),
    nsf_overdraft: section('nsf_overdraft'),
    screening: section('screening'),
    health: section('health'),
    recommendation: section('recommendation'),
  };
}
