import type { DealAnalysis } from '@ledgerlens/underwriting';
import { Deal } from '../deals/deals.entities';

/** The analysis as stored on the deal: without the per-transaction arrays and daily series. */
export function storedAnalysis(analysis: DealAnalysis): Record<string, unknown> {
  const { transactions: _transactions, statements, ...rest } = analysis;
  return { ...rest, statements: statements.map(({ daily_balances: _daily, ...s }) => s) };
}

/**
 * Writes an analysis onto the deal: the report sections of spec "Deal report" (the
 * recommendation and the AI summary are added by their own services) and the summary columns.
 */
export function applyAnalysis(deal: Deal, analysis: DealAnalysis, reportDate: string): void {
  const f = analysis.financials;
  deal.healthScore = analysis.health.score;
  deal.healthGrade = analysis.health.grade;
  deal.avgMonthlyDeposits = f.avg_monthly_deposits;
  deal.avgDailyBalance = f.avg_daily_balance;
  deal.screeningFlags = analysis.screening.total_flags;
  deal.analysis = storedAnalysis(analysis);
  deal.report = {
    report_date: reportDate,
    ai_summary: null,
    coverage: { months_covered: analysis.coverage.months_covered, days_covered: analysis.coverage.days_covered, statement_count: analysis.coverage.statement_count },
    financials: {
      avg_monthly_deposits: f.avg_monthly_deposits,
      avg_daily_balance: f.avg_daily_balance,
      ending_balance: f.ending_balance,
      total_deposits: f.total_deposits,
      total_withdrawals: f.total_withdrawals,
      deposit_frequency_per_month: f.deposit_frequency_per_month,
    },
    nsf_overdraft: {
      total_nsf_fees: analysis.nsf_overdraft.total_nsf_fees,
      total_overdraft_fees: analysis.nsf_overdraft.total_overdraft_fees,
      nsf_months: analysis.nsf_overdraft.nsf_months,
    },
    screening: { total_flags: analysis.screening.total_flags, buckets: analysis.screening.buckets },
    health: { score: analysis.health.score, grade: analysis.health.grade, factors: analysis.health.factors },
    recommendation: null,
  };
}
