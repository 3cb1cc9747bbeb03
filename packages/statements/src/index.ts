import { BankParseResult, datedMoneyLines, parseBankStatement } from './bank-parser';
import { apiFieldName } from './header';
import { classifyText } from './classify';
import { extractLayout } from './layout';
import { parseWithLlm, pageText } from './llm';
import { openDocument } from './open';
import { reconcile } from './reconcile';
import { assessTamperRisk, parsePdfDate } from './tamper';
import { contentFindings } from './tamper-content';
import { scanFindings } from './tamper-scan';
import { pageModDates } from './tamper-structure';
import { DOCUMENT_GLYPHS } from './ink';
import { combineRisk } from './tamper-risk';
import {
  BankStatementFields,
  FieldSources,
  HEADER_FIELDS,
  ParseOptions,
  ParseResult,
  ReadingChoice,
  Reconciliation,
  StatementError,
  TamperFinding,
} from './types';

export * from './types';
export { openDocument, openDocument as inspectDocument, sniffMimeType } from './open';
export type { OpenedDocument, DocumentInfo } from './open';
export { extractLayout, extractLayout as extractText } from './layout';
export type { LayoutResult, LayoutOptions } from './layout';
export { extractPageText, groupLines, pageImages, pageImagePixels, renderPagePng, renderPageGray } from './extract';
export type { ImageOverlay, PageImages } from './extract';
export type { GrayRaster } from './extract';
export { classifyText, classifyText as classify } from './classify';
export type { Classification } from './classify';
export { parseBankStatement } from './bank-parser';
export type { BankParseResult, BankStatementFields, AmountCell } from './bank-parser';
export { reconcile } from './reconcile';
export { detectCurrency, readCurrency } from './currency';
export type { CurrencyReading } from './currency';
export { readHeader, lowConfidenceWarnings, last4Of, apiFieldName, LOW_CONFIDENCE } from './header';
export type { StatementHeader } from './header';
export { findPeriod } from './period';
export { assessTamperRisk, parsePdfDate } from './tamper';
export type { TamperAssessment, TamperInput } from './tamper';
export { contentFindings, tokensOf, isMoney } from './tamper-content';
export { BLOCK_DPI, blockGridJudged, needsPageImage, scanFindings, scanPageStats, wordPixelStats } from './tamper-scan';
export { blockGrid, paperSteps } from './tamper-blocks';
export { rotateRaster, turnBox } from './deskew';
export { woffToSfnt } from './font-files';
export type { ScanPageStats, ScanWordStats } from './tamper-scan';
export type { ContentInput, InkToken } from './tamper-content';
export { readPageInk } from './ink';
export type { Glyph, PageInk, Cover } from './ink';
export { combineRisk } from './tamper-risk';
export type { DocumentRisk } from './tamper-risk';
export { parseWithLlm, validateLlmJson, LlmOutputError, LLM_SYSTEM_PROMPT, pageText, pageTextWithColumns } from './llm';
export { shutdownOcr, warmOcr, OCR_WORKERS, tesseractLangPath, cleanOcrWord } from './ocr';
export { parseAmount, parseDateToken, resolveYear, isValidDate } from './tokens';
export { releaseMupdfCaches } from './mupdf';
export { ParserPool, ParserCrashedError, processRss } from './pool';
export type { ParserPoolOptions } from './pool';
export { guardPageContent, decodeBounded } from './open';

const emptyReconciliation = (): Reconciliation => ({
  reconciled: false,
  firstBrokenRow: null,
  expectedClosing: null,
  difference: null,
  confidence: 0,
  totalCredits: 0,
  totalDebits: 0,
  balanceChecks: 0,
  balanceChecksPassed: 0,
  totalsMatch: null,
});

/** Opens, extracts, classifies, parses, reconciles and scores one uploaded file. */
export async function parseStatementFile(bytes: Uint8Array, opts: ParseOptions = {}): Promise<ParseResult> {
  if (opts.signal?.aborted) throw new Error('aborted');
  const opened = await openDocument(bytes, opts.limits);
  try {
    let layout;
    try {
      // the glyphs of the text pages are read with their text: the content checks below use them
      layout = await extractLayout(opened, {
        limits: opts.limits,
        ocr: opts.ocr,
        signal: opts.signal,
        onStep: opts.onStep,
        inkGlyphs: DOCUMENT_GLYPHS,
      });
    } catch (e) {
      if (e instanceof StatementError || opts.signal?.aborted) throw e;
      throw new StatementError('corrupt', `cannot read document: ${(e as Error)?.message ?? String(e)}`);
    }
    opts.onStep?.('classifying');
    const fullText = layout.pages.map(pageText).join('\n');
    const cls = classifyText(fullText, opts.documentTypeHint);
    const warnings = [...layout.warnings];
    const receivedOn = (opts.receivedAt ?? new Date()).toISOString().slice(0, 10);
    let parsed: BankParseResult | null = null;
    let reconciliation = emptyReconciliation();
    const parser: ParseResult['parser'] = { method: 'rule', model: null, fallbackReason: null };
    if (cls.documentType === 'bank_statement') {
      const created = parsePdfDate(opened.info.creationDate);
      parsed = parseBankStatement(layout.pages, {
        documentDate: created !== null && Number.isFinite(created) ? new Date(created).toISOString().slice(0, 10) : null,
        uploadDate: receivedOn,
      });
      reconciliation = reconcile(parsed.openingBalance, parsed.closingBalance, parsed.transactions);
      warnings.push(...parsed.warnings);
      if (opts.llm?.apiKey) {
        opts.onStep?.('parsing_with_llm');
        try {
          const llm = await parseWithLlm(layout.pages, opts.llm, opts.signal);
          const rec = reconcile(llm.openingBalance, llm.closingBalance, llm.transactions);
          if (rec.reconciled) {
            parsed = {
              ...llm,
              currency: parsed.currency,
              currencyFrom: parsed.currencyFrom,
              sources: llmSources(parsed, llm),
              warnings: parsed.warnings,
              amountCells: parsed.amountCells,
              misprints: [],
              readings: [],
            };
            reconciliation = rec;
            parser.method = 'llm';
            parser.model = opts.llm.model;
          } else {
            parser.fallbackReason = `llm result does not reconcile (difference ${rec.difference ?? 'unknown'}, first broken row ${rec.firstBrokenRow ?? 'none'})`;
          }
        } catch (e) {
          if (opts.signal?.aborted) throw e;
          parser.fallbackReason = `llm failed: ${(e as Error).message}`.slice(0, 300);
        }
      }
    }
    const review = parsed ? reviewOf(parsed, reconciliation, receivedOn) : { needsReview: false, reasons: [] };
    if (!parsed) {
      // classified as something else, yet its pages hold a dated table of money amounts: never passed over quietly
      const dated = layout.pages.reduce((n, p) => n + datedMoneyLines(p), 0);
      if (dated >= DATED_TABLE_LINES) {
        review.needsReview = true;
        review.reasons.push(
          `classified as ${cls.documentType.replace(/_/g, ' ')}, but its pages hold ${dated} lines with a date, a description and an amount: check whether it is a bank statement`,
        );
      }
    }
    // a scanned page OCR reads poorly (noise, shading, a photo) is no reading to trust, whatever was made of it
    const poor = layout.pages.filter((p) => p.method === 'ocr' && p.confidence < POOR_OCR);
    if (poor.length) {
      const pct = (c: number) => `${Math.round(c * 100)}%`;
      const lo = Math.min(...poor.map((p) => p.confidence));
      const hi = Math.max(...poor.map((p) => p.confidence));
      review.needsReview = true;
      review.reasons.push(
        `${poor.length === 1 ? 'page' : 'pages'} ${poor.map((p) => p.index + 1).join(', ')} of the scan read poorly: OCR is ${lo === hi ? pct(lo) : `${pct(lo)} to ${pct(hi)}`} confident of the words, so rows may be missing or misread: check the ${poor.length === 1 ? 'page' : 'pages'}, or ask for a clearer copy`,
      );
    }
    const metaRisk = assessTamperRisk({
      info: opened.info,
      pages: layout.pages,
      amountCells: parsed?.amountCells ?? [],
      reconciliation: parsed ? reconciliation : null,
      pageModDates: opened.info.isPdf ? pageModDates(opened) : [],
    });
    // the content checks read the glyphs of a bank statement's rows: nothing to check elsewhere
    const tamperFindings =
      opened.info.isPdf && parsed?.transactions.length
        ? await contentFindings({
            opened,
            pages: layout.pages,
            transactions: parsed?.transactions ?? [],
            reconciliation: parsed ? reconciliation : null,
            misprints: parsed?.misprints.length ?? 0,
            inks: layout.inks,
            openingBalance: parsed?.openingBalance ?? null,
            // a period taken from the rows' own dates is no evidence about them
            periodStart: parsed?.sources.periodStart?.page != null ? parsed.periodStart : null,
            periodEnd: parsed?.sources.periodEnd?.page != null ? parsed.periodEnd : null,
            dailyBreak: parsed?.dailyBreak ?? null,
            dailyClosing: parsed?.dailyClosing ?? null,
            totalBreaks: parsed?.totalBreaks ?? [],
            closingBalance: parsed?.closingBalance ?? null,
            closingSource: parsed?.sources.closingBalance ?? null,
          })
        : [];
    // scanned pages: amounts pasted in as patches (their pixels measured while OCR read the page)
    if (opened.info.isPdf && parsed?.transactions.length && layout.scans.size)
      tamperFindings.push(
        ...scanFindings(
          layout.scans.values(),
          parsed.transactions,
          // rows the arithmetic names: of an amount and its copy, the one whose row does not add up
          new Set(tamperFindings.filter((f) => f.category === 'arithmetic' && f.row !== null).map((f) => f.row!)),
        ),
      );
    const risk = combineRisk(metaRisk, tamperFindings);
    return {
      documentType: cls.documentType,
      classificationConfidence: cls.confidence,
      pageCount: opened.info.pageCount,
      extractionMethod: layout.extractionMethod,
      extractionConfidence: layout.extractionConfidence,
      mimeType: opened.info.mimeType,
      bankName: parsed?.bankName ?? null,
      accountHolder: parsed?.accountHolder ?? null,
      accountNumberLast4: parsed?.accountNumberLast4 ?? null,
      accountType: parsed?.accountType ?? null,
      periodStart: parsed?.periodStart ?? null,
      periodEnd: parsed?.periodEnd ?? null,
      openingBalance: parsed?.openingBalance ?? null,
      closingBalance: parsed?.closingBalance ?? null,
      currency: parsed?.currency ?? null,
      currencyFrom: parsed?.currencyFrom ?? null,
      fieldSources: parsed?.sources ?? {},
      transactions: parsed?.transactions ?? [],
      reconciliation,
      pdfRiskLevel: risk.level,
      riskReasons: risk.reasons,
      tamperFindings,
      parser,
      rawTextPages: layout.rawTextPages,
      ocrPages: layout.ocrPages,
      readings: parsed?.readings ?? [],
      warnings,
      needsReview: review.needsReview,
      reviewReasons: review.reasons,
    };
  } finally {
    opened.close();
  }
}

const money = (n: number) => n.toFixed(2);

/** Dated money lines a document classified as something else must hold before it is put up for review. */
const DATED_TABLE_LINES = 5;

/** Provenance of an LLM reading: the rule parser's source where both read the same value, else the LLM's word. */
function llmSources(rule: BankParseResult, llm: BankStatementFields): FieldSources {
  const out: FieldSources = {};
  for (const f of HEADER_FIELDS) {
    if (f === 'currency') {
      if (rule.sources.currency) out.currency = rule.sources.currency;
      continue;
    }
    const v = llm[f];
    if (v === null || v === undefined) continue;
    out[f] =
      v === rule[f] && rule.sources[f] ? rule.sources[f] : { page: null, line: null, via: 'LLM reading', text: String(v), confidence: 0.7 };
  }
  return out;
}

/**
 * A bank statement read without transactions, or whose figures do not reconcile, is never a silent
 * success: it is flagged for review with the reasons a person needs to check it.
 */
/** OCR confidence (the words', 0 to 1) below which a scan reads too poorly to trust: clean scans read 0.8 to 0.94, noisy shaded tables 0.2 to 0.46. */
export const POOR_OCR = 0.6;

export function reviewOf(parsed: BankParseResult, rec: Reconciliation, receivedOn?: string): { needsReview: boolean; reasons: string[] } {
  const reasons: string[] = [];
  // A statement cannot cover days after it was received (one day of grace for time zones).
  if (receivedOn) {
    const grace = new Date(Date.parse(`${receivedOn}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    const lastDate = parsed.transactions.reduce<string | null>((max, t) => (t.date && (!max || t.date > max) ? t.date : max), null);
    if (parsed.periodEnd && parsed.periodEnd > grace)
      reasons.push(`dated after it was received: the statement period ends ${parsed.periodEnd}, the file was received ${receivedOn}`);
    else if (lastDate && lastDate > grace)
      reasons.push(`dated after it was received: a transaction is dated ${lastDate}, the file was received ${receivedOn}`);
  }
  if (!parsed.transactions.length) reasons.push('no transactions were read');
  else if (!rec.reconciled) {
    if (parsed.openingBalance === null || parsed.closingBalance === null) {
      reasons.push(`cannot reconcile: ${parsed.openingBalance === null ? 'opening' : 'closing'} balance not found`);
    } else if (rec.totalsMatch === false) {
      reasons.push(
        `does not reconcile: opening ${money(parsed.openingBalance)} + credits ${money(rec.totalCredits)} - debits ${money(rec.totalDebits)} = ${money(rec.expectedClosing ?? 0)}, printed closing ${money(parsed.closingBalance)} (difference ${money(rec.difference ?? 0)})`,
      );
    }
    if (rec.firstBrokenRow !== null && !parsed.misprints.length) {
      const t = parsed.transactions[rec.firstBrokenRow];
      reasons.push(
        `running balance breaks at row ${rec.firstBrokenRow + 1}${t.source ? ` on page ${t.source.page}` : ''} (${t.date}, ${money(t.amount)}, printed balance ${t.balance === null ? '-' : money(t.balance)})`,
      );
    }
  }
  for (const m of parsed.misprints) reasons.push(`misprint: ${m}`);
  for (const w of parsed.warnings)
    if (/dates without a year placed|^balance chain:|^no transactions read on page|^date order undecided/.test(w)) reasons.push(w);
  if (reasons.length) for (const w of parsed.warnings) if (/^printed total/.test(w)) reasons.push(w);
  return { needsReview: reasons.length > 0, reasons };
}

/** The result with the API's snake_case field names (as printed by the CLI). */
export function toApiJson(r: ParseResult): Record<string, unknown> {
  return {
    document_type: r.documentType,
    classification_confidence: r.classificationConfidence,
    page_count: r.pageCount,
    extraction_method: r.extractionMethod,
    extraction_confidence: r.extractionConfidence,
    mime_type: r.mimeType,
    bank_name: r.bankName,
    account_holder: r.accountHolder,
    account_number_last4: r.accountNumberLast4,
    account_type: r.accountType,
    statement_period_start: r.periodStart,
    statement_period_end: r.periodEnd,
    opening_balance: r.openingBalance,
    closing_balance: r.closingBalance,
    currency: r.currency,
    currency_from: r.currencyFrom,
    field_sources: fieldSourcesToApiJson(r.fieldSources),
    transactions: r.transactions.map((t) => ({
      date: t.date,
      description: t.description,
      amount: t.amount,
      balance: t.balance,
      transaction_type: t.transactionType,
    })),
    reconciliation: {
      reconciled: r.reconciliation.reconciled,
      first_broken_row: r.reconciliation.firstBrokenRow,
      expected_closing: r.reconciliation.expectedClosing,
      difference: r.reconciliation.difference,
      confidence: r.reconciliation.confidence,
      total_credits: r.reconciliation.totalCredits,
      total_debits: r.reconciliation.totalDebits,
      balance_checks: r.reconciliation.balanceChecks,
      balance_checks_passed: r.reconciliation.balanceChecksPassed,
      totals_match: r.reconciliation.totalsMatch,
    },
    pdf_risk_level: r.pdfRiskLevel,
    risk_reasons: r.riskReasons,
    tamper_findings: tamperFindingsToApiJson(r.tamperFindings ?? []),
    parser: { method: r.parser.method, model: r.parser.model, fallback_reason: r.parser.fallbackReason },
    raw_text_pages: r.rawTextPages,
    readings: readingsToApiJson(r.readings ?? []),
    warnings: r.warnings,
    needs_review: r.needsReview,
    review_reasons: r.reviewReasons,
  };
}

/** A content tamper finding in the API's words (docs/tamper.md). */
export interface TamperFindingJson {
  kind: TamperFinding['kind'];
  category: TamperFinding['category'];
  severity: TamperFinding['severity'];
  page: number | null;
  boxes: Array<[number, number, number, number]>;
  /** 0-based index into the document's transactions in reading order; null when it concerns no row */
  row: number | null;
  message: string;
}

export function tamperFindingsToApiJson(findings: TamperFinding[]): TamperFindingJson[] {
  return findings.map((f) => ({
    kind: f.kind,
    category: f.category,
    severity: f.severity,
    page: f.page,
    boxes: f.boxes,
    row: f.row,
    message: f.message,
  }));
}

/** A reading the parser chose, in the API's words. */
export interface ReadingJson {
  question: ReadingChoice['question'];
  chosen: string;
  candidates: number;
  confidence: number;
  evidence: string;
  /** the best reading not taken and why it lost; null when only one reading was possible */
  runner_up: { chosen: string; why_not: string } | null;
}

/** What the parser inferred (date order, year, column roles, sign convention), for the API and the CLI. */
export function readingsToApiJson(readings: ReadingChoice[]): ReadingJson[] {
  return readings.map((r) => ({
    question: r.question,
    chosen: r.chosen,
    candidates: r.candidates,
    confidence: r.confidence,
    evidence: r.evidence,
    runner_up: r.runnerUp ? { chosen: r.runnerUp.chosen, why_not: r.runnerUp.whyNot } : null,
  }));
}

/** A header field's provenance in the API's words. */
export interface FieldSourceJson {
  page: number | null;
  line: number | null;
  via: string;
  text: string;
  confidence: number;
  /** [x0, y0, x1, y1] in PDF points (origin top-left) of the printed words on `page`; empty when not read from one place */
  boxes: Array<[number, number, number, number]>;
}

/** Where each header field was read, keyed by the API's field names (bank_name, statement_period_start, ...); null when not read. */
export function fieldSourcesToApiJson(sources: FieldSources): Record<string, FieldSourceJson | null> {
  const out: Record<string, FieldSourceJson | null> = {};
  for (const f of HEADER_FIELDS) {
    const s = sources[f];
    out[apiFieldName(f)] = s
      ? { page: s.page, line: s.line, via: s.via, text: s.text, confidence: s.confidence, boxes: s.page === null ? [] : (s.boxes ?? []) }
      : null;
  }
  return out;
}

/** Serialises a StatementError for the API/CLI. */
export function errorToApiJson(e: unknown): Record<string, unknown> {
  if (e instanceof StatementError) return { error: { code: e.code, message: e.message } };
  return { error: { code: 'corrupt', message: (e as Error)?.message ?? String(e) } };
}
