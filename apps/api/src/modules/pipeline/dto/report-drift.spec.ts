import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  buildDealReport,
  storedReport,
  type Authenticity,
  type BucketCounts,
  type Affordability,
  type CrossDocFinding,
  type CrossDocResult,
  type DealAccount,
  type OwnTransfer,
  type StaleStatement,
  type StalenessSummary,
  type TransferSide,
  type TransferSummary,
  type CurrencySummary,
  type DealAnalysis,
  type DocumentAuthenticity,
  type DocumentReview,
  type FeeEvent,
  type LenderPosition,
  type LenderPositionSummary,
  type PositionEvidence,
  type MonthSummary,
  type RelatedDealFinding,
  type ReportDocumentInput,
  type ReportRecommendation,
  type RevenueSource,
  type RevenueExclusions,
  type RevenueMonth,
  type RevenueTable,
  type ReviewSection,
  type StatementRow,
  type StoredDealReport,
} from '@ledgerlens/underwriting';
import { Deal } from '../entities/deal.entities';
import { mapDealDetail } from '../mappers/deals.mapper';
import type { DealDetailDto, DealSummaryDto } from './deal.dto';
import type {
  AffordabilityDto,
  DealAccountDto,
  OwnTransferDto,
  OwnTransfersDto,
  StaleStatementDto,
  StalenessDto,
  TransferSideDto,
  AuthenticityDto,
  CoverageDto,
  CrossDocDto,
  CrossDocFindingDto,
  CurrencySummaryDto,
  DailyBalanceDto,
  DocumentAuthenticityDto,
  DocumentReviewDto,
  FeeEventDto,
  FinancialsDto,
  HealthDto,
  HealthFactorsDto,
  LenderPositionDto,
  LenderPositionsDto,
  MonthSummaryDto,
  PositionEvidenceDto,
  NsfOverdraftDto,
  RelatedDealFindingDto,
  ReportRecommendationDto,
  RevenueSourceDto,
  RevenueExclusionsDto,
  RevenueMonthDto,
  RevenueTableDto,
  RevenueTotalsDto,
  ReviewDto,
  ScreeningBucketsDto,
  ScreeningDto,
  StatementRowDto,
} from './report.dto';

/**
 * The report DTOs (the OpenAPI schemas of GET /v1/deals/{id}) and the types of
 * @ledgerlens/underwriting (what the report is computed as) must not drift: a field added to one
 * and not the other fails here. Twice over: at compile time (tsc -p apps/api/tsconfig.spec.json),
 * each DTO has exactly the keys of its type and each is assignable to the other; at run time, every
 * object of a real report, served through the mapper, has exactly the properties its schema in
 * openapi/openapi.json documents (that file is kept equal to the decorators by `npm run openapi:check`).
 */

// ---- compile time
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** true when A and B have the same keys and each is assignable to the other */
type Mirrors<Dto, T> = Same<keyof Dto, keyof T> extends true ? Same<Dto, T> : false;

const mirrors: Record<string, true> = {
  ScreeningBucketsDto: true satisfies Mirrors<ScreeningBucketsDto, BucketCounts>,
  CoverageDto: true satisfies Mirrors<CoverageDto, DealAnalysis['coverage']>,
  FinancialsDto: true satisfies Mirrors<FinancialsDto, DealAnalysis['financials']>,
  NsfOverdraftDto: true satisfies Mirrors<NsfOverdraftDto, DealAnalysis['nsf_overdraft']>,
  ScreeningDto: true satisfies Mirrors<ScreeningDto, DealAnalysis['screening']>,
  HealthFactorsDto: true satisfies Mirrors<HealthFactorsDto, DealAnalysis['health']['factors']>,
  HealthDto: true satisfies Mirrors<HealthDto, DealAnalysis['health']>,
  ReportRecommendationDto: true satisfies Mirrors<ReportRecommendationDto, ReportRecommendation>,
  DocumentAuthenticityDto: true satisfies Mirrors<DocumentAuthenticityDto, DocumentAuthenticity>,
  AuthenticityDto: true satisfies Mirrors<AuthenticityDto, Authenticity>,
  DocumentReviewDto: true satisfies Mirrors<DocumentReviewDto, DocumentReview>,
  ReviewDto: true satisfies Mirrors<ReviewDto, ReviewSection>,
  CurrencySummaryDto: true satisfies Mirrors<CurrencySummaryDto, CurrencySummary>,
  StatementRowDto: true satisfies Mirrors<StatementRowDto, StatementRow>,
  MonthSummaryDto: true satisfies Mirrors<MonthSummaryDto, MonthSummary>,
  DailyBalanceDto: true satisfies Mirrors<DailyBalanceDto, DealAnalysis['daily_balances'][number]>,
  LenderPositionDto: true satisfies Mirrors<LenderPositionDto, LenderPosition>,
  LenderPositionsDto: true satisfies Mirrors<LenderPositionsDto, LenderPositionSummary>,
  PositionEvidenceDto: true satisfies Mirrors<PositionEvidenceDto, PositionEvidence>,
  FeeEventDto: true satisfies Mirrors<FeeEventDto, FeeEvent>,
  RevenueSourceDto: true satisfies Mirrors<RevenueSourceDto, RevenueSource>,
  RevenueExclusionsDto: true satisfies Mirrors<RevenueExclusionsDto, RevenueExclusions>,
  RevenueTotalsDto: true satisfies Mirrors<RevenueTotalsDto, RevenueTable['totals']>,
  RevenueMonthDto: true satisfies Mirrors<RevenueMonthDto, RevenueMonth>,
  RevenueTableDto: true satisfies Mirrors<RevenueTableDto, RevenueTable>,
  CrossDocFindingDto: true satisfies Mirrors<CrossDocFindingDto, CrossDocFinding>,
  CrossDocDto: true satisfies Mirrors<CrossDocDto, CrossDocResult>,
  RelatedDealFindingDto: true satisfies Mirrors<RelatedDealFindingDto, RelatedDealFinding>,
  DealAccountDto: true satisfies Mirrors<DealAccountDto, DealAccount>,
  StaleStatementDto: true satisfies Mirrors<StaleStatementDto, StaleStatement>,
  StalenessDto: true satisfies Mirrors<StalenessDto, StalenessSummary>,
  TransferSideDto: true satisfies Mirrors<TransferSideDto, TransferSide>,
  OwnTransferDto: true satisfies Mirrors<OwnTransferDto, OwnTransfer>,
  OwnTransfersDto: true satisfies Mirrors<OwnTransfersDto, TransferSummary>,
  AffordabilityDto: true satisfies Mirrors<AffordabilityDto, Affordability>,
};

/** The deal detail's report sections, and the stored report's sections (without the server's own metadata). */
type ServedSections = Omit<DealDetailDto, keyof DealSummaryDto | 'business'>;
type StoredSections = Omit<StoredDealReport, 'report_version' | 'ai_summary_meta' | 'inputs_key'>;
type Section<T, K extends keyof T> = NonNullable<T[K]>;
type SectionsMirror = {
  [K in keyof ServedSections & keyof StoredSections]: Mirrors<Section<ServedSections, K>, Section<StoredSections, K>>;
};
const sections: { keys: true; each: true } = {
  keys: true satisfies Same<keyof ServedSections, keyof StoredSections>,
  each: true satisfies Same<SectionsMirror[keyof SectionsMirror], true>,
};

// ---- run time
interface Schema {
  $ref?: string;
  allOf?: Schema[];
  oneOf?: Schema[];
  anyOf?: Schema[];
  type?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
}
const openapi = JSON.parse(readFileSync(join(__dirname, '../../../../../../openapi/openapi.json'), 'utf8')) as {
  components: { schemas: Record<string, Schema> };
};

function resolve(schema: Schema): Schema {
  if (schema.$ref) return resolve(openapi.components.schemas[schema.$ref.replace('#/components/schemas/', '')]);
  const ref = [...(schema.allOf ?? []), ...(schema.oneOf ?? []), ...(schema.anyOf ?? [])].find((s) => s.$ref || s.properties);
  return ref ? resolve(ref) : schema;
}

/** Every object under `value` against its schema: "path: served keys != documented keys" for each mismatch. */
function drift(value: unknown, schema: Schema, path: string, visited: Set<string>): string[] {
  const s = resolve(schema);
  if (Array.isArray(value)) {
    if (value.length) visited.add(path);
    return s.items ? value.flatMap((v, i) => drift(v, s.items!, `${path}[${i}]`, visited)) : [`${path}: an array, documented as ${s.type}`];
  }
  if (value === null || typeof value !== 'object') return [];
  if (!s.properties) return [`${path}: an object, documented without properties`];
  visited.add(path);
  const served = Object.keys(value).sort();
  const documented = Object.keys(s.properties).sort();
  const own =
    served.join() === documented.join()
      ? []
      : [
          `${path}: served [${served.filter((k) => !documented.includes(k))}] undocumented, documented [${documented.filter((k) => !served.includes(k))}] not served`,
        ];
  return [
    ...own,
    ...Object.entries(value).flatMap(([k, v]) => (s.properties![k] ? drift(v, s.properties![k], `${path}.${k}`, visited) : [])),
  ];
}

/** A deal whose report has every section, and every list at least one element. */
function fullReport(): StoredDealReport {
  const june: ReportDocumentInput = {
    id: 11,
    filename: 'june.pdf',
    documentType: 'bank_statement',
    status: 'completed',
    bankName: 'Test Bank',
    accountNumberLast4: '1234',
    accountHolder: 'Acme LLC',
    periodStart: '2024-06-01',
    periodEnd: '2024-06-30',
    openingBalance: 1000,
    closingBalance: 8365,
    currency: 'USD',
    riskLevel: 'medium',
    riskReasons: ['edited after signing'],
    reconciled: true,
    extractionConfidence: 0.95,
    warnings: ['year assumed'],
    transactions: [
      { date: '2024-06-03', description: 'SQUARE INC DEPOSIT', amount: 5000, balance: 6000 },
      { date: '2024-06-04', description: 'ONDECK CAPITAL PAYMENT', amount: -300, balance: 5700 },
      { date: '2024-06-05', description: 'NSF FEE', amount: -35, balance: 5665 },
      { date: '2024-06-11', description: 'ONDECK CAPITAL PAYMENT', amount: -300, balance: 5365 },
      { date: '2024-06-17', description: 'SQUARE INC DEPOSIT', amount: 3000, balance: 8365 },
    ],
  };
  const august: ReportDocumentInput = {
    ...june,
    id: 12,
    filename: 'august.pdf',
    periodStart: '2024-08-01',
    periodEnd: '2024-08-31',
    openingBalance: 8000,
    closingBalance: 8500,
    riskLevel: 'low',
    riskReasons: [],
    warnings: [],
    transactions: [
      { date: '2024-08-05', description: 'SQUARE INC DEPOSIT', amount: 1000, balance: 9000 },
      { date: '2024-08-06', description: 'ONLINE TRANSFER TO SAVINGS', amount: -500, balance: 8500 },
    ],
  };
  const euros: ReportDocumentInput = { ...august, id: 13, filename: 'euros.pdf', accountNumberLast4: '9999', currency: 'EUR' };
  // another account of the merchant (a transfer), and a statement outside the look-back window
  const savings: ReportDocumentInput = {
    ...august,
    id: 14,
    filename: 'savings.pdf',
    accountNumberLast4: '5555',
    openingBalance: 0,
    closingBalance: 500,
    transactions: [{ date: '2024-08-07', description: 'ONLINE TRANSFER FROM CHECKING', amount: 500, balance: 500 }],
  };
  const old: ReportDocumentInput = {
    ...august,
    id: 15,
    filename: 'old.pdf',
    periodStart: '2023-01-01',
    periodEnd: '2023-01-31',
    transactions: [],
  };
  const { report } = buildDealReport({
    documents: [june, august, euros, savings, old],
    fundingAmountRequested: 10000,
    reportDate: '2024-09-01',
    sightings: [{ kind: 'same_account', document_id: 11, other_deal_id: 3, other_business_name: 'Other LLC', other_document_id: 31 }],
  });
  return {
    ...storedReport(report),
    ai_summary: 'A summary.',
    recommendation: {
      decision: 'review',
      total_score: 55,
      max_advance: null,
      cfcr: 1.2,
      ruleset_name: 'Default',
      ruleset_id: 1,
      grade: 'C',
      reasons: ['Review: total score 55 is between the thresholds'],
    },
    inputs_key: 'v2|11:1:completed|c0',
  };
}

describe('the report DTOs and the underwriting types', () => {
  it('mirror each other, type by type (a compile-time check: this file does not compile otherwise)', () => {
    expect(Object.keys(mirrors)).toHaveLength(35);
    expect(sections).toEqual({ keys: true, each: true });
  });

  it('a real report, served, has exactly the documented properties in every object', () => {
    const stored = fullReport();
    const deal = Object.assign(new Deal(), {
      id: 1,
      organizationId: 1,
      livemode: false,
      businessName: 'Acme LLC',
      fundingAmountRequested: 10000,
      status: 'ready',
      report: JSON.parse(JSON.stringify(stored)) as unknown,
    });
    const served = mapDealDetail(deal);
    const visited = new Set<string>();
    expect(drift(served, { $ref: '#/components/schemas/DealDetailDto' }, 'deal', visited)).toEqual([]);
    // every section and list was there to compare
    const lists = ['statements', 'monthly', 'daily_balances', 'nsf_events', 'revenue_sources', 'related_deals', 'accounts'];
    const objects = [
      'coverage',
      'financials',
      'nsf_overdraft',
      'screening',
      'health',
      'recommendation',
      'authenticity',
      'review',
      'currency',
      'cross_doc',
      'lender_positions',
      'staleness',
      'own_transfers',
      'affordability',
      'revenue',
    ];
    for (const k of [...lists, ...objects]) expect(visited).toContain(`deal.${k}`);
    for (const k of [
      'deal.authenticity.documents',
      'deal.review.documents',
      'deal.cross_doc.findings',
      'deal.lender_positions.positions',
      'deal.currency.excluded_statement_ids',
      'deal.staleness.stale_statements',
      'deal.own_transfers.transfers',
      'deal.affordability.steps',
      'deal.revenue.months',
      'deal.revenue.totals.excluded',
    ]) {
      expect(visited).toContain(k);
    }
  });

  it('the stored report has a section for every report property the deal detail documents, and no other', () => {
    const documented = Object.keys(resolve({ $ref: '#/components/schemas/DealDetailDto' }).properties!);
    const summary = Object.keys(resolve({ $ref: '#/components/schemas/DealSummaryDto' }).properties!);
    const { report_version: _v, inputs_key: _k, ai_summary_meta: _m, ...stored } = fullReport();
    expect(Object.keys(stored).sort()).toEqual(documented.filter((k) => !summary.includes(k) && k !== 'business').sort());
  });
});
