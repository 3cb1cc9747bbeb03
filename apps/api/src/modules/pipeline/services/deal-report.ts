import { reconcile } from '@ledgerlens/statements';
import {
  buildDealReport,
  categorizeTransaction,
  computeStatementMetrics,
  statementInputOf,
  storedAnalysis,
  storedReport,
  type DealAnalysis,
  type DealReport,
  type DealTransaction,
  type OrgLenderEntry,
  type RelatedDocumentSighting,
  type ReportDocumentInput,
  type RiskLevel,
  type ScreenedTransaction,
  type RevenueClass,
  type TransactionCategory,
  CATEGORIES,
  REVENUE_CLASSES,
} from '@ledgerlens/underwriting';
import { Document, TERMINAL_STATUSES } from '../entities/document.entities';
import { Transaction } from '../entities/transaction.entities';
import { Deal } from '../entities/deal.entities';
import { UnitOfWork } from '../../../platform/database/unit-of-work';
import type { DealRepository } from '../repositories/deal.repository';
import type { DocumentRepository } from '../repositories/document.repository';
import type { TransactionRepository } from '../repositories/transaction.repository';

/** The repositories the report reads. */
export interface ReportSources {
  deals: DealRepository;
  documents: DocumentRepository;
  transactions: TransactionRepository;
}

/**
 * Writes a built report onto the deal: the stored report (the recommendation and the AI summary
 * are added by their own services) and the summary columns.
 */
export function applyReport(deal: Deal, built: { report: DealReport; analysis: DealAnalysis | null }): void {
  const { report, analysis } = built;
  deal.healthScore = analysis?.health.score ?? null;
  deal.healthGrade = analysis?.health.grade ?? null;
  deal.avgMonthlyDeposits = analysis?.financials.avg_monthly_deposits ?? null;
  deal.avgDailyBalance = analysis?.financials.avg_daily_balance ?? null;
  deal.screeningFlags = analysis?.screening.total_flags ?? 0;
  deal.analysis = analysis ? storedAnalysis(analysis) : null;
  deal.report = storedReport(report);
  deal.recommendation = null;
}

const riskLevel = (v: string | null): RiskLevel | null => (v === 'low' || v === 'medium' || v === 'high' ? v : null);

/** The parser's review reasons that come from the reconciliation check. */
const RECONCILIATION_REASON = /^(does not reconcile|cannot reconcile|running balance breaks)/;
const money = (n: number) => n.toFixed(2);

/**
 * A statement with corrected transactions is checked again on the corrected rows: the parser's
 * verdict was about what it read. Reconciled now, the reconciliation reasons go; still not, they
 * are replaced by the check of the corrected rows. Other review reasons stay.
 */
function recheckCorrected(
  doc: Document,
  transactions: Transaction[],
): { reconciled: boolean | null; needsReview: boolean | null; reviewReasons: string[] } | null {
  if (doc.documentType !== 'bank_statement' || !transactions.some((t) => t.correctionCount > 0)) return null;
  // the check reads the values only (the provenance is not the reconciler's)
  const rec = reconcile(
    doc.openingBalance,
    doc.closingBalance,
    transactions.map(({ date, description, amount, balance, transactionType }) => ({
      date,
      description,
      amount,
      balance,
      transactionType,
    })),
  );
  const others = (doc.reviewReasons ?? []).filter((r) => !RECONCILIATION_REASON.test(r));
  const now: string[] = [];
  if (!rec.reconciled) {
    if (doc.openingBalance === null || doc.closingBalance === null) {
      now.push(`cannot reconcile: ${doc.openingBalance === null ? 'opening' : 'closing'} balance not found`);
    } else if (rec.totalsMatch === false) {
      now.push(
        `does not reconcile after corrections: opening ${money(doc.openingBalance)} + credits ${money(rec.totalCredits)} - debits ${money(rec.totalDebits)} = ${money(rec.expectedClosing ?? 0)}, printed closing ${money(doc.closingBalance)} (difference ${money(rec.difference ?? 0)})`,
      );
    }
    if (rec.firstBrokenRow !== null) {
      const t = transactions[rec.firstBrokenRow];
      now.push(`running balance breaks at row ${rec.firstBrokenRow + 1} after corrections (${t.date}, ${money(t.amount)})`);
    }
  }
  const reviewReasons = [...now, ...others];
  return { reconciled: rec.reconciled, needsReview: reviewReasons.length > 0, reviewReasons };
}

const isRevenueClass = (v: string | null): v is RevenueClass => (REVENUE_CLASSES as readonly string[]).includes(v ?? '');
const isCategory = (v: string): v is TransactionCategory => (CATEGORIES as readonly string[]).includes(v);

/**
 * A document row as the report builder reads it. What a person set wins over the rules: a deposit's
 * revenue class, and a category a person corrected (`categoryCorrected`, the rows with a category
 * trail entry).
 */
export function reportDocument(doc: Document, transactions?: Transaction[], categoryCorrected?: Set<number>): ReportDocumentInput {
  // stored JSON: a reading of an older version may lack the verdict
  const reconciled: unknown = doc.reconciliation?.reconciled;
  const rechecked = transactions ? recheckCorrected(doc, transactions) : null;
  return {
    id: doc.id,
    filename: doc.filename,
    documentType: doc.documentType,
    status: doc.status,
    error: doc.error,
    bankName: doc.bankName,
    accountNumberLast4: doc.accountNumberLast4,
    accountHolder: doc.accountHolder,
    periodStart: doc.statementStartDate,
    periodEnd: doc.statementEndDate,
    openingBalance: doc.openingBalance,
    closingBalance: doc.closingBalance,
    currency: doc.currency,
    riskLevel: riskLevel(doc.pdfRiskLevel),
    riskReasons: doc.riskReasons ?? [],
    reconciled: rechecked ? rechecked.reconciled : typeof reconciled === 'boolean' ? reconciled : null,
    extractionConfidence: doc.extractionConfidence,
    warnings: doc.warnings ?? [],
    // a person who marked the reading reviewed has cleared its flag (an unreconciled statement still counts as one)
    needsReview: doc.reviewedAt ? false : rechecked ? rechecked.needsReview : doc.needsReview,
    reviewReasons: rechecked ? rechecked.reviewReasons : (doc.reviewReasons ?? []),
    transactions: transactions?.map((t) => ({
      date: t.date,
      description: t.description,
      amount: t.amount,
      balance: t.balance,
      transactionType: t.transactionType,
      ...(isRevenueClass(t.revenueClassOverride) ? { revenueClass: t.revenueClassOverride } : {}),
      ...(categoryCorrected?.has(t.id) && isCategory(t.category) ? { category: t.category } : {}),
    })),
  };
}

const norm = (s: string | null) =>
  (s ?? '')
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
const accountKey = (d: Pick<Document, 'bankName' | 'accountNumberLast4' | 'accountHolder'>) =>
  d.accountNumberLast4 ? `${norm(d.bankName)}|${d.accountNumberLast4}|${norm(d.accountHolder)}` : null;

/**
 * Documents of other deals of the same organization and mode (the tenant filter scopes `tx`)
 * holding the same file (content hash) or a statement of the same account (bank, last 4, holder).
 */
export async function findSightings(
  sources: ReportSources,
  tx: UnitOfWork,
  deal: Deal,
  docs: Document[],
): Promise<RelatedDocumentSighting[]> {
  const hashes = [...new Set(docs.map((d) => d.sha256))];
  const last4s = [...new Set(docs.map((d) => d.accountNumberLast4).filter((v): v is string => !!v))];
  if (!hashes.length) return [];
  const others = await sources.documents.findSightings(tx, deal.id, hashes, last4s);
  if (!others.length) return [];
  const names = await sources.deals.businessNames(tx, [...new Set(others.map((o) => o.dealId))]);
  const sightings: RelatedDocumentSighting[] = [];
  for (const doc of docs) {
    const key = accountKey(doc);
    for (const other of others) {
      const kind = other.sha256 === doc.sha256 ? 'same_file' : key && accountKey(other) === key ? 'same_account' : null;
      if (!kind) continue;
      sightings.push({
        kind,
        document_id: doc.id,
        other_deal_id: other.dealId,
        other_business_name: names.get(other.dealId) ?? '',
        other_document_id: other.id,
      });
    }
  }
  return sightings;
}

type Screening = Pick<
  Transaction,
  | 'category'
  | 'revenueClass'
  | 'revenueRule'
  | 'isCashDeposit'
  | 'isNsfFee'
  | 'isOverdraftFee'
  | 'isLargeDeposit'
  | 'isLargeStrange'
  | 'isRepeatCharge'
  | 'isSuspicious'
  | 'screeningBucket'
  | 'flagReason'
>;

/** A row's screening: the deal's, or none (a statement left out of the deal); its category the reading's when unscreened. */
const screeningOf = (row: Transaction, t: DealTransaction | null): Screening => ({
  category: t?.category ?? categorizeTransaction(row).category,
  revenueClass: t ? t.revenue_class : (row.revenueClassOverride ?? null),
  revenueRule: t ? t.revenue_rule : null,
  isCashDeposit: t?.is_cash_deposit ?? false,
  isNsfFee: t?.is_nsf_fee ?? false,
  isOverdraftFee: t?.is_overdraft_fee ?? false,
  isLargeDeposit: t?.is_large_deposit ?? false,
  isLargeStrange: t?.is_large_strange ?? false,
  isRepeatCharge: t?.is_repeat_charge ?? false,
  isSuspicious: t?.is_suspicious ?? false,
  screeningBucket: t?.screening_bucket ?? null,
  flagReason: t?.flag_reason ?? null,
});

/** A statement's figures from its rows alone, nothing screened: a statement left out of the deal (another currency). */
function unscreenedFigures(doc: Document, rows: Transaction[]): Record<string, unknown> {
  const screened: ScreenedTransaction[] = rows.map((row, index) => ({
    index,
    date: row.date,
    description: row.description,
    amount: row.amount,
    balance: row.balance,
    transaction_type: row.transactionType,
    category: row.category as ScreenedTransaction['category'],
    counterparty: '',
    is_nsf_fee: false,
    is_overdraft_fee: false,
    is_large_deposit: false,
    is_large_strange: false,
    is_repeat_charge: false,
    is_suspicious: false,
    is_lender_payment: false,
    screening_bucket: null,
    flag_reason: null,
  }));
  const { daily_balances: _series, ...figures } = computeStatementMetrics(statementInputOf(reportDocument(doc, rows)), { screened });
  return figures;
}

/**
 * The deal's screening, the only one: written onto the transaction rows (flags and category) and
 * the documents (their figures and flag counts), so `transactions?flagged=true`, the documents and
 * the report's counts always agree. Statements left out of the deal (another currency) are not
 * screened: no flags, their figures from their rows alone. A category a person corrected stays.
 */
function applyScreening(
  analysis: DealAnalysis | null,
  statementDocs: Document[],
  rows: Map<number, Transaction[]>,
  categoryCorrected: Set<number>,
): void {
  const byDoc = new Map<number, (DealTransaction | null)[]>();
  for (const t of analysis?.transactions ?? []) {
    const list = byDoc.get(Number(t.statement_id)) ?? [];
    list[t.statement_tx_index] = t;
    byDoc.set(Number(t.statement_id), list);
  }
  const metrics = new Map((analysis?.statements ?? []).map((m) => [Number(m.statement_id), m]));
  for (const doc of statementDocs) {
    const screened = byDoc.get(doc.id) ?? [];
    const docRows = rows.get(doc.id) ?? [];
    let flagged = 0;
    docRows.forEach((row, i) => {
      const { category, ...flags } = screeningOf(row, screened[i] ?? null);
      if (flags.screeningBucket !== null) flagged++;
      for (const [k, v] of Object.entries(flags) as [keyof typeof flags, never][]) if (row[k] !== v) row[k] = v;
      if (!categoryCorrected.has(row.id) && row.category !== category) row.category = category;
    });
    doc.screeningFlags = flagged;
    const m = metrics.get(doc.id);
    if (m) {
      const { daily_balances: _series, ...figures } = m;
      doc.analysis = figures;
    } else doc.analysis = unscreenedFigures(doc, docRows);
  }
}

/** Each row a lender position stands on gets its stored transaction's id (the report and the analysis share the positions). */
function linkPositionRows(analysis: DealAnalysis | null, rows: Map<number, Transaction[]>): void {
  for (const p of analysis?.lender_positions.positions ?? []) {
    for (const e of p.transactions) {
      const row =
        e.statement_id !== null && e.statement_tx_index !== null ? rows.get(Number(e.statement_id))?.[e.statement_tx_index] : undefined;
      e.transaction_id = row?.id ?? null;
    }
  }
}

/** Builds the deal's report from its terminal documents and writes it, in the caller's transaction. */
export async function writeDealReport(
  sources: ReportSources,
  tx: UnitOfWork,
  deal: Deal,
  docs: Document[],
  reportDate: string,
  lenders: readonly OrgLenderEntry[] = [],
): Promise<void> {
  const terminal = docs.filter((d) => TERMINAL_STATUSES.includes(d.status));
  const statementDocs = terminal.filter((d) => d.status === 'completed' && d.documentType === 'bank_statement');
  const rows = new Map<number, Transaction[]>();
  if (statementDocs.length) {
    const all = await sources.transactions.findForDocuments(
      tx,
      statementDocs.map((d) => d.id),
    );
    for (const t of all) {
      const list = rows.get(t.documentId);
      if (list) list.push(t);
      else rows.set(t.documentId, [t]);
    }
  }
  const all = [...rows.values()].flat();
  const categoryCorrected = await sources.transactions.categoryCorrected(tx, all, ['category']);
  const built = buildDealReport({
    documents: terminal.map((d) => reportDocument(d, rows.get(d.id) ?? (statementDocs.includes(d) ? [] : undefined), categoryCorrected)),
    fundingAmountRequested: deal.fundingAmountRequested,
    reportDate,
    lenders,
    sightings: await findSightings(
      sources,
      tx,
      deal,
      terminal.filter((d) => d.status === 'completed'),
    ),
  });
  linkPositionRows(built.analysis, rows);
  applyScreening(built.analysis, statementDocs, rows, await sources.transactions.categoryCorrected(tx, all));
  applyReport(deal, built);
}
