import { assemble, daysInMonth, statement, tx, ymd } from './__fixtures__/helpers';
import { analyzeDeal, reportingCurrency } from './deal';
import { evaluateRuleset, type RulesetDefinition } from './evaluation';
import { buildDealReport, type ReportDocumentInput } from './report';
import { DEFAULT_RULESET } from './ruleset';
import { summaryFacts, templateSummary, ungroundedNumbers } from './summary';

describe('analyzeDeal: report sections checked by hand', () => {
  // 2024-06-01..04, opening 100: +1000 Square on the 2nd, NSF fee 35 and rent 500 on the 3rd.
  // End-of-day balances: 100, 1100, 565, 565.
  const a = analyzeDeal({
    statements: [
      statement({
        id: 'a',
        periodStart: '2024-06-01',
        periodEnd: '2024-06-04',
        openingBalance: 100,
        closingBalance: 565,
        transactions: [
          tx('2024-06-02', 'SQUARE INC DEPOSIT', 1000, 1100),
          tx('2024-06-03', 'NSF FEE', -35, 1065),
          tx('2024-06-03', 'RENT PAYMENT', -500, 565),
        ],
      }),
    ],
    fundingAmountRequested: 5000,
  });

  it('daily balance series: one end-of-day balance per covered day', () => {
    expect(a.daily_balances).toEqual([
      { date: '2024-06-01', balance: 100 },
      { date: '2024-06-02', balance: 1100 },
      { date: '2024-06-03', balance: 565 },
      { date: '2024-06-04', balance: 565 },
    ]);
  });

  it('monthly table: deposits, revenue, withdrawals, NSF count, ending and average balance', () => {
    expect(a.monthly).toHaveLength(1);
    expect(a.monthly[0]).toMatchObject({
      month: '2024-06',
      days_covered: 4,
      deposits: 1000,
      revenue: 1000,
      withdrawals: 535,
      nsf_count: 1,
      overdraft_count: 0,
      ending_balance: 565,
      avg_daily_balance: 582.5, // (100 + 1100 + 565 + 565) / 4
    });
  });

  it('NSF/overdraft list and revenue by counterparty', () => {
    expect(a.nsf_events).toEqual([{ date: '2024-06-03', description: 'NSF FEE', amount: -35, type: 'nsf', statement_id: 'a' }]);
    expect(a.revenue_sources).toEqual([
      {
        counterparty: 'square deposit',
        total: 1000,
        deposit_count: 1,
        share_of_revenue: 1,
        first_seen: '2024-06-02',
        last_seen: '2024-06-02',
      },
    ]);
  });

  it('month balances split at month ends, and several months keep their own figures', () => {
    const sts = assemble(
      [
        { year: 2024, month: 1, transactions: [{ date: '2024-01-10', description: 'SQUARE INC DEPOSIT', amount: 3100 }] },
        { year: 2024, month: 2, transactions: [{ date: '2024-02-10', description: 'SYSCO FOODS', amount: -1000 }] },
      ],
      0,
    );
    const m = analyzeDeal({ statements: sts, fundingAmountRequested: 1000 }).monthly;
    // January: 0 for 9 days, 3100 for 22 days; February: 3100 for 9 days, 2100 for 20 days
    expect(m.map((x) => [x.month, x.ending_balance, x.avg_daily_balance, x.withdrawals])).toEqual([
      ['2024-01', 3100, 2200, 0], // 3100 x 22 / 31
      ['2024-02', 2100, 2410.34, 1000], // (3100 x 9 + 2100 x 20) / 29 = 69900 / 29
    ]);
  });
});

describe('currencies', () => {
  const nzd = statement({
    id: 'nzd',
    periodStart: '2024-06-01',
    periodEnd: '2024-06-30',
    openingBalance: 0,
    closingBalance: 5000,
    currency: 'NZD',
    accountNumberLast4: '2222',
    transactions: [tx('2024-06-02', 'EFTPOS SETTLEMENT', 5000, 5000)],
  });

  it('reporting currency: the most common, a tie goes to USD, then alphabetical; USD when none is known', () => {
    expect(reportingCurrency([])).toBe('USD');
    expect(reportingCurrency([{ currency: null }])).toBe('USD');
    expect(reportingCurrency([{ currency: 'NZD' }, { currency: 'NZD' }, { currency: 'USD' }])).toBe('NZD');
    expect(reportingCurrency([{ currency: 'NZD' }, { currency: 'USD' }])).toBe('USD');
    expect(reportingCurrency([{ currency: 'NZD' }, { currency: 'EUR' }])).toBe('EUR');
  });

  it('a statement in another currency is not summed and is a cross_doc finding', () => {
    const usd = statement({
      id: 'usd',
      periodStart: '2024-06-01',
      periodEnd: '2024-06-30',
      openingBalance: 0,
      closingBalance: 1000,
      currency: 'USD',
      accountNumberLast4: '1111',
      transactions: [tx('2024-06-02', 'SQUARE INC DEPOSIT', 1000, 1000)],
    });
    const a = analyzeDeal({ statements: [usd, nzd], fundingAmountRequested: 1000 });
    expect(a.financials.total_deposits).toBe(1000);
    expect(a.financials.ending_balance).toBe(1000);
    expect(a.coverage.statement_count).toBe(1);
    expect(a.currency).toEqual({
      reporting_currency: 'USD',
      currencies: ['NZD', 'USD'],
      excluded_statement_ids: ['nzd'],
      unstated_statement_ids: [],
    });
    expect(a.cross_doc.findings).toEqual([
      {
        type: 'currency_mismatch',
        severity: 'error',
        message:
          "statement nzd (2024-06-01..2024-06-30) is in NZD, the deal is reported in USD: its amounts are not added to the deal's figures",
        statements: [1],
        statement_ids: ['nzd'],
        deduction: 20,
      },
    ]);
    expect(a.cross_doc.score).toBe(80);
    expect(a.factor_scores.cross_doc).toBe(80);
  });

  it('a statement naming no currency beside one naming it is counted in it and named, never silently', () => {
    const bare = statement({
      id: 'bare',
      periodStart: '2024-07-01',
      periodEnd: '2024-07-31',
      openingBalance: 5000,
      closingBalance: 6000,
      currency: null,
      accountNumberLast4: '2222',
      transactions: [tx('2024-07-02', 'EFTPOS SETTLEMENT', 1000, 6000)],
    });
    const a = analyzeDeal({ statements: [nzd, bare], fundingAmountRequested: 1000 });
    expect(a.currency).toEqual({
      reporting_currency: 'NZD',
      currencies: ['NZD'],
      excluded_statement_ids: [],
      unstated_statement_ids: ['bare'],
    });
    expect(a.financials.total_deposits).toBe(6000);
    const unstated = a.cross_doc.findings.filter((f) => f.type === 'currency_unstated');
    expect(unstated).toEqual([
      expect.objectContaining({
        severity: 'warning',
        statement_ids: ['bare'],
        deduction: 0,
        message: expect.stringMatching(/names no currency.*counted in NZD/),
      }),
    ]);
    // with no statement naming one, the deal is in the default and nothing is singled out
    const alone = analyzeDeal({ statements: [{ ...bare, id: 'alone' }], fundingAmountRequested: 1000 });
    expect(alone.cross_doc.findings.filter((f) => f.type === 'currency_unstated')).toEqual([]);
    expect(alone.currency.unstated_statement_ids).toEqual(['alone']);
  });
});

describe('coverage gaps between accounts', () => {
  const jan = statement({
    id: 1,
    accountNumberLast4: '1111',
    periodStart: '2024-01-01',
    periodEnd: '2024-01-31',
    transactions: [tx('2024-01-05', 'SQUARE', 100)],
  });
  const jul = statement({
    id: 2,
    accountNumberLast4: '2222',
    periodStart: '2024-07-01',
    periodEnd: '2024-07-31',
    transactions: [tx('2024-07-05', 'SQUARE', 100)],
  });

  it('days no statement covers lower cross_doc, whatever the account', () => {
    const a = analyzeDeal({ statements: [jan, jul], fundingAmountRequested: 1000, params: { lookbackMonths: 12 } });
    // February 29 + March 31 + April 30 + May 31 + June 30 = 151 days
    expect(a.cross_doc.findings).toEqual([
      {
        type: 'coverage_gap',
        severity: 'warning',
        message: 'no statement covers the 151 days between 2024-01-31 and 2024-07-01',
        statements: [0, 1],
        statement_ids: [1, 2],
        deduction: 10,
      },
    ]);
    expect(a.cross_doc.score).toBe(90);
  });

  it('accounts covering each other leave no gap', () => {
    const both = statement({ id: 3, accountNumberLast4: '2222', periodStart: '2024-01-15', periodEnd: '2024-07-10', transactions: [] });
    expect(
      analyzeDeal({ statements: [jan, jul, both], fundingAmountRequested: 1000, params: { lookbackMonths: 12 } }).cross_doc.findings.filter(
        (f) => f.type === 'coverage_gap',
      ),
    ).toEqual([]);
  });
});

const doc = (over: Partial<ReportDocumentInput> & Pick<ReportDocumentInput, 'id'>): ReportDocumentInput => ({
  filename: `doc-${over.id}.pdf`,
  documentType: 'bank_statement',
  status: 'completed',
  riskLevel: 'low',
  riskReasons: [],
  reconciled: true,
  extractionConfidence: 0.95,
  warnings: [],
  ...over,
});

/** Three steady months of card revenue: the default ruleset approves this deal. */
function strongMonths(): ReportDocumentInput[] {
  return assemble(
    [1, 2, 3].map((month) => {
      const txs = [];
      for (let d = 1; d <= daysInMonth(2024, month); d++) {
        const wd = new Date(Date.UTC(2024, month - 1, d)).getUTCDay();
        if (wd !== 0 && wd !== 6) txs.push({ date: ymd(2024, month, d), description: 'SQUARE INC DEPOSIT', amount: 2000 });
      }
      txs.push({ date: ymd(2024, month, 5), description: 'ACME PROPERTIES RENT', amount: -6000 });
      return { year: 2024, month, transactions: txs };
    }),
    20000,
  ).map((s, i) => doc({ ...s, id: i + 1, filename: `month-${i + 1}.pdf` }));
}

describe('buildDealReport', () => {
  it('authenticity: the highest document risk, named reasons, high-risk ids', () => {
    const { report } = buildDealReport({
      documents: [
        doc({
          id: 1,
          filename: 'june.pdf',
          riskLevel: 'high',
          riskReasons: ['produced or edited with an editing tool (iLovePDF)', 'modification date is after the creation date'],
          periodStart: '2024-06-01',
          periodEnd: '2024-06-30',
          transactions: [],
        }),
        doc({
          id: 2,
          filename: 'tax.pdf',
          documentType: 'tax_return',
          riskLevel: 'medium',
          riskReasons: ['file has 1 incremental update(s)'],
        }),
        doc({ id: 3, filename: 'broken.pdf', documentType: null, status: 'failed', error: 'corrupt: not a PDF', riskLevel: null }),
      ],
      fundingAmountRequested: 1000,
      reportDate: '2024-07-01',
    });
    expect(report.authenticity).toEqual({
      risk_level: 'high',
      reasons: [
        'june.pdf (high risk): produced or edited with an editing tool (iLovePDF)',
        'june.pdf (high risk): modification date is after the creation date',
        'tax.pdf (medium risk): file has 1 incremental update(s)',
      ],
      high_risk_document_ids: [1],
      documents: [
        {
          document_id: 1,
          filename: 'june.pdf',
          risk_level: 'high',
          reasons: ['produced or edited with an editing tool (iLovePDF)', 'modification date is after the creation date'],
        },
        { document_id: 2, filename: 'tax.pdf', risk_level: 'medium', reasons: ['file has 1 incremental update(s)'] },
      ],
    });
    expect(report.review).toEqual({
      needs_review_count: 3,
      documents: [
        { document_id: 1, filename: 'june.pdf', status: 'completed', reasons: ['high tampering risk'], warnings: [] },
        { document_id: 2, filename: 'tax.pdf', status: 'completed', reasons: ['medium tampering risk'], warnings: [] },
        { document_id: 3, filename: 'broken.pdf', status: 'failed', reasons: ['processing failed: corrupt: not a PDF'], warnings: [] },
      ],
    });
  });

  it("review: parse warnings, no reconciliation, low confidence, the parser's own verdict", () => {
    const { report } = buildDealReport({
      documents: [
        doc({
          id: 7,
          warnings: ['year assumed 2024 (no year printed)'],
          reconciled: false,
          extractionConfidence: 0.6,
          needsReview: true,
          reviewReasons: ['closing balance misprinted', 'balances do not reconcile'],
          transactions: [],
        }),
        doc({ id: 9, needsReview: true, transactions: [] }),
        doc({ id: 8, transactions: [] }),
      ],
      fundingAmountRequested: 1000,
      reportDate: '2024-07-01',
    });
    expect(report.review).toEqual({
      needs_review_count: 2,
      documents: [
        {
          document_id: 7,
          filename: 'doc-7.pdf',
          status: 'completed',
          // the parser's reasons first; one it shares with ours is listed once
          reasons: ['closing balance misprinted', 'balances do not reconcile', 'extraction confidence 0.6 is below 0.8', '1 parse warning'],
          warnings: ['year assumed 2024 (no year printed)'],
        },
        { document_id: 9, filename: 'doc-9.pdf', status: 'completed', reasons: ['the parser marked it for review'], warnings: [] },
      ],
    });
  });

  it('per-statement table, currency exclusion and related deals', () => {
    const { report, analysis } = buildDealReport({
      documents: [
        doc({
          id: 1,
          filename: 'usd.pdf',
          bankName: 'First Bank',
          accountNumberLast4: '1111',
          accountHolder: 'Acme LLC',
          periodStart: '2024-06-01',
          periodEnd: '2024-06-30',
          openingBalance: 0,
          closingBalance: 1000,
          currency: 'USD',
          transactions: [tx('2024-06-02', 'SQUARE INC DEPOSIT', 1000, 1000)],
        }),
        doc({
          id: 2,
          filename: 'nzd.pdf',
          bankName: 'Kiwi Bank',
          accountNumberLast4: '2222',
          periodStart: '2024-06-01',
          periodEnd: '2024-06-30',
          openingBalance: 0,
          closingBalance: 5000,
          currency: 'NZD',
          riskLevel: 'medium',
          reconciled: false,
          transactions: [tx('2024-06-02', 'EFTPOS', 5000, 5000)],
        }),
      ],
      fundingAmountRequested: 1000,
      reportDate: '2024-07-01',
      sightings: [{ kind: 'same_file', document_id: 1, other_deal_id: 40, other_business_name: 'Other Co', other_document_id: 77 }],
    });
    expect(report.statements).toEqual([
      {
        document_id: 1,
        filename: 'usd.pdf',
        bank_name: 'First Bank',
        account_number_last4: '1111',
        account_holder: 'Acme LLC',
        period_start: '2024-06-01',
        period_end: '2024-06-30',
        opening_balance: 0,
        closing_balance: 1000,
        currency: 'USD',
        reconciled: true,
        risk_level: 'low',
        transaction_count: 1,
        total_deposits: 1000,
        total_withdrawals: 0,
        included: true,
        stale: false,
      },
      {
        document_id: 2,
        filename: 'nzd.pdf',
        bank_name: 'Kiwi Bank',
        account_number_last4: '2222',
        account_holder: null,
        period_start: '2024-06-01',
        period_end: '2024-06-30',
        opening_balance: 0,
        closing_balance: 5000,
        currency: 'NZD',
        reconciled: false,
        risk_level: 'medium',
        transaction_count: 1,
        total_deposits: null,
        total_withdrawals: null,
        included: false,
        stale: false,
      },
    ]);
    expect(report.financials!.total_deposits).toBe(1000);
    expect(report.currency.excluded_statement_ids).toEqual([2]);
    expect(report.cross_doc.findings.map((f) => f.type)).toEqual(['currency_mismatch']);
    expect(analysis!.authenticity!.risk_level).toBe('medium');
    expect(report.related_deals).toEqual([
      {
        type: 'same_file',
        severity: 'error',
        message: 'usd.pdf is the same file as document 77 of deal 40 (Other Co)',
        document_id: 1,
        other_deal_id: 40,
        other_business_name: 'Other Co',
        other_document_id: 77,
      },
    ]);
  });

  it('without a completed bank statement: no analysis, empty sections', () => {
    const { report, analysis } = buildDealReport({
      documents: [doc({ id: 1, documentType: 'tax_return' })],
      fundingAmountRequested: 1000,
      reportDate: '2024-07-01',
    });
    expect(analysis).toBeNull();
    expect(report).toMatchObject({
      financials: null,
      statements: [],
      monthly: [],
      cross_doc: { score: 100, findings: [] },
      coverage: { statement_count: 0 },
    });
  });
});

describe('evaluateRuleset: a high-risk document is never approved silently', () => {
  const flat: RulesetDefinition = { id: 1, name: 'Default', kind: 'flat', definition: { ...DEFAULT_RULESET } };
  const factors: RulesetDefinition = {
    id: 2,
    name: 'Factors',
    kind: 'factors',
    definition: { factors: [{ name: 'revenue_stability', weight: 1, threshold: 0 }], approval_threshold: 10, decline_threshold: 5 },
  };

  it('the clean deal is approved', () => {
    const { analysis } = buildDealReport({ documents: strongMonths(), fundingAmountRequested: 20000, reportDate: '2024-04-01' });
    expect(evaluateRuleset(analysis!, flat)).toMatchObject({ decision: 'approve', max_advance: expect.any(Number) });
  });

  it.each([
    ['flat', flat],
    ['factor-list', factors],
  ])('the same deal with a high-risk statement is review, without max advance, the document named (%s ruleset)', (_, ruleset) => {
    const docs = strongMonths();
    docs[1] = { ...docs[1], riskLevel: 'high', riskReasons: ['produced or edited with an editing tool (iLovePDF)'] };
    const { analysis } = buildDealReport({ documents: docs, fundingAmountRequested: 20000, reportDate: '2024-04-01' });
    const e = evaluateRuleset(analysis!, ruleset);
    expect(e.decision).toBe('review');
    expect(e.max_advance).toBeNull();
    expect(e.reasons[0]).toBe('Review: the score supports approval, but a document is at high tampering risk');
    expect(e.reasons[1]).toBe(
      'Document authenticity: month-2.pdf has a high tampering risk (produced or edited with an editing tool (iLovePDF))',
    );
  });

  it('a decline stays a decline and still names the document', () => {
    const docs = strongMonths().map((d) => ({ ...d, riskLevel: 'high' as const, riskReasons: ['text drawn over images (3 words)'] }));
    const { analysis } = buildDealReport({ documents: docs, fundingAmountRequested: 20000, reportDate: '2024-04-01' });
    const e = evaluateRuleset(analysis!, { ...flat, definition: { ...DEFAULT_RULESET, approve_threshold: 100 } });
    expect(e.decision).toBe('decline');
    expect(e.reasons[0]).toMatch(/^Decline: /);
    expect(e.reasons[1]).toMatch(
      /^Document authenticity: month-1\.pdf has a high tampering risk \(text drawn over images \(3 words\)\); month-2\.pdf/,
    );
  });
});

describe('summary template and number grounding', () => {
  const { report, analysis } = buildDealReport({ documents: strongMonths(), fundingAmountRequested: 20000, reportDate: '2024-04-01' });
  const deal = { business_name: 'Acme LLC', industry: null, funding_amount_requested: 20000 };

  it('warns about a high-risk document and cites only grounded figures', () => {
    const risky = { ...report, authenticity: { ...report.authenticity, risk_level: 'high' as const, high_risk_document_ids: [2] } };
    const facts = summaryFacts(deal, risky as unknown as Record<string, unknown>, analysis);
    const text = templateSummary(facts);
    expect(text).toContain('Caution: 1 document shows signs of editing (high tampering risk)');
    expect(ungroundedNumbers(text, facts)).toEqual([]);
    expect(templateSummary(summaryFacts(deal, report as unknown as Record<string, unknown>, analysis))).not.toContain('Caution');
  });

  it('writes a negative amount with its sign before the dollar sign, and grounds it', () => {
    const facts = summaryFacts(deal, report as unknown as Record<string, unknown>, analysis);
    const negative = { ...facts, balances: { ...facts.balances!, ending_balance: -2677.39 } };
    const text = templateSummary(negative);
    expect(text).toContain('-$2,677.39');
    expect(text).not.toContain('$-');
    expect(ungroundedNumbers(text, negative)).toEqual([]);
  });

  it('flags a figure that is in no fact, accepts rounding, "k" and percentages of ratios', () => {
    const facts = summaryFacts(deal, report as unknown as Record<string, unknown>, analysis);
    const deposits = analysis!.financials.total_deposits;
    expect(ungroundedNumbers(`Deposits total ${deposits}.`, facts)).toEqual([]);
    expect(ungroundedNumbers('Revenue is a healthy $987,654 a month.', facts)).toEqual(['987,654']);
    expect(ungroundedNumbers('It requests 20k.', facts)).toEqual([]);
  });
});
