import { statement, tx } from './__fixtures__/helpers';
import { buildDealReport, type ReportDocumentInput } from './report';
import { REPORT_VERSION, storedReport, upgradeStoredReport, type StoredDealReport } from './stored-report';

const doc: ReportDocumentInput = {
  ...statement({
    periodStart: '2024-06-01',
    periodEnd: '2024-06-04',
    openingBalance: 100,
    closingBalance: 1100,
    transactions: [tx('2024-06-02', 'SQUARE INC DEPOSIT', 1000, 1100)],
  }),
  id: 7,
  filename: 'june.pdf',
  documentType: 'bank_statement',
  status: 'completed',
  riskLevel: 'low',
  reconciled: true,
};
const { report } = buildDealReport({ documents: [doc], fundingAmountRequested: 5000, reportDate: '2024-06-05' });
const recommendation = {
  decision: 'approve' as const,
  total_score: 70,
  max_advance: 4000,
  cfcr: 2,
  ruleset_name: 'Default',
  ruleset_id: 1,
  grade: 'B' as const,
  reasons: ['Approve: total score 70 is at or above the approval threshold 60'],
};

describe('storedReport', () => {
  it('stamps the current version and leaves the recommendation to come', () => {
    const stored = storedReport(report);
    expect(stored).toEqual({ ...report, report_version: REPORT_VERSION, recommendation: null });
    expect(REPORT_VERSION).toBe(2);
  });
});

describe('upgradeStoredReport', () => {
  it('returns a current report as it is', () => {
    const stored: StoredDealReport = { ...storedReport(report), recommendation, inputs_key: 'v2|7:1:completed|c0' };
    expect(upgradeStoredReport(stored)).toBe(stored);
  });

  it('reads a complete report stored before versioning (no report_version) as the current version, unchanged', () => {
    // what servers wrote before report_version: the report, its recommendation, the scoring key and the summary's meta
    const meta = { event_id: 'e1', source: 'template' as const, model: null, generated_at: '2024-06-05T00:00:00.000Z' };
    const v0: Record<string, unknown> = JSON.parse(
      JSON.stringify({ ...report, recommendation, inputs_key: 'v2|7:1:completed|c0', ai_summary_meta: meta }),
    );
    expect(v0.report_version).toBeUndefined();
    expect(upgradeStoredReport(v0)).toEqual({
      ...report,
      report_version: REPORT_VERSION,
      recommendation,
      inputs_key: 'v2|7:1:completed|c0',
      ai_summary_meta: meta,
    });
  });

  it('reads an early report: absent sections null, absent lists empty, coverage without its period, a recommendation without reasons', () => {
    const early = {
      report_date: '2024-06-05',
      ai_summary: null,
      coverage: { months_covered: 0.13, days_covered: 4, statement_count: 1 },
      financials: report.financials,
      nsf_overdraft: report.nsf_overdraft,
      screening: report.screening,
      health: report.health,
      statements: report.statements,
      recommendation: { ...recommendation, reasons: undefined },
    };
    expect(upgradeStoredReport(JSON.parse(JSON.stringify(early)))).toEqual({
      report_version: REPORT_VERSION,
      report_date: '2024-06-05',
      ai_summary: null,
      coverage: { months_covered: 0.13, days_covered: 4, statement_count: 1, period_start: null, period_end: null },
      financials: report.financials,
      nsf_overdraft: report.nsf_overdraft,
      screening: report.screening,
      health: report.health,
      authenticity: null,
      review: null,
      currency: null,
      statements: report.statements,
      monthly: [],
      daily_balances: [],
      lender_positions: null,
      accounts: [],
      staleness: null,
      own_transfers: null,
      affordability: null,
      nsf_events: [],
      revenue_sources: [],
      revenue: null,
      cross_doc: null,
      related_deals: [],
      recommendation: { ...recommendation, reasons: [] },
    });
  });

  it('reads a version-1 report: the version-2 sections null (not computed then), accounts empty, no statement stale', () => {
    const { accounts: _a, staleness: _s, own_transfers: _t, affordability: _f, revenue: _r, ...v1Sections } = report;
    const v1 = JSON.parse(
      JSON.stringify({
        ...v1Sections,
        statements: report.statements.map(({ stale: _x, ...row }) => row),
        report_version: 1,
        recommendation,
      }),
    );
    expect(upgradeStoredReport(v1)).toEqual({
      ...report,
      report_version: REPORT_VERSION,
      recommendation,
      accounts: [],
      staleness: null,
      own_transfers: null,
      affordability: null,
      revenue: null,
    });
    expect(report.accounts).toHaveLength(1);
    expect(report.statements[0].stale).toBe(false);
  });

  it('reads version-1 lender positions with the fields added since as not computed', () => {
    const v1Position = {
      counterparty: 'ondeck',
      known_lender: true,
      frequency: 'daily',
      payment_amount: 300,
      payment_count: 20,
      total_paid: 6000,
      first_seen: '2024-06-03',
      last_seen: '2024-06-28',
      estimated_monthly_total: 6525,
      estimated_daily_debit: 300,
      estimated_weekly_debit: 1505.77,
      share_of_deposits: 0.2,
      is_active: true,
    };
    const lp = { positions: [v1Position], position_count: 1, active_count: 1, stacking_count: 1, estimated_monthly_total: 6525 };
    const v1 = JSON.parse(JSON.stringify({ ...storedReport(report), report_version: 1, lender_positions: lp }));
    const up = upgradeStoredReport(v1);
    expect(up?.report_version).toBe(2);
    expect(up?.lender_positions).toEqual({
      ...lp,
      directory_version: null,
      factor_rate: null,
      factor_rate_source: null,
      positions: [
        {
          ...v1Position,
          lender_id: null,
          lender_name: null,
          lender_kind: null,
          sequence: 1,
          start_reason: 'new',
          funding_amount: null,
          funding_date: null,
          estimated_payback: null,
          estimated_remaining_balance: null,
          missed_payments: null,
          bounced_payments: null,
          stacked: null,
          transactions: [],
        },
      ],
    });
  });

  it('is null for what is not a report', () => {
    expect(upgradeStoredReport(null)).toBeNull();
    expect(upgradeStoredReport('report')).toBeNull();
    expect(upgradeStoredReport([])).toBeNull();
  });
});
