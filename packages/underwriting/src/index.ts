/**
 * @ledgerlens/underwriting - pure underwriting math for merchant cash advance deals.
 * Inputs are camelCase; every result object is snake_case (API-ready). See README.md for formulas.
 */
export * from './types';
export { DEFAULT_PARAMS, resolveParams, type UnderwritingParams } from './params';
export {
  categorizeTransaction,
  counterpartyKey,
  descriptionFeatures,
  type DescriptionFeatures,
  isKnownRevenueSource,
  matchKnownLender,
  lenderMatchOf,
  KNOWN_LENDERS,
  type CategoryResult,
} from './categorize';
export { screenTransactions, emptyBucketCounts, type ScreenContext } from './screening';
export { OVERRIDE_RULE, personNameWords, revenueTable, type RevenueExclusions, type RevenueMonth, type RevenueTable } from './revenue';
export { classifyFrequency, PAYMENTS_PER_MONTH, type PaymentFrequency } from './frequency';
export {
  computeStatementMetrics,
  dailyBalanceSeries,
  chronologicalOrder,
  type DailyBalanceSeries,
  type StatementMetricsOptions,
} from './metrics';
export { groupAccounts, type AccountGrouping, type AccountGroups, type AccountStatement, type DealAccount } from './accounts';
export { splitStale, type StaleStatement, type StalenessSummary } from './staleness';
export { matchOwnTransfers, type OwnTransfer, type TransferCandidates, type TransferSide, type TransferSummary } from './transfers';
export { affordabilityOf, affordabilityAtTerms, affordabilityReason, type Affordability, type AffordabilityTerms } from './affordability';
export {
  detectLenderPositions,
  type LenderPosition,
  type LenderPositionSummary,
  type PositionEvidence,
  type PositionEvidenceRole,
  type PositionOptions,
  type PositionStart,
} from './positions';
export {
  FUNDER_KINDS,
  LENDER_DIRECTORY_VERSION,
  LENDER_KINDS,
  LenderMatcher,
  MIN_NAME_CHARS,
  directoryEntry,
  isFunderKind,
  lenderDirectory,
  lenderMatcher,
  matchLender,
  nameWords,
  parseDescriptorCases,
  scoreDescriptorCases,
  type DescriptorCase,
  type DescriptorScore,
  type DirectoryEntry,
  type LenderKind,
  type LenderMatch,
  type OrgLenderEntry,
} from './lenders';
export {
  crossDocumentCheck,
  type CrossDocFindingType,
  type CrossDocFinding,
  type CrossDocResult,
  type CrossDocInput,
  type CrossDocStatement,
} from './crossdoc';
export {
  computeScores,
  gradeFor,
  revenueTrendPct,
  revenueTrendNotApplicable,
  HEALTH_FACTORS,
  RULESET_FACTORS,
  FORM_B_FACTORS,
  type AllScores,
  type FactorInputs,
  type HealthFactor,
  type RulesetFactor,
  type FormBFactor,
} from './scores';
export {
  analyzeDeal,
  reportingCurrency,
  REVENUE_SOURCE_LIMIT,
  type AnalyzeDealInput,
  type CurrencySummary,
  type DealAnalysis,
  type FeeEvent,
  type MonthSummary,
  type RevenueSource,
  type ScoredDeal,
  type StoredDealAnalysis,
  storedAnalysis,
} from './deal';
export {
  buildDealReport,
  authenticityOf,
  reviewOf,
  reviewReasons,
  reliabilityOf,
  relatedDealFindings,
  statementInputOf,
  MIN_EXTRACTION_CONFIDENCE,
  RISK_LEVELS,
  type Authenticity,
  type BuildDealReportInput,
  type DealReport,
  type DealRiskLevel,
  type DocumentAuthenticity,
  type DocumentReview,
  type RelatedDealFinding,
  type RelatedDocumentSighting,
  type ReportDocumentInput,
  type ReviewSection,
  type Reliability,
  type UnreliableStatement,
  type RiskLevel,
  type StatementRow,
} from './report';
export {
  evaluateRuleset,
  withHolds,
  withContext,
  authenticityHolds,
  cashFlowHolds,
  reliabilityReason,
  reliabilityWarnings,
  type Decision,
  type Evaluation,
  type Hold,
  type RulesetDefinition,
  type RulesetKind,
} from './evaluation';
export {
  REPORT_VERSION,
  storedReport,
  upgradeStoredReport,
  type AiSummaryMeta,
  type ReportRecommendation,
  type StoredDealReport,
} from './stored-report';
export { summaryFacts, templateSummary, ungroundedNumbers, type SummaryDeal, type SummaryFacts } from './summary';
export {
  DEFAULT_RULESET,
  FLAT_WEIGHT_FIELDS,
  AFFORDABILITY_FIELDS,
  affordabilityTermsOf,
  type AffordabilityRulesetTerms,
  cfcrShortfall,
  validateFlatRuleset,
  validateFactorRuleset,
  recommend,
  evaluateFactorRuleset,
  describeFactor,
  type FlatRuleset,
  type FactorRuleset,
  type FactorScore,
  type Recommendation,
  type FactorRulesetEvaluation,
  type RulesetErrorCode,
  type RulesetFieldError,
  type RulesetValidationResult,
} from './ruleset';
export { dayNumber, dayToDate, monthsFromDays, round2, DAYS_PER_MONTH } from './util';
