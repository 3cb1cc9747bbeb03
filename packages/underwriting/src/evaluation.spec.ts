import { assemble, daysInMonth, ymd } from './__fixtures__/helpers';
import type { DealAnalysis } from './deal';
import { evaluateRuleset, type RulesetDefinition } from './evaluation';
import { buildDealReport, type ReportDocumentInput } from './report';
import { DEFAULT_RULESET } from './ruleset';

/**
 * The holds of `evaluateRuleset`: what the numbers or the reading refuse is never approved by the
 * score. Each rule on its own, on the default ruleset and on a factor-list ruleset.
 */

const FLAT: RulesetDefinition = { id: 1, name: 'Default', kind: 'flat', definition: { ...DEFAULT_RULESET } };
const FACTORS: RulesetDefinition = {
  id: 2,
  name: 'Factor list',
  kind: 'factors',
  definition: {
    factors: [
      { name: 'revenue_stability', weight: 0.5, threshold: 0 },
      { name: 'negative_days', weight: 0.5, threshold: 0 },
    ],
    approval_threshold: 60,
    decline_threshold: 30,
  },
};
const RULESETS: [string, RulesetDefinition][] = [
  ['default ruleset', FLAT],
  ['factor-list ruleset', FACTORS],
];

/** Three steady months of card revenue, reconciled and read with confidence: both rulesets approve it. */
function statements(): ReportDocumentInput[] {
  return assemble(
    [1, 2, 3].map((month) => {
      const transactions = [];
      for (let d = 1; d <= daysInMonth(2024, month); d++) {
        const wd = new Date(Date.UTC(2024, month - 1, d)).getUTCDay();
        if (wd !== 0 && wd !== 6) transactions.push({ date: ymd(2024, month, d), description: 'SQUARE INC DEPOSIT', amount: 2000 });
      }
      transactions.push({ date: ymd(2024, month, 5), description: 'ACME PROPERTIES RENT', amount: -6000 });
      return { year: 2024, month, transactions };
    }),
    20000,
  ).map((s, i) => ({
    ...s,
    id: i + 1,
    filename: `month-${i + 1}.pdf`,
    documentType: 'bank_statement',
    status: 'completed',
    riskLevel: 'low' as const,
    reconciled: true,
    needsReview: false,
    extractionConfidence: 0.95,
  }));
}

const analysisOf = (docs = statements()): DealAnalysis =>
  buildDealReport({ documents: docs, fundingAmountRequested: 20000, reportDate: '2024-04-01' }).analysis!;

/** The same deal with one figure changed (the evaluation reads only the analysis). */
const withCashFlow = (a: DealAnalysis, cfcr: number): DealAnalysis => ({ ...a, cash_flow: { ...a.cash_flow, cfcr } });
const withNetCashFlow = (a: DealAnalysis, net: number): DealAnalysis => ({ ...a, financials: { ...a.financials, net_cash_flow: net } });

describe('evaluateRuleset holds', () => {
  const clean = analysisOf();

  it.each(RULESETS)('the clean deal is approved with a max advance (%s)', (_, ruleset) => {
    const e = evaluateRuleset(clean, ruleset);
    expect(e).toMatchObject({ decision: 'approve', max_advance: expect.any(Number), cfcr_below_target: false });
    expect(e.reasons[0]).toMatch(/^Approve: /);
  });

  describe('a cash flow coverage ratio below the minimum forces review', () => {
    it.each(RULESETS)('%s: approve -> review, no max advance, the ratio named first', (_, ruleset) => {
      const e = evaluateRuleset(withCashFlow(clean, -0.84), ruleset);
      expect(e.decision).toBe('review');
      expect(e.max_advance).toBeNull();
      expect(e.reasons[0]).toBe('Review: the score supports approval, but the cash flow coverage ratio -0.84 is below the minimum 1.25');
      expect(e.reasons[1]).toMatch(/^Cash flow coverage ratio -0\.84 is below the target 1\.25: /);
      // named once, not again at the end
      expect(e.reasons.filter((r) => r.startsWith('Cash flow coverage ratio'))).toHaveLength(1);
    });

    it("the default ruleset's own minimum is the one applied (cfcr_target)", () => {
      const strict: RulesetDefinition = { ...FLAT, definition: { ...DEFAULT_RULESET, cfcr_target: 3 } };
      const e = evaluateRuleset(withCashFlow(clean, 2.5), strict);
      expect(e.decision).toBe('review');
      expect(e.reasons[0]).toBe('Review: the score supports approval, but the cash flow coverage ratio 2.5 is below the minimum 3');
      expect(evaluateRuleset(withCashFlow(clean, 2.5), FLAT).decision).toBe('approve');
    });

    it('a decline stays a decline, the ratio named right after the decision', () => {
      const e = evaluateRuleset(withCashFlow(clean, 0.5), { ...FLAT, definition: { ...DEFAULT_RULESET, approve_threshold: 100 } });
      expect(e.decision).toBe('decline');
      expect(e.reasons[0]).toMatch(/^Decline: /);
      expect(e.reasons[1]).toMatch(/^Cash flow coverage ratio 0\.5 is below the target 1\.25/);
    });
  });

  describe('a negative net cash flow forces review', () => {
    it.each(RULESETS)('%s: approve -> review, no max advance, the net cash flow named first', (_, ruleset) => {
      const e = evaluateRuleset(withNetCashFlow(clean, -5277.39), ruleset);
      expect(e.decision).toBe('review');
      expect(e.max_advance).toBeNull();
      expect(e.reasons[0]).toBe('Review: the score supports approval, but the net cash flow is negative (-$5,277.39)');
      expect(e.reasons[1]).toMatch(
        /^Net cash flow -\$5,277\.39: withdrawals of \$[\d,.]+ exceed deposits of \$[\d,.]+ over the statements$/,
      );
    });

    it('both figures at once are both named in the first reason', () => {
      const e = evaluateRuleset(withNetCashFlow(withCashFlow(clean, -0.84), -100), FLAT);
      expect(e.reasons[0]).toBe(
        'Review: the score supports approval, but the cash flow coverage ratio -0.84 is below the minimum 1.25; the net cash flow is negative (-$100.00)',
      );
    });
  });

  describe('an unreconciled statement forces review, never approve or decline', () => {
    const unreconciled = () => {
      const docs = statements();
      docs[1] = {
        ...docs[1],
        reconciled: false,
        needsReview: true,
        reviewReasons: [
          'does not reconcile: opening 1000.00 + credits 5000.00 - debits 4000.00 = 2000.00, printed closing 61673.00 (difference 59673.00)',
        ],
      };
      return analysisOf(docs);
    };
    const FIRST =
      'Review: statement month-2.pdf failed reconciliation (does not reconcile: opening 1000.00 + credits 5000.00 - debits 4000.00 = 2000.00, printed closing 61673.00 (difference 59673.00)). No approve or decline is given on figures read from this statement until it is checked or corrected';

    it.each(RULESETS)('%s: an approve becomes review, the statement and its failed check named first', (_, ruleset) => {
      const e = evaluateRuleset(unreconciled(), ruleset);
      expect(e.decision).toBe('review');
      expect(e.max_advance).toBeNull();
      expect(e.reasons[0]).toBe(FIRST);
      expect(e.reasons[1]).toMatch(/^By the score alone, approve: total score /);
    });

    it.each<[string, RulesetDefinition]>([
      ['default ruleset', { ...FLAT, definition: { ...DEFAULT_RULESET, approve_threshold: 100 } }],
      ['factor-list ruleset', { ...FACTORS, definition: { ...FACTORS.definition, approval_threshold: 100, decline_threshold: 99 } }],
    ])('%s: a decline becomes review too', (_, ruleset) => {
      expect(evaluateRuleset(analysisOf(), ruleset).decision).toBe('decline');
      const e = evaluateRuleset(unreconciled(), ruleset);
      expect(e.decision).toBe('review');
      expect(e.reasons[0]).toBe(FIRST);
      expect(e.reasons[1]).toMatch(/^By the score alone, decline: total score /);
    });

    it('a statement reported unreconciled without the parser saying why is still named, with the failed check', () => {
      const docs = statements();
      docs[2] = { ...docs[2], reconciled: false };
      const e = evaluateRuleset(analysisOf(docs), FLAT);
      expect(e.decision).toBe('review');
      expect(e.reasons[0]).toMatch(/^Review: statement month-3\.pdf failed reconciliation \(balances do not reconcile\)\. /);
    });
  });

  describe('a statement the parser marked for review forces review', () => {
    it.each(RULESETS)('%s: the statement and what needs checking named first', (_, ruleset) => {
      const docs = statements();
      docs[0] = { ...docs[0], needsReview: true, reviewReasons: ['dated after it was received: the statement period ends 2024-02-01'] };
      const e = evaluateRuleset(analysisOf(docs), ruleset);
      expect(e.decision).toBe('review');
      expect(e.max_advance).toBeNull();
      expect(e.reasons[0]).toBe(
        'Review: statement month-1.pdf needs review (dated after it was received: the statement period ends 2024-02-01). No approve or decline is given on figures read from this statement until it is checked or corrected',
      );
    });
  });
});
