/**
 * Statement header fields read by label and geometry.
 *
 * A value belongs to its label: it is printed on the same line to the right of the label, or on the
 * line below in the label's column. Each field has a vocabulary of labels; where no label names a
 * field, a layout rule may (the holder is the name at the top of the mailing block, the bank is the
 * logo text, a legal-name line or the domain of its URL). Every value carries where it was read
 * (page, line, the label or rule) and a confidence; a low confidence is reported as a warning.
 */
import { CURRENCY_SUGGESTION, readCurrency } from './currency';
import { findPeriod, fullDatesIn } from './period';
import { joinSplitAmount, parseAmount, round2 } from './tokens';
import { FieldSource, FieldSources, HEADER_FIELDS, HeaderFieldName, Line, PageLayout, Word } from './types';

export { HEADER_FIELDS };
export type { FieldSource, FieldSources, HeaderFieldName };

export interface StatementHeader {
  bankName: string | null;
  accountHolder: string | null;
  accountNumberLast4: string | null;
  accountType: string | null;
  currency: string | null;
  /** printed on the statement, or the default for the bank's country (a currency declared at upload wins over it) */
  currencyFrom: 'printed' | 'bank_country' | null;
  periodStart: string | null;
  periodEnd: string | null;
  openingBalance: number | null;
  closingBalance: number | null;
  /** the period was printed day-first (DD/MM) */
  periodDayFirst: boolean | null;
  sources: FieldSources;
}

/** Below this a value is reported with a warning. */
export const LOW_CONFIDENCE = 0.7;

const API_NAMES: Record<HeaderFieldName, string> = {
  bankName: 'bank_name',
  accountHolder: 'account_holder',
  accountNumberLast4: 'account_number_last4',
  accountType: 'account_type',
  currency: 'currency',
  periodStart: 'statement_period_start',
  periodEnd: 'statement_period_end',
  openingBalance: 'opening_balance',
  closingBalance: 'closing_balance',
};
export const apiFieldName = (f: HeaderFieldName): string => API_NAMES[f];

/** One warning per value read with a low confidence: what was read, where, and why it is uncertain. */
export function lowConfidenceWarnings(values: Partial<Record<HeaderFieldName, unknown>>, sources: FieldSources): string[] {
  const out: string[] = [];
  for (const f of HEADER_FIELDS) {
    const s = sources[f];
    const v = values[f];
    if (!s || v === null || v === undefined || s.confidence >= LOW_CONFIDENCE) continue;
    const where = s.page === null ? '' : ` on page ${s.page}${s.line === null ? '' : `, line ${s.line}`}`;
    out.push(
      `low confidence (${s.confidence.toFixed(2)}) in ${API_NAMES[f]} ${JSON.stringify(v)}: read from ${s.via}${where} ("${s.text}"); check it`,
    );
  }
  return out;
}

// ---------------------------------------------------------------- geometry

interface At {
  page: PageLayout;
  li: number;
}

export interface Phrase {
  words: Word[];
  text: string;
  x0: number;
  x1: number;
  size: number;
}

const sizeOf = (ws: Word[]) => Math.max(4, ...ws.map((w) => w.size));

/** Splits words into phrases separated by wide gaps (columns). */
export function phrases(words: Word[]): Phrase[] {
  const out: Word[][] = [];
  for (const w of words) {
    const cur = out[out.length - 1];
    const prev = cur?.[cur.length - 1];
    const sameStyle = prev && (w.font === 'ocr' || Math.max(prev.size, w.size) / Math.max(1, Math.min(prev.size, w.size)) < 1.3);
    if (cur && prev && sameStyle && w.x0 - prev.x1 < Math.max(w.size, 4) * 1.6) cur.push(w);
    else out.push([w]);
  }
  return out.map((ws) => ({
    words: ws,
    text: ws.map((w) => w.text).join(' '),
    x0: ws[0].x0,
    x1: ws[ws.length - 1].x1,
    size: Math.max(...ws.map((w) => w.size)),
  }));
}

interface LabelHit extends At {
  /** word indices of the label on its line [w0, w1) */
  w0: number;
  w1: number;
  x0: number;
  x1: number;
  label: string;
}

const phraseCache = new WeakMap<Line, Phrase[]>();
/** The phrases of a line (computed once per line: header fields and the table reader both ask). */
export function linePhrases(line: Line): Phrase[] {
  let ps = phraseCache.get(line);
  if (!ps) {
    ps = phrases(line.words);
    phraseCache.set(line, ps);
  }
  return ps;
}

/** Occurrences of a label pattern on a line, mapped to the words they cover. */
const globals = new Map<RegExp, RegExp>();
function labelHits(at: At, re: RegExp): LabelHit[] {
  const line = at.page.lines[at.li];
  let g = globals.get(re);
  if (!g) {
    g = new RegExp(re.source, re.flags.includes('g') ? re.flags : `${re.flags}g`);
    globals.set(re, g);
  }
  g.lastIndex = 0;
  if (!g.test(line.text)) return [];
  g.lastIndex = 0;
  const starts: number[] = [];
  let pos = 0;
  for (const w of line.words) {
    starts.push(pos);
    pos += w.text.length + 1;
  }
  const out: LabelHit[] = [];
  for (const m of line.text.matchAll(g)) {
    if (!m[0].trim()) continue;
    const a = m.index!;
    const b = a + m[0].trimEnd().length;
    let w0 = -1;
    let w1 = -1;
    line.words.forEach((w, k) => {
      if (starts[k] < b && starts[k] + w.text.length > a) {
        if (w0 < 0) w0 = k;
        w1 = k + 1;
      }
    });
    if (w0 < 0) continue;
    out.push({ ...at, w0, w1, x0: line.words[w0].x0, x1: line.words[w1 - 1].x1, label: m[0].trim().replace(/:$/, '').trim() });
  }
  return out;
}

interface ValueText {
  words: Word[];
  /** every word right of the label on its line (amounts may sit a column further) */
  rest: Word[];
  text: string;
  page: PageLayout;
  li: number;
  below: boolean;
}

/** The phrase printed right of a label on its line (a label's own trailing ":" skipped), up to the next column gap. */
function valueRight(h: LabelHit): ValueText | null {
  const line = h.page.lines[h.li];
  const rest = line.words.slice(h.w1);
  if (rest.length && /^[:#-]$/.test(rest[0].text)) rest.shift();
  // "Beginning Balance on" (the date and the value printed on lines of their own beside it)
  if (rest.length <= 2 && rest.every((w) => /^(on|as|of|at|for|dated)$/i.test(w.text))) rest.length = 0;
  if (!rest.length) {
    // a value printed beside the label a few points off its baseline was grouped into a line of its own
    const size = sizeOf(line.words.slice(h.w0, h.w1));
    for (const k of [h.li - 1, h.li + 1]) {
      const other = h.page.lines[k];
      if (!other || Math.abs(other.base - line.base) > size * 0.6) continue;
      const beside = other.words.filter((w) => w.x0 >= h.x1);
      if (!beside.length || other.words.some((w) => w.x1 > h.x0 && w.x0 < h.x1)) continue;
      const ph = phrases(beside)[0];
      return { words: ph.words, rest: beside, text: ph.text, page: h.page, li: k, below: false };
    }
    return null;
  }
  const ph = phrases(rest)[0];
  return { words: ph.words, rest, text: ph.text, page: h.page, li: h.li, below: false };
}

/** The words printed under a label, in its column, on the next line (or the one after when the next is blank there). */
function valueBelow(h: LabelHit): ValueText | null {
  const lines = h.page.lines;
  const line = lines[h.li];
  const size = sizeOf(line.words.slice(h.w0, h.w1));
  for (let k = h.li + 1; k < lines.length && k <= h.li + 2; k++) {
    const next = lines[k];
    if (next.base - line.base > size * 3.4) break;
    const ph = linePhrases(next).filter((p) => Math.min(p.x1, h.x1 + size) - Math.max(p.x0, h.x0 - size) > 0);
    if (!ph.length) continue;
    // the phrase whose start is nearest the label's start (left-aligned columns), else its centre (right-aligned)
    const mid = (h.x0 + h.x1) / 2;
    ph.sort(
      (a, b) =>
        Math.min(Math.abs(a.x0 - h.x0), Math.abs((a.x0 + a.x1) / 2 - mid)) -
        Math.min(Math.abs(b.x0 - h.x0), Math.abs((b.x0 + b.x1) / 2 - mid)),
    );
    return { words: ph[0].words, rest: ph[0].words, text: ph[0].text, page: h.page, li: k, below: true };
  }
  return null;
}

interface Found<T> {
  value: T;
  source: FieldSource;
}

type Box = [number, number, number, number];
const r1 = (n: number) => Math.round(n * 10) / 10;
/** The box [x0, y0, x1, y1] of a line, or of some of its words, in PDF points (origin top-left). */
export function boxOf(line: Line, xs?: Array<{ x0: number; x1: number }>): Box {
  const ws = xs?.length ? xs : line.words;
  // a font whose metrics mupdf reads as empty gives its lines a box a point high at the baseline: the
  // box then spans the text's size about the baseline, as the glyphs are drawn
  const size = line.words.reduce((m, w) => Math.max(m, w.size), 0);
  const flat = size > 0 && line.y1 - line.y0 < 0.5 * size;
  const y0 = flat ? Math.min(line.y0, line.base - 0.8 * size) : line.y0;
  const y1 = flat ? Math.max(line.y1, line.base + 0.2 * size) : line.y1;
  if (!ws.length) return [0, r1(y0), 0, r1(y1)];
  return [r1(Math.min(...ws.map((w) => w.x0))), r1(y0), r1(Math.max(...ws.map((w) => w.x1))), r1(y1)];
}

/** Where a value was read: its page and line, the rule, the printed text and the box of the words it came from. */
const src = (v: ValueText | At, via: string, text: string, confidence: number): FieldSource => {
  const line = v.page.lines[v.li];
  // a value beside its label: its own words; otherwise the words of the line holding the printed text
  const words = 'words' in v && v.words.length ? v.words : line.words.filter((w) => text.includes(w.text));
  return {
    page: v.page.index + 1,
    line: v.li + 1,
    via,
    text: text.trim().slice(0, 120),
    confidence,
    boxes: [boxOf(line, words)],
  };
};

/**
 * Tries every occurrence of a label vocabulary on the given lines: first the value to the right of the
 * label, then the value below it. `parse` validates and converts the value text.
 */
function byLabel<T>(
  where: At[],
  re: RegExp,
  parse: (v: ValueText, h: LabelHit) => T | null,
  conf: { right: number; below: number },
): Found<T> | null {
  for (const at of where) {
    for (const h of labelHits(at, re)) {
      const right = valueRight(h);
      const r = right ? parse(right, h) : null;
      if (r !== null && right) return { value: r, source: src(right, h.label, `${h.page.lines[h.li].text}`, conf.right) };
      const below = valueBelow(h);
      const b = below ? parse(below, h) : null;
      if (b !== null && below) return { value: b, source: src(below, `${h.label} (value below)`, below.text, conf.below) };
    }
  }
  return null;
}

// ---------------------------------------------------------------- vocabularies

const ACCT_LABEL =
  /\b(?:account|acct|a\/c)\.?\s*(?:number|no\b\.?|num\b\.?|nbr\b\.?|#)|\bprimary\s+account\b(?!\s+holder)|\b(?:account\s+)?ending\s+in\b|\baccount\s+ending\b|\bcard\s+number\b/i;
/** "Account" alone, as in "ACCOUNT XXXX1234" or "Business Checking Account: ****1234": the value must follow at once */
const ACCT_BARE = /\b(?:account|acct)\b\s*:?/i;
const MASK = '[Xx*•#]';
const ACCT_VALUE = new RegExp(`(?<![\\w.])((?:${MASK}{2,}|\\.{2,}|\\d)(?:${MASK}|\\d|[ -](?=${MASK}|\\d))*\\d)(?![\\d/.,]?\\d)`);
const MASKED_ANYWHERE = new RegExp(`(?<![\\w])(?:${MASK}{3,}|\\.{3,})[ -]?(\\d{4})\\b`);

/** The last four digits of an account number printed in a value ("XXXXXX1234", "1234 5678 9123 4567", "01-2345-0678901-00"). */
export function last4Of(text: string, shortOk = false): string | null {
  const t = text.trim();
  // a date, an amount or a phone number is not an account number
  const m = ACCT_VALUE.exec(t);
  if (!m) return null;
  const v = m[1].trim();
  if (
    /^\d{1,2}[/-]\d{1,2}[/-]\d{2,4}$/.test(v) ||
    parseAmount(v) ||
    /^\(?\d{3}\)?[ -]\d{3}-\d{4}$/.test(v) ||
    /^1-\d{3}-\d{3}-\d{4}$/.test(v)
  )
    return null;
  const digits = v.replace(/\D/g, '');
  if (digits.length < 4) return null;
  if (!/[Xx*•#.]/.test(v) && digits.length < (shortOk ? 4 : 6)) return null;
  return digits.slice(-4);
}

const HOLDER_LABEL =
  /\b(?:primary\s+)?account\s+(?:holder|owner|title)s?\b|\bcustomer\s+name\b|\bprepared\s+for\b|\bbusiness\s+name\b|\bname\s+on\s+(?:the\s+)?account\b|\baccount\s+name\b|^\s*name\b/i;
/** Headings and service blocks printed beside the address block: never a holder. */
const NOT_HOLDER =
  /\b(service|services information|information|customer|contact|questions?|help|support|inquiries|enquiries|return|requested|managing|statement|summary|page|branch|phone|telephone|online|mobile|banking|mailing|visit|call|hours|member|fdic|box|www|http|\.com|important|notice|messages?|balance|transactions?|activity|details|period|date|account|checking|savings|everyday|deposit|withdraw)\b/i;
const BANK_WORD = /\b(bank|banking|credit union|bancorp|banc|savings|trust|federal|financial|n\.a\.?|fcu|building society|bankshares)\b/i;
const STRONG_BANK_WORD = /\b(bank|banking|credit union|bancorp|building society|bankshares)\b/i;
const GENERIC_BANK_PHRASE =
  /^(?:(?:online|mobile|internet|telephone|phone|personal|business|private|commercial|retail|digital|web|your|the|our|and|&|banking|bank|services?|centre|center)\s*)+$/i;
const NOT_BANK = /statement|account|www\.|\.com|p\.?\s?o\.? box|customer|service|call|page|questions|visit|equal housing|member fdic/i;
const BIZ =
  /\b(LLC|L\.L\.C\.|INC|INCORPORATED|CORP|CORPORATION|CO|COMPANY|LTD|LP|LLP|PLLC|PC|GROUP|ENTERPRISES|HOLDINGS|PARTNERS|SERVICES|DBA)\b\.?/i;
const STREET =
  /\b(street|st|road|rd|avenue|ave|lane|ln|terrace|tce|drive|dr|boulevard|blvd|way|place|pl|court|ct|crescent|cres|parkway|pkwy|highway|hwy|suite|ste|apt|unit|floor|fl|box|calle|route|square|sq|close|grove|circle|cir)\b\.?/i;
/** A city line: "Baltimore, MD 21224", "Wellington 6011", "London SW1A 1AA", "Caracas, Venezuela". */
const CITY =
  /,\s*[A-Z]{2}\s+\d{5}(?:-\d{4})?\b|\b[A-Z][a-z]+\s+\d{4}\b|\b[A-Z]{1,2}\d[A-Z\d]?\s*\d[A-Z]{2}\b|^[A-Z][A-Za-z .'-]+,\s*[A-Z][A-Za-z .'-]+$/;

const OPEN_LABEL =
  /\b(?:beginning|opening|previous|starting|start|prior)\b(?:\s+[a-z]+){0,2}?\s+balance\b|\bbalance\s+(?:brought\s+forward|b\/f|forward|last\s+statement|at\s+start(?:\s+of\s+period)?)\b|\b(?:last|previous)\s+statement\s+balance\b/i;
const CLOSE_LABEL =
  /\b(?:ending|closing|new|current|end\s+of\s+period)\b(?:\s+[a-z]+){0,2}?\s+balance\b|\bbalance\s+(?:this\s+statement|at\s+end(?:\s+of\s+period)?)\b/i;
/** printed at the foot of every page: the last one is the closing balance */
const CARRIED_LABEL = /\bbalance\s+(?:carried\s+forward|c\/f)\b/i;
/** balances that are not the statement's opening or closing */
const OTHER_BALANCE = /\b(daily|average|avg|minimum|min|available|collected|ledger|lowest|highest|overdraft|interest|loan|credit limit)\b/i;

const TYPE_LABEL = /\baccount\s+type\b|\btype\s+of\s+account\b|\bproduct(?:\s+name)?\b|\baccount\s+name\b/i;
const TYPE_WORD =
  /\b(checking|savings|money market|current account|cheque account|everyday|streamline|smart access|business account|transaction account)\b/i;

function cleanName(s: string): string {
  return s
    .replace(/\s+/g, ' ')
    .replace(/^[\s:,|-]+|[\s:,;|-]+$/g, '')
    .trim();
}

/** Reads an amount from a run of words ("$ 1,234.56", "1,234.56 CR"). */
function amountIn(words: Word[]): number | null {
  for (let i = 0; i < words.length; i++) {
    let t = words[i].text;
    if (/^[-$£€₹]$|^-\$$/.test(t) && words[i + 1]) t += words[++i].text;
    const split = words[i + 1] ? joinSplitAmount(t, words[i + 1].text) : null;
    if (split) {
      t = split;
      i++;
    }
    let a = parseAmount(t);
    if (!a) continue;
    const next = words[i + 1];
    if (next && /^(CR|DR|-)$/i.test(next.text)) a = parseAmount(t + next.text) ?? a;
    return round2(a.sign < 0 ? -a.value : a.value);
  }
  return null;
}

// ---------------------------------------------------------------- fields

function accountNumber(header: At[], all: At[]): Found<string> | null {
  const labelled = byLabel(all, ACCT_LABEL, (v, h) => last4Of(v.text, /ending/i.test(h.label)), { right: 0.95, below: 0.9 });
  if (labelled) return labelled;
  // "ACCOUNT XXXX1234": the value must follow the word at once
  for (const at of all) {
    for (const h of labelHits(at, ACCT_BARE)) {
      const v = valueRight(h);
      const line = at.page.lines[at.li];
      if (!v || (line.words[h.w1] && line.words[h.w1].x0 - h.x1 > sizeOf(line.words) * 1.6)) continue;
      const l4 = last4Of(
        v.words
          .slice(0, 4)
          .map((w) => w.text)
          .join(' '),
      );
      if (l4) return { value: l4, source: src(v, h.label, line.text, 0.85) };
    }
  }
  // a masked number with no label beside it ("CHECKING-XXXXXXXX4101")
  for (const at of header) {
    const m = MASKED_ANYWHERE.exec(at.page.lines[at.li].text);
    if (m) return { value: m[1], source: src(at, 'masked number without a label', at.page.lines[at.li].text, 0.6) };
  }
  return null;
}

/** "1st Choice Plumbing LLC": a business name may start with digits, a street line ("17 Mill Road") is not one */
const digitName = (s: string) => /^\d/.test(s) && BIZ.test(s) && !STREET.test(s);
const holderOk = (s: string, bank: string | null) =>
  s.length >= 3 &&
  s.length <= 70 &&
  (/^[A-Za-z]/.test(s) || digitName(s)) &&
  /[A-Za-z]{2}/.test(s) &&
  !s.split(' ').some((w) => parseAmount(w)) &&
  !NOT_HOLDER.test(s) &&
  !(bank && s.toLowerCase() === bank.toLowerCase()) &&
  !STRONG_BANK_WORD.test(s) &&
  s.split(' ').length <= 8;

/** The name at the top of the mailing block: a name phrase over a street line and a city line, in one column. */
function mailingBlock(header: At[], bank: string | null): Found<string> | null {
  const byPage = new Map<PageLayout, Array<{ li: number; ph: Phrase; base: number }>>();
  for (const at of header) {
    const list = byPage.get(at.page) ?? [];
    for (const ph of linePhrases(at.page.lines[at.li])) list.push({ li: at.li, ph, base: at.page.lines[at.li].base });
    byPage.set(at.page, list);
  }
  const cands: Array<{ f: Found<string>; score: number }> = [];
  for (const [page, list] of byPage) {
    for (let k = 0; k < list.length; k++) {
      const addr = list[k];
      const t = addr.ph.text;
      const street =
        (/^\d+[A-Za-z]?\s+[A-Za-z]/.test(t) && STREET.test(t)) ||
        /^p\.?\s?o\.?\s+box\b/i.test(t) ||
        /^\d+[A-Za-z]?\s+[A-Za-z][A-Za-z'.-]+\s+[A-Za-z]/.test(t);
      const streetish = street || (/,/.test(t) && /\d/.test(t) && !parseAmount(t));
      if (!streetish) continue;
      // the lines above it in the same column, close together
      const column = list
        .filter((o) => o.li < addr.li && Math.abs(o.ph.x0 - addr.ph.x0) <= Math.max(4, addr.ph.size * 0.6))
        .sort((a, b) => b.li - a.li);
      let prevBase = addr.base;
      let top: (typeof list)[number] | null = null;
      for (const o of column) {
        if (prevBase - o.base > Math.max(4, addr.ph.size) * 2.3) break;
        if ((/^\d/.test(o.ph.text) && !digitName(o.ph.text)) || /^p\.?\s?o\.?\s+box\b/i.test(o.ph.text)) {
          prevBase = o.base; // a second address line
          continue;
        }
        if (!holderOk(cleanName(o.ph.text), bank)) break;
        top = o;
        prevBase = o.base;
      }
      if (!top) continue;
      // the city line under the street: strengthens the reading
      const below = list.find(
        (o) => o.li > addr.li && o.li <= addr.li + 2 && Math.abs(o.ph.x0 - addr.ph.x0) <= Math.max(4, addr.ph.size * 0.6),
      );
      const city = !!below && (CITY.test(below.ph.text) || /\d/.test(below.ph.text));
      const conf = street && city ? 0.85 : street || city ? 0.75 : 0.6;
      const name = cleanName(top.ph.text);
      // blocks near the top-left of the first page are the mailing address; the bank's own address sits elsewhere
      const score = conf * 10 - page.index * 5 - (top.ph.x0 / Math.max(1, page.width)) * 2;
      cands.push({ f: { value: name, source: src({ page, li: top.li }, 'mailing block', top.ph.text, conf) }, score });
    }
  }
  cands.sort((a, b) => b.score - a.score);
  return cands[0]?.f ?? null;
}

function holder(header: At[], all: At[], bank: string | null): Found<string> | null {
  const labelled = byLabel(
    all,
    HOLDER_LABEL,
    (v) => {
      const s = cleanName(v.text);
      return holderOk(s, bank) ? s : null;
    },
    { right: 0.95, below: 0.85 },
  );
  if (labelled) return labelled;
  const block = mailingBlock(header, bank);
  if (block) return block;
  // a business name printed alone above the first table
  for (const at of header) {
    for (const ph of linePhrases(at.page.lines[at.li])) {
      const s = cleanName(ph.text);
      if (BIZ.test(s) && !/\d{3}/.test(s) && holderOk(s, bank))
        return { value: s, source: src(at, 'business name above the table', ph.text, 0.55) };
    }
  }
  return null;
}

const distinctive = (name: string) =>
  name
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length >= 3 && !BANK_WORD.test(w) && !/^(the|and|of|usa|nz|national|limited|ltd|group|na)$/.test(w));

function bankFromDomain(host: string): string | null {
  const label = host.replace(/^(?:https?:\/\/)?(?:www\.)?/i, '').split('.')[0];
  if (!label || /^(example|templatelab|google|gmail|yahoo|outlook|hotmail|facebook|twitter|linkedin|youtube|apple|microsoft)$/i.test(label))
    return null;
  if (/bank/i.test(label)) {
    const parts = label
      .replace(/([a-z])([A-Z])/g, '$1 $2')
      .replace(/(bank)/i, ' $1 ')
      .replace(/-/g, ' ')
      .trim()
      .split(/\s+/);
    return parts.map((p) => p[0].toUpperCase() + p.slice(1).toLowerCase()).join(' ');
  }
  return label.length <= 5 ? label.toUpperCase() : label[0].toUpperCase() + label.slice(1);
}

/** What is left of a name without the words every bank shares: a name made only of them names no bank. */
const GENERIC_NAME_WORD =
  /^(bank|banking|banc|bancorp|bankshares|federal|savings|trust|financial|national|credit|union|building|society|fsb|fcu|n|a|na|the|of|and|company|co|corp|corporation|inc|group|holdings|limited|ltd|plc|online|mobile|internet|personal|business|private|commercial|retail|digital|services?|your|our|my)$/i;
const nameCore = (s: string) =>
  s
    .split(/[^A-Za-z0-9&]+/)
    .filter((w) => w && !GENERIC_NAME_WORD.test(w))
    .join('')
    .replace(/&/g, '');
/** A heading in the reader's voice ("Your Adv Plus Banking", "Our Business Banking") is a product, not the bank. */
const ADDRESSED = /^(?:your|our|my|welcome|thank)\b/i;

interface BankCandidate {
  f: Found<string>;
  score: number;
}

/** Logo text: a bank-like phrase high and large on the first page (letters stacked one word a line read as one). */
function logoCandidates(header: At[], first: PageLayout | undefined): BankCandidate[] {
  const cands: BankCandidate[] = [];
  const top = (first?.height ?? 800) * 0.3;
  const consider = (at: At, text: string, size: number, base: number) => {
    // OCR specks beside a logo ("¢@X First Security Bank") are not part of the name
    const s = cleanName(text)
      .replace(/^(?:\S*[^\w\s&.,'()-]\S*\s+)+/, '')
      .replace(/(?:\s+\S*[^\w\s&.,'()-]\S*)+$/, '');
    if (
      !BANK_WORD.test(s) ||
      NOT_BANK.test(s) ||
      /\d/.test(s) ||
      s.length > 60 ||
      GENERIC_BANK_PHRASE.test(s) ||
      ADDRESSED.test(s) ||
      nameCore(s).length < 2 ||
      /\b(?:i?s|are|was)\s+an?\b/i.test(s) ||
      s.split(' ').length > 7 ||
      !(STRONG_BANK_WORD.test(s) || !BIZ.test(s.replace(/\bco\b/i, '')))
    )
      return;
    const high = at.page.index === 0 && base <= top;
    const score = size * 10 - (base / (at.page.height || 800)) * 20 - at.page.index * 50;
    cands.push({ f: { value: s, source: src(at, high ? 'logo text' : 'bank name', text, high ? 0.85 : 0.75) }, score });
  };
  for (const [i, at] of header.entries()) {
    const line = at.page.lines[at.li];
    for (const ph of linePhrases(line)) consider(at, ph.text, ph.size, line.base);
    // a logo set one word a line ("USAA / FEDERAL / SAVINGS / BANK"): the words left-aligned and close together
    const stacked = [line];
    for (let k = i + 1; k < header.length && stacked.length < 5; k++) {
      const prev = stacked[stacked.length - 1];
      const next = header[k].page.lines[header[k].li];
      if (header[k].page !== at.page || !oneWord(next) || !oneWord(prev)) break;
      if (Math.abs(next.words[0].x0 - prev.words[0].x0) > 4 || next.y0 - prev.y1 > prev.words[0].size * 0.8) break;
      stacked.push(next);
    }
    if (stacked.length >= 2) consider(at, stacked.map((l) => l.text.trim()).join(' '), line.words[0].size, line.base);
  }
  return cands;
}

const oneWord = (l: Line) => l.words.length === 1 && /^[A-Za-z&'.-]{2,15}$/.test(l.words[0].text);

/** The bank's legal name where the bank states it ("X Bank, N.A. Member FDIC", "BBVA USA is a bank ..."), on any page. */
function legalNameCandidates(everywhere: At[]): BankCandidate[] {
  const cands: BankCandidate[] = [];
  for (const at of everywhere) {
    const text = at.page.lines[at.li].text;
    const stated =
      /^(?:©\s*\d{4}\s+)?([A-Z][\w&.,' -]{1,60}?)\s*(?:\([^)]*\)\s*)?,?\s+i?s\s+an?\s+(?:[a-z]+\s+){0,2}(?:bank|member|credit union|savings)/.exec(
        text,
      );
    // the name is the run of capitalised words just before its charter ("provided by Coastal Community Bank, Member FDIC")
    const member =
      /((?:[A-Z][\w&.'-]*\s+(?:(?:of|and|&)\s+)?){0,5}(?:Bank|BANK|Trust|Credit Union|Bancorp|Savings Bank|Building Society)(?:,?\s+N\.\s?A\.)?),?\s+(?:Member\s+(?:FDIC|NCUA)|MEMBER\s+(?:FDIC|NCUA))/.exec(
        text,
      );
    for (const m of [stated, member]) {
      if (!m) continue;
      const s = cleanName(m[1]);
      if (s.length >= 3 && !NOT_BANK.test(s) && nameCore(s).length >= 2)
        cands.push({ f: { value: s, source: src(at, 'legal name line', text, 0.8) }, score: -1e3 - at.page.index });
    }
  }
  return cands;
}

/** Bank names in URL domains ("HowardBank.com", "www.bbva.com"). */
function domainNames(header: At[]): Array<Found<string>> {
  const domains: Array<Found<string>> = [];
  for (const at of header) {
    const line = at.page.lines[at.li];
    for (const m of line.text.matchAll(
      /\b(?:https?:\/\/)?(?:www\.)?([A-Za-z0-9-]{3,40})\.(?:com|bank|net|org|co\.nz|co\.uk|com\.au|ca|co\.in|in)\b/g,
    )) {
      const name = bankFromDomain(m[1]);
      if (name) domains.push({ value: name, source: src(at, 'URL domain', line.text, 0.6) });
    }
  }
  return domains;
}

/** Words a product name puts after the brand ("FROST BUSINESS CHECKING", "M&T SIMPLE CHECKING FOR BUSINESS"). */
const PRODUCT_WORD =
  /^(business|simple|small|personal|basic|premier|premium|preferred|advantage|essential|everyday|classic|total|totally|free|interest|student|relationship|commercial|standard|plus|select|elite|value|smart|analyzed|analysis|regular|choice|platinum|gold|silver|money|market|consumer|secure|senior|youth|private|checking|savings|account|statement|summary|adv|direct|online|statement|of|for|and|with|the|your|our|my)$/i;

/** Last resort: the brand a product name starts with, when the bank prints its name only in its logo. */
function productBrand(header: At[]): Found<string> | null {
  for (const at of header) {
    // drawn rules set as text ("_____", "¬¬¬¬") may overlap the words: left out
    const words = at.page.lines[at.li].words.filter((w) => !/^[_¬=~-]{4,}$/.test(w.text)).sort((a, b) => a.x0 - b.x0);
    for (const ph of [{ text: words.map((w) => w.text).join(' ') }, ...linePhrases(at.page.lines[at.li])]) {
      const m = /^([A-Za-z][A-Za-z&'.-]{1,15}(?:\s+[A-Za-z][A-Za-z&'.-]{1,15})?)\s+((?:[A-Za-z]+\s+){0,3})(checking|savings)\b/i.exec(
        cleanName(ph.text),
      );
      if (!m) continue;
      const brand = m[1].split(/\s+/);
      const cut = brand.findIndex((w) => PRODUCT_WORD.test(w));
      const kept = (cut < 0 ? brand : brand.slice(0, cut)).join(' ');
      if (
        !kept ||
        PRODUCT_WORD.test(kept) ||
        nameCore(kept).length < 2 ||
        !m[2]
          .split(/\s+/)
          .filter(Boolean)
          .every((w) => PRODUCT_WORD.test(w))
      )
        continue;
      return { value: kept, source: src(at, 'brand in the product name', ph.text, 0.5) };
    }
  }
  return null;
}

function bank(header: At[], first: PageLayout | undefined, everywhere: At[] = header): Found<string> | null {
  const domains = domainNames(header);
  const squash = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '');
  const corroborated = (name: string) =>
    domains.some((d) => squash(name).includes(squash(d.value)) || squash(d.value).includes(squash(name)));
  const cands = [...logoCandidates(header, first), ...legalNameCandidates(everywhere)];
  // a name the bank's own legal line or URL also gives is preferred to a larger heading
  const legalCores = new Set(cands.filter((c) => c.f.source.via === 'legal name line').map((c) => nameCore(c.f.value).toLowerCase()));
  for (const c of cands)
    if (c.f.source.via !== 'legal name line' && (corroborated(c.f.value) || legalCores.has(nameCore(c.f.value).toLowerCase())))
      c.score += 500;
  cands.sort((a, b) => b.score - a.score);
  const best = cands[0]?.f ?? null;
  if (best) return corroborated(best.value) ? { ...best, source: { ...best.source, confidence: 0.95 } } : best;
  const dom = domains[0];
  if (!dom) return productBrand(header);
  // the domain's name printed elsewhere ("HOWARD RELATIONSHIP CHECKING" beside "HowardBank.com") corroborates it
  const words = distinctive(dom.value);
  const seen =
    words.length > 0 &&
    header.some(
      (at) =>
        at.page.lines[at.li].text !== dom.source.text && words.every((w) => new RegExp(`\\b${w}\\b`, 'i').test(at.page.lines[at.li].text)),
    );
  return seen ? { ...dom, source: { ...dom.source, via: 'URL domain, name printed elsewhere', confidence: 0.75 } } : dom;
}

function accountTypeOf(header: At[], all: At[], bankName: string | null): Found<string> | null {
  const labelled = byLabel(
    all,
    TYPE_LABEL,
    (v) => {
      const s = cleanName(v.text);
      return s.length >= 3 && s.length <= 60 && /[A-Za-z]{3}/.test(s) && !/\d{3}/.test(s) && s.split(' ').length <= 6 && TYPE_WORD.test(s)
        ? s
        : null;
    },
    { right: 0.95, below: 0.9 },
  );
  if (labelled) return labelled;
  const typeStop = /^(your|account|type|summary|statement|of|for|the|product|acct|name|plan|primary|to|from|transfer|online|and|in|on)$/i;
  let fallback: Found<string> | null = null;
  // a transaction row ("TRANSFER TO SAVINGS 400.00") does not name the account's type
  const rowLike = (at: At) => at.page.lines[at.li].words.some((w) => parseAmount(w.text) || /^\d{1,2}[/-]\d{1,2}\b/.test(w.text));
  for (const at of [...header, ...all.filter((x) => !rowLike(x))]) {
    for (const ph of linePhrases(at.page.lines[at.li])) {
      if ((bankName && ph.text.includes(bankName)) || ph.words.length > 6) continue;
      const m =
        /((?:[A-Za-z][A-Za-z&+'-]*\s+){0,4})(checking|savings|money market)\b(?!\s*(bank|credit union|&|and trust|x{2,}|#|\d|account\s*(#|no|number|ending)))/i.exec(
          ph.text,
        );
      if (!m) continue;
      let words = m[1].trim().split(/\s+/).filter(Boolean);
      let cut = 0;
      words.forEach((w, i) => {
        if (typeStop.test(w.replace(/:$/, '')) || /:$/.test(w)) cut = i + 1;
      });
      words = words.slice(cut);
      const value = [...words, m[2]].join(' ');
      const f = { value, source: src(at, 'account type words', ph.text, words.length ? 0.8 : 0.65) };
      if (words.length) return f;
      fallback ??= f;
    }
  }
  return fallback;
}

function balance(all: At[], re: RegExp, last: boolean): Found<number> | null {
  const parse = (v: ValueText, h: LabelHit) => (OTHER_BALANCE.test(h.label) ? null : amountIn(v.rest));
  if (!last) return byLabel(all, re, parse, { right: 0.95, below: 0.9 });
  // "Balance carried forward" is printed at the foot of every page: the last one is the closing balance
  for (let k = all.length - 1; k >= 0; k--) {
    const f = byLabel([all[k]], re, parse, { right: 0.95, below: 0.9 });
    if (f) return f;
  }
  return null;
}

function period(all: At[]): { start: string | null; end: string | null; dayFirst: boolean | null; source: FieldSource | null } {
  const found = findPeriod(all.map((at) => at.page.lines[at.li].text));
  if (found) {
    const at = all[found.line];
    return {
      start: found.start,
      end: found.end,
      dayFirst: found.dayFirst,
      source: src(at, found.labelled ? 'statement period' : 'date range', at.page.lines[at.li].text, found.labelled ? 0.95 : 0.8),
    };
  }
  // single labelled dates: "Statement Ending 09/21/2018", "09/01/2018 Beginning Balance"
  let start: { d: string; at: At } | null = null;
  let end: { d: string; at: At } | null = null;
  const END_LABEL =
    /(end|ending|closing|statement|through|thru)\w*\s+(date|period)|period end|statement (ending|end|closing|closes|issued)|\b(ending|closing) balance\b|\bas of\b/i;
  for (const at of all) {
    const text = at.page.lines[at.li].text;
    const ds = fullDatesIn(text);
    if (!ds.length) {
      // "STATEMENT DATE" over "01/09/14": the date printed under the label
      const m: RegExpExecArray | null = !end ? /\bstatement\s+(date|issued|ending)\b/i.exec(text) : null;
      const under: string | null = m ? dateUnderLabel(at, m.index, m[0].length) : null;
      if (under) end = { d: under, at };
      continue;
    }
    if (!start && /(begin|start|opening|from)\w*\s+(date|period)|period (begin|start)|\b(beginning|opening|starting) balance\b/i.test(text))
      start = { d: ds[0].date, at };
    if (!end && END_LABEL.test(text)) end = { d: ds[ds.length - 1].date, at };
  }
  if (start && end && start.d > end.d) start = null;
  const at = end?.at ?? start?.at;
  return {
    start: start?.d ?? null,
    end: end?.d ?? null,
    dayFirst: null,
    source: at ? src(at, 'labelled dates', at.page.lines[at.li].text, 0.85) : null,
  };
}

/**
 * A full date printed under a label (the label's line holds none): on one of the next two lines of
 * the page, in a word that overlaps the label's words horizontally.
 */
function dateUnderLabel(at: At, from: number, length: number): string | null {
  const line = at.page.lines[at.li];
  let pos = 0;
  let x0 = Infinity;
  let x1 = -Infinity;
  for (const w of line.words) {
    const start = line.text.indexOf(w.text, pos);
    if (start < 0) break;
    pos = start + w.text.length;
    if (start < from + length && pos > from) {
      x0 = Math.min(x0, w.x0);
      x1 = Math.max(x1, w.x1);
    }
  }
  if (!Number.isFinite(x0)) return null;
  const size = Math.max(4, line.words[0]?.size ?? 10);
  for (const below of at.page.lines.slice(at.li + 1, at.li + 5)) {
    if (below.base - line.base > size * 3) break;
    for (const w of below.words) {
      if (Math.min(w.x1, x1 + size) - Math.max(w.x0, x0 - size) <= 0) continue;
      const ds = fullDatesIn(w.text);
      if (ds.length) return ds[0].date;
    }
  }
  return null;
}

export interface ReadHeaderOptions {
  /** the first transaction-table header: the area above it is the statement header */
  firstTable?: { page: number; line: number } | null;
}

/** Reads the header fields of a bank statement from its laid-out pages. */
export function readHeader(pages: PageLayout[], opts: ReadHeaderOptions = {}): StatementHeader {
  const ft = opts.firstTable ?? null;
  const first2 = pages.slice(0, 2);
  const all: At[] = first2.flatMap((page) => page.lines.map((_, li) => ({ page, li })));
  // the header area: page 1 above the first table (all of page 1 when the table starts on a later page)
  const inHeader = (at: At) => at.page.index === pages[0]?.index && (!ft || ft.page > at.page.index || at.li < ft.line);
  const header = all.filter(inHeader);
  // labels are looked for in the header area first, then anywhere on the first two pages
  const ordered = [...header, ...all.filter((at) => !inHeader(at))];
  // carried-forward balances and legal lines may be on any page
  const everywhere: At[] = pages.flatMap((page) => page.lines.map((_, li) => ({ page, li })));
  const sources: FieldSources = {};
  const take = <T>(field: HeaderFieldName, f: Found<T> | null): T | null => {
    if (!f) return null;
    sources[field] = f.source;
    return f.value;
  };
  const bankName = take('bankName', bank(header, pages[0], everywhere));
  const accountHolder = take('accountHolder', holder(header, ordered, bankName));
  const accountNumberLast4 = take('accountNumberLast4', accountNumber(header, ordered));
  const accountType = take('accountType', accountTypeOf(header, ordered, bankName));
  // the period on the first two pages, else wherever it is printed ("Fee period 07/14/2021 - 08/11/2021")
  let p = period(all);
  if (!p.start && !p.end && pages.length > 2) p = period(everywhere);
  if (p.source) {
    if (p.start) sources.periodStart = p.source;
    if (p.end) sources.periodEnd = p.source;
  }
  const openingBalance = take('openingBalance', balance(ordered, OPEN_LABEL, false));
  let closing = balance(ordered, CLOSE_LABEL, false);
  if (!closing) closing = balance(everywhere, CARRIED_LABEL, true);
  const closingBalance = take('closingBalance', closing);
  const cur = readCurrency(everywhere.map((at) => at.page.lines[at.li].text));
  let currency: string | null = null;
  let currencyFrom: StatementHeader['currencyFrom'] = null;
  // printed (a code, a symbol, words, banking marks), or the bank's country from its charter; an address
  // elsewhere only suggests one and is not read (the currency declared at upload applies)
  if (cur && cur.kind !== 'suggestion' && cur.confidence >= CURRENCY_SUGGESTION) {
    currency = cur.code;
    currencyFrom = cur.kind;
    const via = currencyFrom === 'printed' ? cur.via : `default for the bank's country: ${cur.via}`;
    sources.currency = src(everywhere[cur.line], via, cur.text, cur.confidence);
  }
  return {
    bankName,
    accountHolder,
    accountNumberLast4,
    accountType,
    currency,
    currencyFrom,
    periodStart: p.start,
    periodEnd: p.end,
    openingBalance,
    closingBalance,
    periodDayFirst: p.dayFirst,
    sources,
  };
}
