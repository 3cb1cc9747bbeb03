import { reliabilityWarnings } from '@ledgerlens/underwriting';
import type { DealRecord } from '../pipeline/records';
import { mapDealDetail } from '../pipeline/mappers/deals.mapper';
import { isActive, ShareLink } from './shares.entities';
import type { AffordabilityDto, LenderPositionsDto, OwnTransfersDto, RevenueTableDto, RevenueTotalsDto } from '../pipeline/dto/report.dto';
import {
  SharedDealDto,
  SharedOwnTransfersDto,
  SharedPositionsDto,
  SharedRevenueDto,
  SharedRevenueRowDto,
  ShareLinkDto,
  ShareViewDto,
} from './dto/share.dto';

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
export function mapSharedDeal(deal: DealRecord): SharedDealDto {
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
    lender_positions: sharedPositions(detail.lender_positions),
    revenue: sharedRevenue(detail.revenue),
    own_transfers: sharedOwnTransfers(detail.own_transfers),
    affordability: sharedAffordability(detail.affordability),
  };
}

// The underwriting tables, field by field as well: no evidence rows, account numbers or descriptions.

function sharedPositions(p: LenderPositionsDto | null): SharedPositionsDto | null {
  if (!p) return null;
  return {
    positions: p.positions.map((x) => ({
      lender: x.lender_name ?? x.counterparty,
      known_lender: x.known_lender,
      frequency: x.frequency,
      payment_amount: x.payment_amount,
      first_seen: x.first_seen,
      last_seen: x.last_seen,
      funding_amount: x.funding_amount,
      estimated_remaining_balance: x.estimated_remaining_balance,
      start_reason: x.start_reason,
      missed_payments: x.missed_payments,
      bounced_payments: x.bounced_payments,
      stacked: x.stacked,
      is_active: x.is_active,
    })),
    active_count: p.active_count,
    stacking_count: p.stacking_count,
    estimated_monthly_total: p.estimated_monthly_total,
  };
}

function revenueRow(r: RevenueTotalsDto): SharedRevenueRowDto {
  const e = r.excluded;
  return {
    gross_deposits: r.gross_deposits,
    excluded: {
      transfer: e.transfer,
      loan_proceeds: e.loan_proceeds,
      refund: e.refund,
      owner_injection: e.owner_injection,
      other_non_revenue: e.other_non_revenue,
    },
    excluded_total: r.excluded_total,
    true_revenue: r.true_revenue,
    cash_deposits: r.cash_deposits,
  };
}

function sharedRevenue(r: RevenueTableDto | null): SharedRevenueDto | null {
  if (!r) return null;
  return { months: r.months.map((m) => ({ month: m.month, ...revenueRow(m) })), totals: revenueRow(r.totals) };
}

function sharedOwnTransfers(t: OwnTransfersDto | null): SharedOwnTransfersDto | null {
  return t ? { count: t.count, total: t.total } : null;
}

function sharedAffordability(a: AffordabilityDto | null): AffordabilityDto | null {
  if (!a) return null;
  return {
    monthly_revenue: a.monthly_revenue,
    existing_monthly_debits: a.existing_monthly_debits,
    active_position_count: a.active_position_count,
    existing_holdback: a.existing_holdback,
    max_total_holdback: a.max_total_holdback,
    factor_rate: a.factor_rate,
    term_months: a.term_months,
    monthly_headroom: a.monthly_headroom,
    max_payback: a.max_payback,
    max_advance: a.max_advance,
    steps: [...a.steps],
  };
}

export function mapShareView(link: ShareLink, deal: DealRecord): ShareViewDto {
  return {
    token: link.token,
    deal: mapSharedDeal(deal),
    expires_at: link.expiresAt?.toISOString() ?? null,
    shared_at: link.createdAt.toISOString(),
  };
}
