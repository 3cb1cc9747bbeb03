import {
  buildDealReport,
  DEFAULT_RULESET,
  evaluateRuleset,
  summaryFacts,
  templateSummary,
  type ReportDocumentInput,
  type StatementTransactionInput,
} from '@ledgerlens/underwriting';
import { Rng } from '../corpus/rng';

/**
 * A deal of N monthly statements as the pipeline leaves it, for the PDF report's benchmark and
 * the sample reports under docs/. `strong`: steady card revenue. `weak`: thin revenue, fees, two
 * lender debits, a stretch of negative balances and a few large odd deposits.
 */
export type SampleProfile = 'strong' | 'weak';

const pad = (n: number) => String(n).padStart(2, '0');
const cents = (n: number) => Math.round(n * 100) / 100;

export function sampleDocuments(profile: SampleProfile, months = 12, seed = 11): ReportDocumentInput[] {
  const rng = new Rng(seed);
  const rand = () => rng.next();
  let balance = profile === 'strong' ? 24000 : 2600;
  const docs: ReportDocumentInput[] = [];
  for (let m = 0; m < months; m++) {
    const year = 2025 + Math.floor(m / 12);
    const month = (m % 12) + 1;
    const days = new Date(Date.UTC(year, month, 0)).getUTCDate();
    const opening = cents(balance);
    const txs: StatementTransactionInput[] = [];
    const add = (day: number, description: string, amount: number) => {
      balance = cents(balance + amount);
      txs.push({ date: `${year}-${pad(month)}-${pad(day)}`, description, amount: cents(amount), balance });
    };
    const season = 1 + 0.18 * Math.sin((m / 12) * 2 * Math.PI);
    for (let day = 1; day <= days; day++) {
      const dow = new Date(Date.UTC(year, month - 1, day)).getUTCDay();
      if (dow === 0 || dow === 6) continue;
      if (profile === 'strong') {
        add(day, 'SQUARE INC DEPOSIT', (2100 + Math.round(rand() * 1100)) * season);
        if (dow === 2) add(day, 'STRIPE TRANSFER PAYOUT', 900 + Math.round(rand() * 500));
      } else {
        if (dow !== 3) add(day, 'STRIPE TRANSFER PAYOUT', (380 + Math.round(rand() * 260)) * season);
        add(day, 'ONDECK CAPITAL DAILY PMT', -95);
        if (m >= 6) add(day, 'KAPITUS ACH DEBIT', -65);
      }
      if (dow === 5) add(day, 'GUSTO PAYROLL', profile === 'strong' ? -7400 : -1150);
    }
    add(2, 'ACME PROPERTIES RENT', profile === 'strong' ? -5200 : -1900);
    add(12, 'CITY UTILITIES', -(340 + Math.round(rand() * 120)));
    add(18, 'AMERICAN EXPRESS PMT', -(profile === 'strong' ? 2400 : 600));
    if (profile === 'weak') {
      if (m % 3 === 1) add(15, 'NSF FEE RETURNED ITEM', -36);
      if (m % 4 === 2) add(22, 'OVERDRAFT FEE', -35);
      if (m === 4) add(9, 'CASH DEPOSIT BRANCH', 9000);
      if (m === 8) add(11, 'WIRE IN ZELLE FROM J SMITH', 7500);
    }
    txs.sort((a, b) => a.date.localeCompare(b.date));
    docs.push({
      id: m + 1,
      filename: `statement-${year}-${pad(month)}.pdf`,
      documentType: 'bank_statement',
      status: 'completed',
      bankName: 'First Harbor Bank',
      accountNumberLast4: '4821',
      accountHolder: profile === 'strong' ? 'Harbor Coffee Roasters LLC' : 'Eastside Auto Repair Inc',
      periodStart: `${year}-${pad(month)}-01`,
      periodEnd: `${year}-${pad(month)}-${pad(days)}`,
      openingBalance: opening,
      closingBalance: cents(balance),
      currency: 'USD',
      riskLevel: profile === 'weak' && m === 8 ? 'medium' : 'low',
      riskReasons: profile === 'weak' && m === 8 ? ['the PDF was modified after it was created'] : [],
      reconciled: true,
      extractionConfidence: profile === 'weak' && m === 10 ? 0.72 : 0.97,
      transactions: txs,
    });
  }
  return docs;
}

/** The PDF renderer's input for a sample deal: what GET /deals/{id} and /recommendation would serve. */
export function sampleReportInput(profile: SampleProfile, months = 12) {
  const business = profile === 'strong' ? 'Harbor Coffee Roasters LLC' : 'Eastside Auto Repair Inc';
  const funding = profile === 'strong' ? 85000 : 60000;
  const documents = sampleDocuments(profile, months);
  const { report, analysis } = buildDealReport({ documents, fundingAmountRequested: funding, reportDate: '2026-01-05' });
  const evaluation = evaluateRuleset(analysis!, { id: 1, name: 'Default', kind: 'flat', definition: { ...DEFAULT_RULESET } });
  const industry = profile === 'strong' ? 'Coffee roaster and cafés' : 'Automotive repair';
  const ai_summary = templateSummary(
    summaryFacts({ business_name: business, industry, funding_amount_requested: funding }, report as never, analysis),
  );
  const now = '2026-01-05T14:00:00.000Z';
  const deal = {
    id: profile === 'strong' ? 1042 : 1043,
    business_name: business,
    dba_name: profile === 'strong' ? 'Harbor Coffee' : null,
    owner_name: profile === 'strong' ? 'Maya Lindqvist' : 'Carlos Ortega',
    industry,
    entity_type: profile === 'strong' ? 'llc' : 'corp',
    source_type: 'broker',
    ein: '123456789',
    status: 'ready',
    document_count: documents.length,
    health_score: analysis!.health.score,
    health_grade: analysis!.health.grade,
    avg_monthly_deposits: analysis!.financials.avg_monthly_deposits,
    avg_daily_balance: analysis!.financials.avg_daily_balance,
    funding_amount_requested: funding,
    screening_flags: analysis!.screening.total_flags,
    decision: null,
    decided_at: null,
    mode: 'live',
    created_at: now,
    updated_at: now,
    business: {
      id: profile === 'strong' ? 1042 : 1043,
      business_name: business,
      dba_name: profile === 'strong' ? 'Harbor Coffee' : null,
      owner_name: profile === 'strong' ? 'Maya Lindqvist' : 'Carlos Ortega',
      status: 'ready',
      entity_type: profile === 'strong' ? 'llc' : 'corp',
      ein: '123456789',
      industry,
      source_type: 'broker',
    },
    ...report,
    ai_summary,
    recommendation: {
      decision: evaluation.decision,
      total_score: evaluation.total_score,
      max_advance: evaluation.max_advance,
      cfcr: evaluation.cfcr,
      ruleset_name: evaluation.ruleset_name,
      ruleset_id: evaluation.ruleset_id,
      grade: evaluation.grade,
      reasons: evaluation.reasons,
    },
  };
  const flaggedAll = analysis!.transactions
    .filter((t) => t.screening_bucket)
    .map((t, i) => ({
      id: i + 1,
      date: t.date,
      description: t.description,
      amount: t.amount,
      screening_bucket: t.screening_bucket!,
      flag_reason: t.flag_reason,
    }));
  return {
    deal,
    recommendation: { ...evaluation, deal_id: deal.id, generated_at: now, cached: false },
    flagged: flaggedAll,
    flaggedTotal: flaggedAll.length,
    generatedAt: new Date(now),
  };
}
