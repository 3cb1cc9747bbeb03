/** Public types of @ledgerlens/statements. */

/** Where a row or a value was read: the 1-based page and the boxes [x0, y0, x1, y1] of its printed lines, in PDF points (origin top-left). */
export interface ReadSource {
  page: number;
  boxes: Array<[number, number, number, number]>;
}

export interface StatementTransaction {
  /** YYYY-MM-DD (may be a non-existent calendar date if the document prints one; see warnings) */
  date: string;
  description: string;
  /** signed: credits > 0, debits < 0 */
  amount: number;
  balance: number | null;
  transactionType: 'credit' | 'debit';
  /** where the row was read (its line and its continuation lines on the same page); absent from LLM readings */
  source?: ReadSource;
  /** problems with this row's own cells (an impossible date, an amount the running balance contradicts), for a person */
  rowWarnings?: string[];
}

export type DocumentType = 'bank_statement' | 'tax_return' | 'profit_and_loss' | 'other';

export type StatementErrorCode = 'no_text' | 'encrypted' | 'corrupt' | 'blank' | 'too_large' | 'unsupported_format';

export class StatementError extends Error {
  readonly code: StatementErrorCode;
  constructor(code: StatementErrorCode, message: string) {
    super(message);
    this.name = 'StatementError';
    this.code = code;
  }
}

export interface Reconciliation {
  reconciled: boolean;
  /** index into transactions of the first row whose printed running balance does not follow */
  firstBrokenRow: number | null;
  /** opening + credits - debits */
  expectedClosing: number | null;
  /** printed closing - expected closing */
  difference: number | null;
  confidence: number;
  totalCredits: number;
  totalDebits: number;
  balanceChecks: number;
  balanceChecksPassed: number;
  totalsMatch: boolean | null;
}

export type RiskLevel = 'low' | 'medium' | 'high';

/**
 * A sign of editing read from the document's content (docs/tamper.md): where it is and a sentence a
 * person can check on the page.
 */
export interface TamperFinding {
  kind:
    | 'glyph_style'
    | 'alignment'
    | 'baseline'
    | 'covered_text'
    | 'overlapping_text'
    | 'hidden_text'
    | 'balance_chain'
    | 'totals'
    | 'draw_order'
    | 'period_dates'
    | 'round_amount'
    | 'font_pages'
    | 'pasted_patch'
    | 'pasted_image';
  /** content: the printed glyphs; arithmetic: the figures; structure: how the file is built */
  category: 'content' | 'arithmetic' | 'structure';
  severity: 'medium' | 'high';
  /** 1-based page; null when the finding is about the whole document */
  page: number | null;
  /** [x0, y0, x1, y1] in PDF points (origin top-left) on `page`, as the transactions' source boxes */
  boxes: Array<[number, number, number, number]>;
  /** index into transactions of the row it concerns; null when it concerns no row */
  row: number | null;
  message: string;
}

export interface ParserInfo {
  method: 'rule' | 'llm';
  model: string | null;
  fallbackReason: string | null;
}

export const HEADER_FIELDS = [
  'bankName',
  'accountHolder',
  'accountNumberLast4',
  'accountType',
  'currency',
  'periodStart',
  'periodEnd',
  'openingBalance',
  'closingBalance',
] as const;
export type HeaderFieldName = (typeof HEADER_FIELDS)[number];

/** Where a header value was read. */
export interface FieldSource {
  /** 1-based page; null when the value was not read from one place (the transactions, an LLM reading) */
  page: number | null;
  /** 1-based line on the page, top to bottom; null when not read from one line */
  line: number | null;
  /** the label printed beside the value ("Account Number"), or the rule that found it ("mailing block") */
  via: string;
  /** the printed text the value was read from */
  text: string;
  /** 0..1; below 0.7 the value comes with a warning */
  confidence: number;
  /** the printed words the value was read from, [x0, y0, x1, y1] in PDF points (origin top-left), on `page` */
  boxes?: Array<[number, number, number, number]>;
}

export type FieldSources = Partial<Record<HeaderFieldName, FieldSource>>;

/**
 * A reading the parser had to choose (which money column is which, the sign convention, DD/MM or
 * MM/DD, the year of yearless dates) and how sure it is: the running balance, the printed totals,
 * the period or the calendar decided it.
 */
export interface ReadingChoice {
  /** row_order: rows printed oldest or newest first (the running balance runs down or up the page) */
  question: 'columns' | 'sign' | 'date_order' | 'year' | 'row_order';
  /** the reading taken, in words */
  chosen: string;
  /** how many readings were weighed */
  candidates: number;
  /** 0..1 */
  confidence: number;
  /** what decided it, for a person */
  evidence: string;
  /** the best reading not taken, and why it lost (absent when only one reading was possible) */
  runnerUp?: { chosen: string; whyNot: string };
}

/** The header fields a bank statement parser reads. */
export interface BankStatementFields {
  bankName: string | null;
  accountHolder: string | null;
  accountNumberLast4: string | null;
  accountType: string | null;
  periodStart: string | null;
  periodEnd: string | null;
  openingBalance: number | null;
  closingBalance: number | null;
}

export interface ParseResult extends BankStatementFields {
  documentType: DocumentType;
  /** ISO 4217 code from codes, symbols or country marks in the text; null when nothing names one */
  currency: string | null;
  /** `printed` on the statement, or the default for the `bank_country` (its charter): a currency declared at upload wins over a default */
  currencyFrom: 'printed' | 'bank_country' | null;
  /** where each header field was read (page, line, label or rule) and with what confidence */
  fieldSources: FieldSources;
  classificationConfidence: number;
  pageCount: number;
  extractionMethod: 'text' | 'ocr' | 'mixed';
  extractionConfidence: number;
  mimeType: string;
  transactions: StatementTransaction[];
  reconciliation: Reconciliation;
  pdfRiskLevel: RiskLevel;
  riskReasons: string[];
  /** the content findings behind the risk (glyphs, covered or hidden text, arithmetic, structure) */
  tamperFindings?: TamperFinding[];
  parser: ParserInfo;
  /** number of pages that carried a usable text layer */
  rawTextPages: number;
  /** pages read (wholly or in part) by OCR */
  ocrPages?: number;
  /** the readings the parser chose among (columns, sign, date order, year) and how sure it is */
  readings?: ReadingChoice[];
  warnings: string[];
  /** a bank statement with no transactions, or that does not reconcile, or with misprinted balances */
  needsReview: boolean;
  /** why it needs review, for a person (empty when it does not) */
  reviewReasons: string[];
}

export interface LlmOptions {
  apiKey: string;
  baseURL?: string;
  model: string;
  timeoutMs?: number;
  /** pages per request (default 4) */
  pagesPerChunk?: number;
}

export type ParseStep = 'classifying' | 'extracting_text' | 'running_ocr' | 'parsing_with_llm';

export interface ParseOptions {
  filename?: string;
  documentTypeHint?: DocumentType;
  llm?: LlmOptions;
  signal?: AbortSignal;
  onStep?: (step: ParseStep) => void;
  limits?: Partial<Limits>;
  /** disable OCR of pages without a text layer (they then raise no_text) */
  ocr?: boolean;
  /** when the file was received: last source of years for dates printed without one (default: now) */
  receivedAt?: Date;
}

export interface Limits {
  maxBytes: number;
  maxPages: number;
  /** wall-clock budget for text extraction of a single page */
  pageTimeMs: number;
  /** wall-clock budget for the whole extraction (text + OCR) */
  totalTimeMs: number;
  /** max characters per page before the page is considered a bomb */
  maxCharsPerPage: number;
  maxOcrPages: number;
  /** decoded content-stream bytes per page (content and form XObjects, after every filter) */
  maxContentBytes: number;
  /** XObject draws per page counted through nested forms (a form drawn 1,000 times costs 1,000x its content) */
  maxFormDraws: number;
  /** form XObject nesting depth */
  maxFormDepth: number;
  /** pixels of one embedded image or of an uploaded image file */
  maxImagePixels: number;
  /** tiling-pattern cells drawn per page (each fill with a pattern tiles the area it covers, counted over the page) */
  maxPatternTiles: number;
}

export const DEFAULT_LIMITS: Limits = {
  maxBytes: 50 * 1024 * 1024,
  maxPages: 300,
  pageTimeMs: 2_000,
  totalTimeMs: 120_000,
  maxCharsPerPage: 200_000,
  maxOcrPages: 60,
  maxContentBytes: 32 * 1024 * 1024,
  maxFormDraws: 100_000,
  maxFormDepth: 8,
  maxImagePixels: 60_000_000,
  maxPatternTiles: 1_000_000,
};

/** A word with its position on the page, in PDF points, origin top-left. */
export interface Word {
  text: string;
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  /** baseline */
  base: number;
  size: number;
  font: string;
  conf?: number;
}

export interface Line {
  words: Word[];
  y0: number;
  y1: number;
  base: number;
  text: string;
}

export interface PageLayout {
  index: number;
  width: number;
  height: number;
  lines: Line[];
  method: 'text' | 'ocr' | 'none';
  confidence: number;
  imageRects: Array<[number, number, number, number]>;
}
