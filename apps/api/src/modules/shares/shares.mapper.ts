import { reliabilityWarnings } from '@ledgerlens/underwriting';
import type { Deal } from '../pipeline/entities/deal.entities';
import { mapDealDetail } from '../pipeline/mappers/deals.mapper';
import { isActive, ShareLink } from './shares.entities';
import { SharedDealDto, ShareLinkDto, ShareViewDto } from './dto/share.dto';

export function shareUrl(publicUrl: string, token: string): string {
  return `${publicUrl}/share/${token}`;
}

export function mapShareLink(link: ShareLink, publicUrl: string, now: Date): ShareLinkDto {
  return {
    id: link.id,
    deal_id: link.dealId,
    token: link.token,
    url: shareUrl(publicUrl, link.token),
    label: link.label,
    expires_at: link.expiresAt?.toISOString() ?? null,
    view_count: link.viewCount,
    last_viewed_at: link.lastViewedAt?.toISOString() ?? null,
    password_protected: link.passwordHash !== null,
    active: isActive(link, now),
    revoked_at: link.revokedAt?.toISOString() ?? null,
    created_by: link.createdBy,
    created_at: link.createdAt.toISOString(),
  };
}

/**
 * The listed summary fields only (spec: Share links, Form A): chosen field by field from the deal
 * report, so a section added to the report later cannot reach a public viewer by accident.
 * `decision` is a person's (null until someone decides); the system's verdict is `recommendation`.
 * One grade: the paper grade is the grade of the health score shown with it (the summary's), not
 * the recommendation's grade of its ruleset score.
 */
export function mapSharedDeal(deal: Deal): SharedDealDto {
  const detail = mapDealDetail(deal);
  const rec = detail.recommendation;
  return {
    id: deal.id,
    business_name: deal.businessName,
    dba_name: deal.dbaName,
    industry: deal.industry,
    entity_type: deal.entityType,
    health_score: detail.health?.score ?? deal.healthScore,
    paper_grade: detail.health?.grade ?? deal.healthGrade,
    decision: deal.decision,
    recommendation: rec?.decision ?? null,
    warnings: deal.status === 'ready' ? reliabilityWarnings(deal.analysis) : [],
    avg_monthly_deposits: detail.financials?.avg_monthly_deposits ?? deal.avgMonthlyDeposits,
    avg_daily_balance: detail.financials?.avg_daily_balance ?? deal.avgDailyBalance,
    ending_balance: detail.financials?.ending_balance ?? null,
    total_deposits: detail.financials?.total_deposits ?? null,
    months_covered: detail.coverage?.months_covered ?? null,
    nsf_count: detail.nsf_overdraft?.total_nsf_fees ?? null,
    ai_summary: detail.ai_summary,
    funding_amount_requested: deal.fundingAmountRequested,
    max_advance: rec?.max_advance ?? null,
    report_date: detail.report_date,
  };
}

export function mapShareView(link: ShareLink, deal: Deal): ShareViewDto {
  return {
    token: link.token,
    deal: mapSharedDeal(deal),
    expires_at: link.expiresAt?.toISOString() ?? null,
    shared_at: link.createdAt.toISOString(),
  };
}
