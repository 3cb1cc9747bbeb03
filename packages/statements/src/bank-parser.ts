/**
 * Deterministic layout parser for bank statements.
 *
 * It knows nothing about particular banks: it reads table geometry (header words and their
 * x positions), number and date notations, and section headings, and builds transactions
 * from rows that start with a date.
 */
import {
  daysBetween,
  fmtDate,
  isValidDate,
  joinSplitAmount,
  ParsedAmount,
  ParsedDate,
  parseAmount,
  parseDateToken,
  resolveYear,
  round2,
} from './tokens';
import { boxOf, FieldSource, FieldSources, linePhrases, lowConfidenceWarnings, readHeader } from './header';
import { BankStatementFields, Line, PageLayout, ReadingChoice, StatementTransaction, Word } from './types';
import {
  CellTok,
  Column,
  ColumnRole,
  inferColumns,
  InferredColumns,
  pageShift,
  shiftColumns,
  TableGeometry,
  tableGeometry,
} from './columns';

export type { BankStatementFields } from './types';
export type { ColumnRole } from './columns';

export interface AmountCell {
  page: number;
  role: ColumnRole;
  font: string;
  size: number;
  row: number;
}

export interface BankParseResult extends BankStatementFields {
  /** ISO 4217 code the statement names (see currency.ts); null when nothing names one */
  currency: string | null;
  /** printed, or the default for the bank's country */
  currencyFrom: 'printed' | 'bank_country' | null;
  /** where each header field was read, with a confidence */
  sources: FieldSources;
  transactions: StatementTransaction[];
  warnings: string[];
  /** fonts of the amount cells, for tamper checks */
  amountCells: AmountCell[];
  /** printed running balances that contradict the arithmetic on their row only */
  misprints: string[];
  /** the readings chosen among (columns, sign, date order, year) and how sure the parser is */
  readings: ReadingChoice[];
  /** where a printed daily-balance table first disagrees with the rows (tamper checks narrow the row at fault by it) */
  dailyBreak?: DailyBreak | null;
  /** the last day of a printed daily-balance table that agrees with the opening balance and the rows on every day (a second printing of the closing balance) */
  dailyClosing?: DailyClosing | null;
  /** printed section totals that differ from their rows: the rows (indices into transactions) and printed minus read, in absolute amounts */
  totalBreaks?: Array<{ rows: number[]; difference: number }>;
}

/** The first day a printed daily-balance table disagrees with the opening balance plus the rows. */
export interface DailyBreak {
  /** the last day before it on which the table agrees (null: none) */
  lastGood: string | null;
  /** the first day it disagrees */
  day: string;
  /** printed minus the rows' balance on that day */
  difference: number;
  /** where that day's balance is printed: 1-based page, and [x0, y0, x1, y1] in PDF points (origin top-left) */
  page?: number;
  box?: [number, number, number, number] | null;
}

/** A daily-balance table's last day, on or after the last row's date, where the table holds on every day. */
export interface DailyClosing {
  day: string;
  balance: number;
  /** 1-based page */
  page: number;
  /** the printed date and balance, [x0, y0, x1, y1] in PDF points (origin top-left) */
  box: [number, number, number, number] | null;
}

// ---------------------------------------------------------------- tokens

type Kind = 'date' | 'amount' | 'int' | 'text';
interface Tok {
  text: string;
  x0: number;
  x1: number;
  kind: Kind;
  amount?: ParsedAmount;
  date?: ParsedDate;
  font: string;
  size: number;
  /** the amount was printed in an unusual notation (no decimals, misplaced separators, a space for the point) */
  odd?: string;
}

// "90,350": thousands separators, no decimals; "2,7843.55": separators in the wrong places
const GROUPED_INT_RE = /^(\d{1,3}(?:,\d{3})+)$/;
const MISGROUPED_RE = /^(\d{1,4}(?:,\d{1,4})+\.\d{2})$/;

/** Amounts in notations parseAmount refuses: read by their digits, and said to be odd. */
function looseAmount(text: string): { amount: ParsedAmount; odd: string } | null {
  const m = /^(.*?)\s?(CR|DR|Cr|Dr|-)?$/.exec(text);
  const core = m ? m[1] : text;
  const suf = m?.[2]?.toUpperCase();
  const sign: -1 | 0 | 1 = suf === 'DR' || suf === '-' ? -1 : suf === 'CR' ? 1 : 0;
  if (GROUPED_INT_RE.test(core)) return { amount: { value: Number(core.replace(/,/g, '')), sign }, odd: 'no decimals' };
  if (MISGROUPED_RE.test(core)) return { amount: { value: Number(core.replace(/,/g, '')), sign }, odd: 'thousands separators misplaced' };
  return null;
}

/** An amount printed as two words: a grouped number split by letter spacing, or split at its point ("27" ".46-"). */
function splitAmount(a: Word, b: Word, text: string): string | null {
  const joined = joinSplitAmount(text, b.text);
  if (joined) return joined;
  const atPoint = /^\d{1,3}(,\d{3})*$/.test(text) && /^\.\d{2}/.test(b.text) && b.x0 - a.x1 < Math.max(a.size, 4) * 0.8;
  return atPoint && parseAmount(text + b.text) ? text + b.text : null;
}

const MONTH_RE = /^(jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?$/i;

/** Two words of one token ("Jan" "05", a split amount): the gap is under about an em. */
const nearWord = (a: Word, b: Word) => b.x0 - a.x1 < Math.max(a.size, 4) * 1.2;

function tokenize(line: Line): Tok[] {
  const ws = line.words;
  const out: Tok[] = [];
  for (let i = 0; i < ws.length; i++) {
    const w = ws[i];
    let text = w.text;
    let x1 = w.x1;
    // "Jan 05" / "Jan 5, 2025" / "05 Jan 2025"
    if (MONTH_RE.test(text) && ws[i + 1] && /^\d{1,2},?$/.test(ws[i + 1].text) && nearWord(w, ws[i + 1])) {
      text = `${text} ${ws[i + 1].text}`;
      x1 = ws[i + 1].x1;
      i++;
      if (ws[i + 1] && /^\d{4}$/.test(ws[i + 1].text) && nearWord(ws[i], ws[i + 1])) {
        text = `${text} ${ws[i + 1].text}`;
        x1 = ws[i + 1].x1;
        i++;
      }
    } else if (/^\d{1,2}(st|nd|rd|th)?$/i.test(text) && ws[i + 1] && MONTH_RE.test(ws[i + 1].text) && nearWord(w, ws[i + 1])) {
      text = `${text} ${ws[i + 1].text}`;
      x1 = ws[i + 1].x1;
      i++;
      // "01 Jan 2024"
      if (ws[i + 1] && /^\d{4}$/.test(ws[i + 1].text) && nearWord(ws[i], ws[i + 1])) {
        text = `${text} ${ws[i + 1].text}`;
        x1 = ws[i + 1].x1;
        i++;
      }
    }
    // "3,0 03.49": a grouped amount split by letter spacing; "27 .46-": split at its decimal point
    const split = ws[i + 1] && nearWord(w, ws[i + 1]) ? splitAmount(w, ws[i + 1], text) : null;
    if (split) {
      text = split;
      x1 = ws[i + 1].x1;
      i++;
    }
    // "$ 1,234.56" / "- 1,234.56"
    if ((text === '$' || text === '-' || text === '-$') && ws[i + 1] && nearWord(w, ws[i + 1]) && parseAmount(ws[i + 1].text)) {
      text = text + ws[i + 1].text;
      x1 = ws[i + 1].x1;
      i++;
    }
    // "1,234.56 CR" / "1,234.56 -"
    let amount = parseAmount(text);
    let odd: string | undefined;
    if (!amount) {
      const loose = looseAmount(text);
      if (loose) {
        amount = loose.amount;
        odd = loose.odd;
        if (ws[i + 1] && /^(CR|DR)$/i.test(ws[i + 1].text) && ws[i + 1].x0 - x1 < Math.max(w.size, 4) * 1.5) {
          amount = looseAmount(`${text} ${ws[i + 1].text}`)!.amount;
          text = `${text} ${ws[i + 1].text}`;
          x1 = ws[i + 1].x1;
          i++;
        }
      }
    }
    if (amount && !odd && ws[i + 1] && /^(CR|DR|-)$/i.test(ws[i + 1].text) && ws[i + 1].x0 - x1 < Math.max(w.size, 4) * 1.5) {
      const merged = parseAmount(text + ws[i + 1].text);
      if (merged) {
        amount = merged;
        text = `${text} ${ws[i + 1].text}`;
        x1 = ws[i + 1].x1;
        i++;
      }
    }
    const date = amount ? null : parseDateToken(text);
    const kind: Kind = amount ? 'amount' : date ? 'date' : /^#?\d{1,9}$/.test(text) ? 'int' : 'text';
    out.push({ text, x0: w.x0, x1, kind, amount: amount ?? undefined, date: date ?? undefined, font: w.font, size: w.size, odd });
  }
  return out;
}

/** Splits a line into phrases separated by wide gaps (columns). */
const segments = (line: Line) => linePhrases(line);

// ---------------------------------------------------------------- table headers

function roleOf(phrase: string, haveDate: boolean): ColumnRole | null {
  const p = phrase
    .toLowerCase()
    .replace(/[^a-z#/ ]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (!p) return null;
  if (/balance/.test(p)) return 'balance';
  if (/^(check|chk|ck)s?( (no|nbr|number|num|#))?$|^(check|chk|ck) ?#|^(no|nbr|number|ref|reference|serial)( #| no)?$/.test(p))
    return 'checkno';
  if (/\b(details?|description|narrative|particulars)$/.test(p) && !/balance|amount/.test(p)) return 'desc';
  if (/withdraw|debit|charges|subtraction|payments?\b|paid out|money out|outflow/.test(p) && !/deposit|credit/.test(p)) return 'debit';
  if (/deposit|credit|addition|paid in|money in|receipts|inflow/.test(p) && !/withdraw|debit/.test(p)) return 'credit';
  if (/amount|debit.*credit|credit.*debit/.test(p)) return 'amount';
  if (/\bdate\b|^posted$|^post$|^posting$|^eff\b|^effective|^trans$|^day$/.test(p)) return haveDate ? 'date2' : 'date';
  if (/description|transaction|details?|memo|payee|particulars|activity|narrative|merchant|type/.test(p)) return 'desc';
  return null;
}

interface Header {
  groups: Column[][];
  balanceOnly: boolean;
  /** found from the cells (no header words on the page) */
  inferred?: boolean;
  /** the page it was printed on and where that page's table sits (to follow a table that moves) */
  page?: number;
  geo?: TableGeometry | null;
  /** the header as printed, when this one was moved for a page */
  origin?: Header;
}

function phrasesOf(line: Line): Array<{ text: string; x0: number; x1: number; words: Word[] }> {
  const out: Array<{ text: string; x0: number; x1: number; words: Word[] }> = [];
  for (const w of line.words) {
    const cur = out[out.length - 1];
    if (cur && w.x0 - cur.x1 < Math.max(w.size, 4) * 0.7) {
      cur.text += ` ${w.text}`;
      cur.x1 = w.x1;
      cur.words.push(w);
    } else out.push({ text: w.text, x0: w.x0, x1: w.x1, words: [w] });
  }
  return out;
}

/** Splits a phrase like "Withdrawals/Debits Ending daily balance" whose halves name different columns. */
function splitPhrase(ph: {
  text: string;
  x0: number;
  x1: number;
  words: Word[];
}): Array<{ text: string; x0: number; x1: number; words: Word[] }> {
  const ws = ph.words;
  if (ws.length < 2) return [ph];
  for (let k = 1; k < ws.length; k++) {
    const a = ws.slice(0, k);
    const b = ws.slice(k);
    const ta = a.map((w) => w.text).join(' ');
    const tb = b.map((w) => w.text).join(' ');
    const ra = roleOf(ta, false);
    const rb = roleOf(tb, false);
    // "Payment type and details": a qualifier before the words that name the text column, one column
    const qualifies = rb === 'desc' && /\b(details?|description|narrative|particulars)\b/i.test(tb);
    if (ra && rb && ra !== rb && !qualifies) {
      return [
        { text: ta, x0: a[0].x0, x1: a[a.length - 1].x1, words: a },
        ...splitPhrase({ text: tb, x0: b[0].x0, x1: b[b.length - 1].x1, words: b }),
      ];
    }
  }
  return [ph];
}

type Phrase = { text: string; x0: number; x1: number; words: Word[] };

const headerish = (line: Line) => line.words.length <= 30 && !line.words.some((w) => parseAmount(w.text) || /\d{2}[/-]\d{2}/.test(w.text));

/**
 * Header words joined by dot leaders ("DATE..........AMOUNT.TRANSACTION"): split into their words, each
 * placed along the printed word in proportion to its characters.
 */
function splitLeaders(line: Line): Line {
  if (!line.words.some((w) => LEADER_RE.test(w.text))) return line;
  const words: Word[] = [];
  for (const w of line.words) {
    if (!LEADER_RE.test(w.text)) {
      words.push(w);
      continue;
    }
    const per = (w.x1 - w.x0) / w.text.length;
    for (const m of w.text.matchAll(/[A-Za-z#/&]+/g)) {
      const at = m.index ?? 0;
      words.push({ ...w, text: m[0], x0: w.x0 + at * per, x1: w.x0 + (at + m[0].length) * per });
    }
  }
  return { ...line, words, text: words.map((w) => w.text).join(' ') };
}
const LEADER_RE = /^[A-Za-z]{2,}(\.+[A-Za-z]{2,})+\.*$/;

function detectHeader(line: Line): Header | null {
  line = splitLeaders(line);
  if (line.words.length < 2 || !headerish(line)) return null;
  return headerFromPhrases(phrasesOf(line).flatMap(splitPhrase));
}

/** A header printed on two stacked lines ("Withdrawals/" over "Debits"): phrases that overlap horizontally are joined. */
function detectStackedHeader(a: Line, b: Line): Header | null {
  if (!headerish(a) || !headerish(b)) return null;
  // a title framed by rules ("------ Activity in Date Order ------") above a header is not part of it
  if (/[-—–=_~]{4,}/.test(a.text)) return null;
  const size = Math.max(a.words[0].size, b.words[0].size, 4);
  if (b.base - a.base > size * 1.8 || b.base <= a.base) return null;
  const pa: Phrase[] = phrasesOf(a).map((p) => ({ ...p, words: [...p.words] }));
  const pb = phrasesOf(b);
  // the upper line must be column-aligned with the lower one (not a section heading above a header)
  const overlaps = (p: Phrase) => pb.some((q) => Math.min(p.x1, q.x1) - Math.max(p.x0, q.x0) > 0);
  if (pa.length < 2 || !pa.some(overlaps) || !pa.every((p) => overlaps(p) || roleOf(p.text, false) !== null)) return null;
  const merged: Phrase[] = [...pa];
  for (const q of pb) {
    const over = merged.find((p) => Math.min(p.x1, q.x1) - Math.max(p.x0, q.x0) > 0);
    if (over) {
      over.text = `${over.text} ${q.text}`;
      over.x0 = Math.min(over.x0, q.x0);
      over.x1 = Math.max(over.x1, q.x1);
      over.words.push(...q.words);
    } else merged.push({ ...q });
  }
  merged.sort((x, y) => x.x0 - y.x0);
  const stacked = headerFromPhrases(merged);
  // the lower line is a header on its own, and the upper one names no column it lacks or loses one of
  // its columns (a title above the header, rule lines read as letters): the lower line alone is the header
  const alone = headerFromPhrases(pb.flatMap(splitPhrase));
  if (stacked && alone) {
    const roles = (h: Header) => new Set(h.groups.flat().map((c) => c.role));
    const [s, a] = [roles(stacked), roles(alone)];
    const adds = [...s].some((r) => r !== 'other' && !a.has(r));
    const loses = [...a].some((r) => r !== 'other' && !s.has(r));
    if (!adds || loses) return null;
  }
  return stacked;
}

function headerFromPhrases(phrases: Phrase[]): Header | null {
  if (phrases.length < 2) return null;
  const cols: Column[] = [];
  let unknown = 0;
  for (const ph of phrases) {
    let role = roleOf(ph.text, false);
    if (!role) {
      const sub = ph.text.split(' ');
      if (sub.length > 1 && sub.every((x) => roleOf(x, false))) role = roleOf(sub[0], false);
    }
    if (!role) {
      unknown++;
      role = 'other';
    }
    cols.push({ role, x0: ph.x0, x1: ph.x1, cx: (ph.x0 + ph.x1) / 2 });
  }
  if (unknown > Math.max(1, cols.length / 3)) return null;
  // side-by-side repeated groups (e.g. checks paid in three columns): a role repeats after money was seen
  const money = (r: ColumnRole) => r === 'amount' || r === 'debit' || r === 'credit' || r === 'balance';
  const groups: Column[][] = [];
  let cur: Column[] = [];
  for (const c of cols) {
    // the group's first named role, or its date, repeating after a money column starts the next group
    const firstNamed = cur.find((x) => x.role !== 'other');
    if (
      cur.length &&
      c.role !== 'other' &&
      (c.role === firstNamed?.role || (c.role === 'date' && cur.some((x) => x.role === 'date'))) &&
      cur.some((x) => money(x.role))
    ) {
      groups.push(cur);
      cur = [];
    }
    cur.push(c);
  }
  if (cur.length) groups.push(cur);
  for (const g of groups) {
    let seenDate = false;
    for (const c of g) {
      if (c.role === 'date') {
        if (seenDate) c.role = 'date2';
        seenDate = true;
      }
    }
  }
  const roles = new Set(cols.map((c) => c.role));
  const hasMoney = roles.has('amount') || roles.has('debit') || roles.has('credit');
  const hasDate = roles.has('date');
  if (!hasDate) return null;
  if (!hasMoney && !roles.has('balance')) return null;
  if (!hasMoney && !roles.has('desc') && !roles.has('checkno')) return { groups, balanceOnly: true };
  if (!hasMoney) return null;
  if (!roles.has('desc') && !roles.has('checkno')) {
    // e.g. "Date  Amount" — still a table
  }
  return { groups, balanceOnly: false };
}

// ---------------------------------------------------------------- section headings

interface Section {
  sign: -1 | 0 | 1;
  skip: boolean;
  name: string;
  /** an "ignore" block: a table header below it does not end it */
  hard?: boolean;
}

// matched against the line with spaces removed (text layers split words: "ign ore")
const IGNORE_RE =
  /(shouldbe|tobe|please)?ignored?\b|ignorethe|notbeincluded|notincludedinthe|forinformationonly|informationonly|donotinclude/;

/** A phrase drawn only with rule characters (dashes, underscores, equals signs, pipes, stars). */
const RULE_RE = /^[\s_=*~¬|.+#—–-]+$/;
const RULE_EDGE_RE = /^[_=*~¬|+#—–-]{2,}\s*|\s*[_=*~¬|+#—–-]{2,}$/g;

function classifyHeading(line: Line): Section | null {
  // only the first phrase counts ("Deposits and Other Additions      There were 2 ..."); rules drawn
  // with characters around a heading ("------ DEPOSITS/CREDITS ------") are not phrases
  const t = (segments(line).find((s) => !RULE_RE.test(s.text))?.text ?? '').replace(RULE_EDGE_RE, '').trim();
  if (!t || /\d/.test(t.replace(/\(continued\)|continued/gi, '')) || t.split(' ').length > 8) return null;
  const l = t.toLowerCase();
  if (/^total\b|^subtotal\b/.test(l)) return null;
  if (
    /daily.*balance|balance summary|ledger balance|balances? by date|ending daily|^balances?$|^(ending|closing|available|collected|end of day) balances?$/.test(
      l,
    )
  )
    return { sign: 0, skip: true, name: t };
  if (
    /summary|overview|at a glance|interest|overdraft|message|notice|important|disclosure/.test(l) &&
    !/withdraw|deposit|debit|credit|checks|fee/.test(l.replace(/summary/, ''))
  )
    return { sign: 0, skip: true, name: t };
  const kw: Array<[RegExp, -1 | 1]> = [
    [/deposit|credits?\b|additions?\b|incoming|receipts|money in|paid in/, 1],
    [
      /withdrawal|debits?\b|checks?\b|cheques?|fees?\b|charges?\b|payments?\b|subtractions?|purchases?|money out|paid out|outgoing|transfers out/,
      -1,
    ],
  ];
  let best: { i: number; sign: -1 | 1 } | null = null;
  for (const [re, sign] of kw) {
    const m = re.exec(l);
    if (m && (!best || m.index < best.i)) best = { i: m.index, sign };
  }
  if (best) return { sign: best.sign, skip: false, name: t };
  if (/transaction|activity|details?|history|account detail/.test(l)) return { sign: 0, skip: false, name: t };
  return null;
}

// ---------------------------------------------------------------- rows

interface RawRow {
  date: ParsedDate;
  dateText: string;
  desc: string[];
  amount: number | null; // signed, null when only sign-less ambiguity resolved later
  unsignedAmount: number | null;
  balance: number | null;
  page: number;
  base: number;
  size: number;
  descX0: number;
  cells: AmountCell[];
  /** only a balance was printed on this row */
  balanceOnly?: boolean;
  /** the date was not printed on the row but carried from above */
  inherited?: boolean;
  /** which listing (header or section) the row belongs to */
  block: number;
  /** amounts printed in an odd notation, checked against the balance chain once the rows are read */
  odd?: Array<{ text: string; why: string; role: ColumnRole }>;
  /** the boxes of its printed lines on its page (PDF points) */
  boxes?: Box[];
}

type Box = [number, number, number, number];

const isMoney = (r: ColumnRole | undefined) => r === 'amount' || r === 'debit' || r === 'credit' || r === 'balance';

/**
 * Numbers in a money column printed without a decimal point: "1935" (whole amount) or "120 00" (a space
 * for the point). Text layers only: on OCR pages a bare number is more likely a lost point.
 */
function bareMoney(toks: Tok[], cols: Column[]): Tok[] {
  if (!toks.some((t) => t.kind === 'int')) return toks;
  const out: Tok[] = [];
  // a column that already holds a proper amount on this row: a number beside it is text (a reference)
  const filled = new Set(toks.filter((t) => t.kind === 'amount').map((t) => bestColumn(t, cols)));
  for (let k = 0; k < toks.length; k++) {
    const t = toks[k];
    const col = t.kind === 'int' && /^\d{1,7}$/.test(t.text) ? bestColumn(t, cols) : null;
    // under the column itself, not only nearest to it (a long description's numbers end short of it)
    const under = !!col && t.x1 >= col.x0 - t.size && t.x0 <= col.x1 + t.size;
    const role = col && under && !filled.has(col) ? col.role : undefined;
    if (!isMoney(role)) {
      out.push(t);
      continue;
    }
    const n = toks[k + 1];
    if (n && n.kind === 'int' && /^\d{2}$/.test(n.text) && n.x0 - t.x1 < t.size * 0.8 && bestColumn(n, cols)?.role === role) {
      const text = `${t.text} ${n.text}`;
      out.push({
        ...t,
        text,
        x1: n.x1,
        kind: 'amount',
        amount: { value: Number(`${t.text}.${n.text}`), sign: 0 },
        odd: 'a space for the decimal point',
      });
      k++;
    } else out.push({ ...t, kind: 'amount', amount: { value: Number(t.text), sign: 0 }, odd: 'no decimals' });
  }
  return out;
}

function bestColumn(t: Tok, cols: Column[]): Column | null {
  let best: Column | null = null;
  let bestOv = 0;
  for (const c of cols) {
    const ov = Math.min(t.x1, c.x1) - Math.max(t.x0, c.x0);
    if (ov > bestOv) {
      bestOv = ov;
      best = c;
    }
  }
  if (best) return best;
  let bestD = Infinity;
  for (const c of cols) {
    const d = Math.min(Math.abs(t.x1 - c.x1), Math.abs((t.x0 + t.x1) / 2 - c.cx), Math.abs(t.x0 - c.x0));
    if (d < bestD) {
      bestD = d;
      best = c;
    }
  }
  return best;
}

const signed = (a: ParsedAmount, fallback: -1 | 1): number => round2((a.sign !== 0 ? a.sign : fallback) * a.value);

/** Builds a row from tokens of one table group. Returns null when the tokens are not a transaction. */
function rowFromTokens(
  toks: Tok[],
  cols: Column[] | null,
  section: Section,
  page: number,
  base: number,
  inheritDate?: ParsedDate,
  ocr = false,
): RawRow | null {
  if (!toks.length) return null;
  const found = findRowDate(
    toks.filter((t) => t.text !== '$'),
    cols,
    ocr,
  );
  toks = found.toks;
  const dateIdx = found.dateIdx;
  // a row without a date of its own takes the day's date when it describes something (words, or a
  // reference number beside its amount)
  if (dateIdx < 0 && !(inheritDate && cols && toks[0].kind !== 'date' && toks.some((t) => t.kind === 'text' || t.kind === 'int')))
    return null;
  const dt = dateIdx >= 0 ? toks[dateIdx] : null;
  const date = dt ? dt.date! : inheritDate!;
  const row: RawRow = {
    block: 0,
    inherited: !dt,
    date,
    dateText: dt ? dt.text : `${date.month}/${date.day}`,
    desc: [],
    amount: null,
    unsignedAmount: null,
    balance: null,
    page,
    base,
    size: dt?.size ?? toks[0].size,
    descX0: Infinity,
    cells: [],
  };
  let rest = toks.filter((_, i) => i !== dateIdx);
  if (cols && !ocr && (dt || rest.some((t) => t.kind === 'amount'))) rest = bareMoney(rest, cols);
  const amounts = cols ? cellsByColumn(rest, cols, row) : cellsWithoutHeader(rest, row);
  return withAmounts(row, amounts, section);
}

/** The row's date token: in the date column (or first on the line without columns); OCR's slash-less dates restored. */
function findRowDate(toks: Tok[], cols: Column[] | null, ocr: boolean): { toks: Tok[]; dateIdx: number } {
  let dateIdx = -1;
  if (cols) {
    const dateCol = cols.find((c) => c.role === 'date');
    for (let i = 0; i < toks.length; i++) {
      if (toks[i].kind !== 'date') continue;
      const bc = bestColumn(toks[i], cols);
      // description fragments may be printed left of the date: further along the line, only a date in the date column counts
      if (i < 3 ? !dateCol || bc === dateCol || i === 0 : !!dateCol && bc === dateCol) {
        dateIdx = i;
        break;
      }
    }
  } else if (toks[0].kind === 'date') dateIdx = 0;
  if (dateIdx < 0 && ocr && cols && toks[0].kind === 'int') return slashlessDate(toks, cols) ?? { toks, dateIdx };
  return { toks, dateIdx };
}

/** OCR lost the slash: "317" / "1215" in the date column. */
function slashlessDate(toks: Tok[], cols: Column[]): { toks: Tok[]; dateIdx: number } | null {
  const dateCol = cols.find((c) => c.role === 'date');
  const digits = toks[0].text.replace(/\D/g, '');
  if (!dateCol || bestColumn(toks[0], cols) !== dateCol || (digits.length !== 3 && digits.length !== 4)) return null;
  const [mm, dd] = digits.length === 3 ? [digits.slice(0, 1), digits.slice(1)] : [digits.slice(0, 2), digits.slice(2)];
  const d = parseDateToken(`${mm}/${dd}`);
  return d ? { toks: [{ ...toks[0], kind: 'date', date: d, text: `${mm}/${dd}` }, ...toks.slice(1)], dateIdx: 0 } : null;
}

type RoleCell = { t: Tok; role: ColumnRole };

/** Tokens under a header: money by its column, check numbers, dates of a second date column dropped, the rest described. */
function cellsByColumn(rest: Tok[], cols: Column[], row: RawRow): RoleCell[] {
  let checkNo: string | null = null;
  const amounts: RoleCell[] = [];
  for (const t of rest) {
    let c = bestColumn(t, cols);
    // an amount under no column, nearest a column that holds no money ("Time" beside "Balance"): the
    // nearest money column takes it
    if (t.kind === 'amount' && c && !isMoney(c.role) && Math.min(t.x1, c.x1) - Math.max(t.x0, c.x0) <= 0)
      c =
        bestColumn(
          t,
          cols.filter((x) => isMoney(x.role)),
        ) ?? c;
    const role = c?.role ?? 'other';
    if (t.kind === 'amount' && (role === 'amount' || role === 'debit' || role === 'credit' || role === 'balance'))
      amounts.push({ t, role });
    else if (t.kind === 'date' && (role === 'date2' || role === 'date')) continue;
    else if (role === 'checkno' && (t.kind === 'int' || /^\d+\*?$/.test(t.text))) checkNo = t.text.replace(/^#|\*$/g, '');
    else {
      row.desc.push(t.text);
      row.descX0 = Math.min(row.descX0, t.x0);
    }
  }
  if (checkNo) row.desc.unshift(`Check ${checkNo}`);
  return amounts;
}

/** No header: trailing amounts are [amount, balance], the rest describes the row. */
function cellsWithoutHeader(rest: Tok[], row: RawRow): RoleCell[] {
  let k = rest.length;
  while (k > 0 && rest[k - 1].kind === 'amount') k--;
  const trail = rest.slice(k);
  for (const t of rest.slice(0, k)) {
    if (t.kind === 'date' && row.desc.length === 0) continue;
    row.desc.push(t.text);
    row.descX0 = Math.min(row.descX0, t.x0);
  }
  if (trail.length === 1) return [{ t: trail[0], role: 'amount' }];
  if (trail.length < 2) return [];
  return [
    { t: trail[trail.length - 2], role: 'amount' },
    { t: trail[trail.length - 1], role: 'balance' },
  ];
}

/** The row's money: signed by its column, its own sign mark or its section; a balance-only row when only a balance was printed. */
function withAmounts(row: RawRow, amounts: RoleCell[], section: Section): RawRow | null {
  const page = row.page;
  const dt = !row.inherited;
  let money: number | null = null;
  let unsigned: number | null = null;
  for (const { t, role } of amounts) {
    const a = t.amount!;
    row.cells.push({ page, role, font: t.font, size: t.size, row: -1 });
    if (t.odd) (row.odd ??= []).push({ text: t.text, why: t.odd, role });
    if (role === 'balance') row.balance = signed(a, 1);
    else if (role === 'debit') money = (money ?? 0) + (a.sign > 0 ? a.value : -a.value);
    else if (role === 'credit') money = (money ?? 0) + (a.sign < 0 ? -a.value : a.value);
    else if (a.sign !== 0) money = (money ?? 0) + a.sign * a.value;
    else if (section.sign !== 0) money = (money ?? 0) + section.sign * a.value;
    else unsigned = (unsigned ?? 0) + a.value;
  }
  if (money === null && unsigned === null) {
    // a dated row with only a balance ("Balance brought forward"): not a transaction, but its date and balance count
    if (row.balance !== null && dt) return { ...row, amount: null, unsignedAmount: null, balanceOnly: true };
    return null;
  }
  if (unsigned !== null && money !== null) money += unsigned; // mixed: treat unsigned as credit
  row.amount = money === null ? null : round2(money);
  row.unsignedAmount = money === null ? unsigned : null;
  return row;
}

/** Splits a header-less line like "1001 01/05 250.00 1002 01/06 80.00" into tuples. */
function splitTuples(toks: Tok[]): Tok[][] | null {
  const dates = toks.filter((t) => t.kind === 'date').length;
  const amts = toks.filter((t) => t.kind === 'amount').length;
  if (dates < 2 || amts < 2) return null;
  const parts: Tok[][] = [];
  let cur: Tok[] = [];
  for (let i = 0; i < toks.length; i++) {
    const t = toks[i];
    const startsTuple = (t.kind === 'int' && toks[i + 1]?.kind === 'date') || (t.kind === 'date' && !(i > 0 && toks[i - 1].kind === 'int'));
    if (startsTuple && cur.some((x) => x.kind === 'amount')) {
      parts.push(cur);
      cur = [];
    }
    cur.push(t);
  }
  if (cur.length) parts.push(cur);
  return parts;
}

/** A printed total under a listing: "Total deposits", "8 item(s) totaling $354,396.39", "3 checks total". */
const TOTAL_LINE_RE =
  /^(totals?|subtotals?)\b|\b(items?|item\s*\(s\)|transactions?|entries|deposits?|credits?|debits?|withdrawals?|checks?)\s+total(ing|led|s)?\b/i;

const FORWARD_RE = /\b(brought|carried) (forward|fwd)\b|(^|\s)[bc]\/f\b|^\s*balance forward\b/i;

/** The balance printed on a carried/brought-forward line: its balance-column amount, else its last amount. */
function forwardBalance(toks: Tok[], cols: Column[] | null): number | null {
  const amounts = toks.filter((t) => t.kind === 'amount');
  if (!amounts.length) return null;
  const inBalance = cols ? amounts.filter((t) => bestColumn(t, cols)?.role === 'balance') : [];
  const t = inBalance.length
    ? inBalance[inBalance.length - 1]
    : cols && cols.some((c) => c.role === 'balance')
      ? null
      : amounts[amounts.length - 1];
  return t ? signed(t.amount!, 1) : null;
}

const OPEN_ROW_RE =
  /^(beginning|opening|starting|previous|prior)\b.*balance|^balance (forward|brought forward|b\/f)|^balance last statement|^brought forward\b/i;
const CLOSE_ROW_RE = /^(ending|closing|new)\b.*balance|^balance (carried forward|c\/f)|^carried forward\b/i;

/** Options of parseBankStatement. */
export interface BankParseOptions {
  /** year for dates printed without one when no period is found (tests) */
  fallbackYear?: number;
  /** YYYY-MM-DD: the PDF's creation date, second source of years after the period */
  documentDate?: string | null;
  /** YYYY-MM-DD: when the file was received, last source of years */
  uploadDate?: string;
}

/**
 * Parses a bank statement from laid-out pages, in steps: the header fields; the table rows, line by line
 * (RowCollector); the date order and the years; the signed transactions; the readings chosen by the
 * arithmetic (row order, signs, repeated listings); the balances the rows imply; the checks against
 * printed totals, forward balances and daily balances.
 */
export function parseBankStatement(pages: PageLayout[], opts: BankParseOptions = {}): BankParseResult {
  const warnings: string[] = [];
  const readings: ReadingChoice[] = [];
  const fields = readHeader(pages, { firstTable: firstTableOf(pages) });
  const sources: FieldSources = { ...fields.sources };
  const toksOf = tokenCache();
  const read = new RowCollector(pages, toksOf, warnings).read();
  const rows = read.rows;
  const bal: Balances = { opening: fields.openingBalance ?? read.openingFromRow, closing: fields.closingBalance ?? read.closingFromRow };
  if (fields.openingBalance === null && read.openingFromRow !== null && read.openingRowSource)
    sources.openingBalance = read.openingRowSource;
  if (fields.closingBalance === null && read.closingFromRow !== null && read.closingRowSource)
    sources.closingBalance = read.closingRowSource;

  const order = dateOrder(rows, fields, pages, warnings, readings);
  const years = placeYears(rows, fields, opts, { warnings, readings, sources });
  const { txs, txBlock, cells, txOfRow } = transactionsOf(rows, pages, fields, years, bal.opening, warnings);
  const ocrPages = ocrPagesOf(pages, rows, txs);
  if (ocrPages)
    repairOcrCurrencyDigit(
      txs,
      bal.opening,
      rows.map((r) => ocrPages.has(r.page)),
      warnings,
    );
  repairOcrSigns(txs, bal.opening, pages, rows, warnings);
  dropRepeatedListings(txs, txBlock, cells, bal.opening, bal.closing, warnings);
  const newestFirst = chooseRowOrder(txs, cells, warnings, readings);
  chooseSignReading(txs, bal.opening, bal.closing, warnings, readings);
  columnReadings(read.inferredPages, readings);

  impliedOpening(txs, bal, sources, warnings);
  impliedClosing(txs, bal, sources, warnings);
  const { dailyBreak, dailyClosing } = dailyBalanceFallback(read.dailyBalances, order.dayFirst, years.yearOf, txs, bal, sources, warnings);
  // (forward rows are placed by the printed order: a table read bottom-up has no such places)
  if (!newestFirst) checkForwardBalances(read.forwards, rows, txOfRow, txs, bal.opening, warnings);
  const misprints = findMisprints(txs, bal.opening);
  misprints.push(...checkOddNotations(rows, txOfRow, txs, bal.opening, warnings));
  for (const m of misprints) warnings.push(m);
  unreadPageWarnings(pages, rows, toksOf, warnings);

  const { periodDayFirst: _dayFirst, sources: _read, ...headerFields } = fields;
  const { periodStart, periodEnd } = years;
  const balances = { openingBalance: bal.opening, closingBalance: bal.closing };
  for (const w of lowConfidenceWarnings({ ...headerFields, periodStart, periodEnd, ...balances }, sources)) warnings.push(w);
  return {
    ...headerFields,
    periodStart,
    periodEnd,
    ...balances,
    sources,
    transactions: txs,
    warnings,
    amountCells: cells,
    misprints,
    readings,
    dailyBreak,
    dailyClosing,
    totalBreaks: read.totalBreaks.map((b) => ({
      rows: b.rows.flatMap((r) => {
        const t = txOfRow.get(r);
        const i = t ? txs.indexOf(t) : -1;
        // a total of the credits (or debits) only: its rows of that side
        return i >= 0 && (b.side === 0 || Math.sign(t!.amount) === b.side) ? [i] : [];
      }),
      difference: b.difference,
    })),
  };
}

type HeaderRead = ReturnType<typeof readHeader>;
/** The statement's opening and closing balances as they are settled, step by step. */
interface Balances {
  opening: number | null;
  closing: number | null;
}
/** Where the notes of a step go. */
interface Notes {
  warnings: string[];
  readings: ReadingChoice[];
  sources: FieldSources;
}

/** The first table header of the document (the header fields are read above it). */
function firstTableOf(pages: PageLayout[]): { page: number; line: number } | null {
  for (const p of pages) {
    const i = p.lines.findIndex((l) => detectHeader(l));
    if (i >= 0) return { page: p.index, line: i };
  }
  return null;
}

/** Tokens per line, read once (the column inference and the row reading both need them). */
function tokenCache(): (l: Line) => Tok[] {
  const cache = new Map<Line, Tok[]>();
  return (l) => {
    let t = cache.get(l);
    if (!t) cache.set(l, (t = tokenize(l)));
    return t;
  };
}

/** A page's tokens as cells (kind, position, size, signed value) for the column inference. */
function cellsOf(p: PageLayout, toksOf: (l: Line) => Tok[]): CellTok[][] {
  const out: CellTok[][] = [];
  for (const l of p.lines) out.push(toksOf(l).map(cellOf));
  return out;
}

const cellOf = (t: Tok): CellTok => ({
  kind: t.kind,
  x0: t.x0,
  x1: t.x1,
  size: t.size,
  value: t.amount ? (t.amount.sign < 0 ? -t.amount.value : t.amount.value) : undefined,
});

// ---------------------------------------------------------------- reading the rows, line by line

/** The day's date that rows printed without one inherit, and where it was last seen. */
type Chain = { page: number; base: number | null; date: ParsedDate; size: number; weak?: boolean };
/** Pages whose columns were inferred from their cells, per reading. */
type PagesRead = { pages: number[]; candidates: number; scores: number[] };
/** A line's tokens under one table's columns (side-by-side tables give one part each). */
type Part = { toks: Tok[]; cols: Column[] | null };
/** A printed "balance carried/brought forward", after `at` rows. */
type Forward = { at: number; balance: number; page: number; text: string };

/**
 * The rows of a statement's tables, read down the pages line by line. The reader keeps what a person
 * keeps in mind while reading: the table header in force, the section (its sign, or skipped), the day's
 * date that undated rows take, the row a wrapped line continues, and the printed balances passed on the way.
 */
class RowCollector {
  readonly rows: RawRow[] = [];
  /** end-of-day balances printed in a daily-balance table: a second running balance to check the rows by */
  readonly dailyBalances: DailyBalance[] = [];
  readonly forwards: Forward[] = [];
  /** printed totals that differ from the rows above them (the rows and printed minus read, in absolute amounts) */
  readonly totalBreaks: Array<{ rows: RawRow[]; difference: number; side: number }> = [];
  readonly inferredPages = new Map<string, PagesRead>();
  openingFromRow: number | null = null;
  closingFromRow: number | null = null;
  openingRowSource: FieldSource | null = null;
  closingRowSource: FieldSource | null = null;

  private header: Header | null = null;
  private section: Section = { sign: 0, skip: false, name: '' };
  private last: RawRow | null = null;
  private lastLineBase = -Infinity;
  private lastPage = -1;
  /** listings (a header or a section heading starts one): a later listing repeating earlier rows is a second view */
  private block = 0;
  /** rows a printed "Total" line may sum: since the last total or new (not continued) section heading */
  private sinceTotal = 0;
  /**
   * The date rows without one inherit: from the row above, a dated line without amount ("01 Jan" on the
   * first row of the day only), across description lines and page breaks; null after totals and headings.
   * Weak: the date comes from a balance-only row ("Balance brought forward"); only a row that prints its
   * own running balance takes it (a summary line under a dated opening balance must not).
   */
  private chain: Chain | null = null;
  /** the widest spacing of two successive rows read on a page (tables printed with wide rows) */
  private pitch = { page: -1, gap: 0 };
  /** section headings read so far (a heading printed again on a later page continues its table) */
  private readonly headingsSeen = new Set<string>();
  private lastHeadingPage = -1;
  /**
   * Description fragments of a row that starts on a dated line without an amount ("17 Jan Transaction 31",
   * "Goes over multiple", then "pages 0.00"): they belong to the row whose amount line takes that date.
   */
  private pending: { words: string[]; x0: number } | null = null;
  /** the last row of an earlier page: a wrapped line printed at the top of the next page, under its table header */
  private carry: { row: RawRow; open: boolean } | null = null;
  /** the line last appended to a row as its continuation (a row with an empty description may claim it) */
  private appended: { row: RawRow; text: string; base: number; page: number } | null = null;
  /** on a page that prints its table header, the lines above it (a period, an address) are not the table's */
  private tableOpen = false;
  /** where this page's table sits, from its cells */
  private geo: TableGeometry | null = null;
  private readonly headerCache = new Map<Line, Header | null>();
  private readonly stackedCache = new Map<Line, Header | null>();

  constructor(
    private readonly pages: PageLayout[],
    private readonly toksOf: (l: Line) => Tok[],
    private readonly warnings: string[],
  ) {}

  read(): this {
    for (const p of this.pages) {
      this.startPage(p);
      for (let li = 0; li < p.lines.length; li++) li = this.readLine(p, li);
    }
    return this;
  }

  /** header lines, found once per line (the page's columns are decided before its rows are read) */
  private headerOf(l: Line): Header | null {
    if (!this.headerCache.has(l)) this.headerCache.set(l, detectHeader(l));
    return this.headerCache.get(l)!;
  }

  private stackedOf(a: Line, b: Line): Header | null {
    if (!this.stackedCache.has(a)) this.stackedCache.set(a, detectStackedHeader(a, b));
    return this.stackedCache.get(a)!;
  }

  private startPage(p: PageLayout): void {
    if (this.last) this.carry = { row: this.last, open: false };
    else if (this.carry) this.carry = { ...this.carry, open: false };
    this.last = null;
    const prev = this.chain;
    this.chain = prev && prev.page === p.index - 1 ? { ...prev, page: p.index, base: null } : null;
    const cells = cellsOf(p, this.toksOf);
    this.geo = tableGeometry(cells);
    const printsHeader = p.lines.some((l, i) => this.headerOf(l) || (p.lines[i + 1] && this.stackedOf(l, p.lines[i + 1])));
    if (!printsHeader) this.pageColumns(p, cells);
    this.tableOpen = !printsHeader;
  }

  /**
   * No header words on the page: columns from its cells (when they say more than "amount, balance",
   * which rows are read as without columns), else the columns of an earlier page moved with this page's
   * table (odd and even pages' margins).
   */
  private pageColumns(p: PageLayout, cells: CellTok[][]): void {
    const inf: InferredColumns | null = !this.header || this.header.inferred ? inferColumns(cells) : null;
    if (inf && inf.reading !== 'amount' && inf.reading !== 'amount, balance') {
      this.header = { groups: [inf.columns], balanceOnly: false, inferred: true, page: p.index, geo: this.geo };
      this.block++;
      const seen: PagesRead = this.inferredPages.get(inf.reading) ?? { pages: [], candidates: inf.candidates, scores: [] };
      seen.pages.push(p.index + 1);
      if (inf.chainScore !== null) seen.scores.push(inf.chainScore);
      this.inferredPages.set(inf.reading, seen);
    } else if (this.header) {
      const origin: Header = this.header.origin ?? this.header;
      const dx = pageShift(origin.geo ?? null, this.geo);
      this.header =
        Math.abs(dx) >= 3 && Math.abs(dx) <= 150 ? { ...origin, groups: origin.groups.map((g) => shiftColumns(g, dx)), origin } : origin;
    }
  }

  /** Reads line `li` of page `p`; returns the index of the last line it used (a stacked header takes two). */
  private readLine(p: PageLayout, li: number): number {
    const line = p.lines[li];
    let h = this.headerOf(line);
    if (!h && p.lines[li + 1]) {
      // a header printed on two stacked lines (the lower line may or may not be a header alone)
      const stacked = this.stackedOf(line, p.lines[li + 1]);
      if (stacked) {
        h = stacked;
        li++;
      }
    }
    if (h) this.onHeader(h, p, line);
    else this.readTableLine(p, li, line);
    return li;
  }

  private onHeader(h: Header, p: PageLayout, line: Line): void {
    this.tableOpen = true;
    this.header = { ...h, page: p.index, geo: this.geo };
    this.block++;
    // a header of a transaction table (it names a description, or dates and money in and out, even when
    // the description's name is garbled) ends a skipped block above it
    const describes = h.groups.some(
      (g) =>
        g.some((c) => c.role === 'desc' || c.role === 'checkno') ||
        (g.some((c) => c.role === 'date') && g.some((c) => c.role === 'debit') && g.some((c) => c.role === 'credit')),
    );
    if (h.balanceOnly) this.section = { ...this.section, skip: true };
    else if (this.section.skip && describes && !this.section.hard) this.section = { sign: 0, skip: false, name: '' };
    if (this.chain) this.chain = { ...this.chain, page: p.index, base: line.base };
    if (this.carry && this.carry.row.page < p.index) this.carry.open = true;
    this.last = null;
  }

  private readTableLine(p: PageLayout, li: number, line: Line): void {
    const toks = this.toksOf(line);
    const hasDateFirst = toks.slice(0, 3).some((t) => t.kind === 'date');
    const hasAmount = this.hasAmount(p, toks, hasDateFirst);
    const lower = line.text.toLowerCase();
    if (!hasAmount && this.continuesRow(p, line, toks, lower)) return;
    if (this.carry?.open) this.carry.open = false;
    if (!hasAmount) return this.onTextLine(p, line, toks, hasDateFirst);
    if (TOTAL_LINE_RE.test(lower)) return this.onTotal(line, toks);
    if (this.section.skip || this.header?.balanceOnly) return collectDailyBalances(toks, p.index, line, this.dailyBalances);
    if (this.isDailyBalanceRow(toks)) {
      collectDailyBalances(toks, p.index, line, this.dailyBalances);
      this.last = null;
      return;
    }
    const parts = this.splitParts(toks);
    const inherit = this.inheritedDate(p, line, parts);
    if (this.onForward(p, li, line, toks, parts)) return;
    this.takeRows(p, li, line, parts, inherit);
  }

  /** a dated row whose money cells are printed as bare numbers ("1935") has amounts too */
  private hasAmount(p: PageLayout, toks: Tok[], hasDateFirst: boolean): boolean {
    if (toks.some((t) => t.kind === 'amount')) return true;
    const h = this.header;
    return hasDateFirst && !!h && h.groups.length === 1 && p.method !== 'ocr' && bareMoney(toks, h.groups[0]).some((t) => t.odd);
  }

  /**
   * A line without an amount that continues a description: of the row above, or of the previous page's
   * last row (the first lines under the header of a new page, aligned with its description).
   */
  private continuesRow(p: PageLayout, line: Line, toks: Tok[], lower: string): boolean {
    const notTotal = !/^(total|subtotal|page \d)/i.test(lower);
    const last = this.last;
    if (last && this.lastPage === p.index && notTotal) {
      const gap = line.base - this.lastLineBase;
      const firstX = line.words[0].x0;
      const startsInDesc = Number.isFinite(last.descX0) ? firstX >= last.descX0 - 3 : firstX > 0;
      if (toks[0].kind !== 'date' && startsInDesc && gap > 0 && gap <= last.size * 2.1) {
        last.desc.push(line.text.trim());
        (last.boxes ??= []).push(boxOf(line));
        this.appended = { row: last, text: line.text.trim(), base: line.base, page: p.index };
        this.lastLineBase = line.base;
        if (this.chain && this.chain.page === p.index) this.chain.base = line.base;
        return true;
      }
    }
    const r = this.carry?.open ? this.carry.row : null;
    if (
      r &&
      toks[0].kind !== 'date' &&
      Number.isFinite(r.descX0) &&
      Math.abs(line.words[0].x0 - r.descX0) <= 3 &&
      !classifyHeading(line) &&
      notTotal
    ) {
      r.desc.push(line.text.trim());
      return true;
    }
    return false;
  }

  /** A line without an amount: an "ignore" block, a section heading, a dated line giving the day's date, or words of a row to come. */
  private onTextLine(p: PageLayout, line: Line, toks: Tok[], hasDateFirst: boolean): void {
    // "transactions to ignore", "for information only": a block that repeats or lists non-transactions
    if (IGNORE_RE.test(line.text.replace(/\s+/g, '').toLowerCase())) {
      this.pending = null;
      this.section = { sign: 0, skip: true, hard: true, name: line.text };
      this.last = null;
      this.chain = null;
      return;
    }
    const sec = classifyHeading(line);
    if (sec && !hasDateFirst) return this.onHeading(p, sec);
    const chain = this.chain;
    if (this.header && this.tableOpen && !this.section.skip && toks[0].kind === 'date' && toks.some((t) => t.kind === 'text')) {
      // a dated line without an amount: the day's date for the rows below
      this.chain = { page: p.index, base: line.base, date: toks[0].date!, size: toks[0].size };
      const rest = toks.slice(1);
      this.pending = { words: [rest.map((t) => t.text).join(' ')], x0: rest[0].x0 };
      this.last = null;
    } else if (chain && chain.page === p.index && (chain.base === null || line.base - chain.base <= chain.size * 3)) {
      if (chain.base !== null) chain.base = line.base;
      const pending = this.pending;
      if (pending && toks[0].kind !== 'date' && Math.abs(line.words[0].x0 - pending.x0) <= 3) pending.words.push(line.text.trim());
    }
  }

  private onHeading(p: PageLayout, sec: Section): void {
    this.pending = null;
    this.section = sec;
    this.block++;
    this.last = null;
    // "Account activity (continued)" at the top of a page, or the same heading printed again on every
    // page: the same table goes on, and so does the day's date
    const named = sec.name.toLowerCase().replace(/[^a-z]/g, '');
    const again = this.headingsSeen.has(named) && this.lastHeadingPage < p.index;
    this.headingsSeen.add(named);
    this.lastHeadingPage = p.index;
    if (!/continued/i.test(sec.name) && !again) {
      this.sinceTotal = this.rows.length;
      this.chain = null;
    }
  }

  private onTotal(line: Line, toks: Tok[]): void {
    this.pending = null;
    const since = this.rows.slice(this.sinceTotal);
    const brk = checkPrintedTotal(line.text, toks, since, this.warnings);
    if (brk !== null) this.totalBreaks.push({ rows: since, ...brk });
    this.sinceTotal = this.rows.length;
    this.last = null;
    this.chain = null;
  }

  /** a row of (date, balance) pairs only is a daily-balance table, whatever header is above it */
  private isDailyBalanceRow(toks: Tok[]): boolean {
    return (
      toks.filter((t) => t.kind === 'date').length >= 2 &&
      toks.filter((t) => t.kind === 'amount').length >= 2 &&
      toks.every((t) => t.kind === 'date' || t.kind === 'amount') &&
      (!this.header || this.header.groups.length === 1)
    );
  }

  /** The line's tokens per table: side-by-side tables split at their groups, header-less tuples apart. */
  private splitParts(toks: Tok[]): Part[] {
    const header = this.header;
    if (header && header.groups.length > 1) {
      const starts = header.groups.map((g) => g[0].x0 - 6);
      const buckets: Tok[][] = header.groups.map(() => []);
      for (const t of toks) {
        let gi = 0;
        for (let g = 0; g < starts.length; g++) if (t.x0 >= starts[g]) gi = g;
        buckets[gi].push(t);
      }
      return header.groups.map((g, i) => ({ toks: buckets[i], cols: g }));
    }
    const tuples = !header ? splitTuples(toks) : null;
    if (!tuples) return [{ toks, cols: header ? header.groups[0] : null }];
    return tuples.filter((tu) => tu.some((t) => t.kind === 'text' || t.kind === 'int')).map((tu) => ({ toks: tu, cols: null }));
  }

  /**
   * Rows without a date of their own take the day's date across description lines: within three lines of
   * the last, or within the table's own row pitch where its rows are spaced wide apart.
   */
  private inheritedDate(p: PageLayout, line: Line, parts: Part[]): ParsedDate | undefined {
    const c = this.chain;
    if (!c || c.page !== p.index || !this.header || parts.length !== 1) return undefined;
    const reach = Math.max(c.size * 3, this.pitch.page === p.index ? this.pitch.gap * 1.6 : 0);
    return c.base === null || line.base - c.base < reach ? c.date : undefined;
  }

  /**
   * "Balance carried forward" / "Balance brought forward" between pages: not a transaction, but a printed
   * running balance the rows above it must add up to (checked once the amounts are signed). A summary
   * above the table's header that names a balance "brought forward" is not one of them. Returns true when
   * the line is taken whole (printed without a date); a dated one is read on as a row.
   */
  private onForward(p: PageLayout, li: number, line: Line, toks: Tok[], parts: Part[]): boolean {
    const fwd =
      parts.length === 1 && (this.tableOpen || !this.header) && FORWARD_RE.test(line.text)
        ? forwardBalance(parts[0].toks, parts[0].cols)
        : null;
    if (fwd === null) return false;
    this.forwards.push({ at: this.rows.length, balance: fwd, page: p.index, text: line.text.replace(/\s+/g, ' ').trim() });
    if (toks.some((t) => t.kind === 'date')) return false;
    // printed without a date: the day's date carries over it
    const chain = this.chain;
    if (chain && chain.page === p.index && chain.base !== null) chain.base = line.base;
    const carried = /carried|c\/f/i.test(line.text);
    if (!this.rows.length && this.openingFromRow === null && !carried) {
      this.openingFromRow = fwd;
      this.openingRowSource = this.rowSource(p.index, li, 'brought-forward row of the table');
    } else if (carried) {
      this.closingFromRow = fwd;
      this.closingRowSource = this.rowSource(p.index, li, 'carried-forward row of the table');
    }
    this.last = null;
    return true;
  }

  private rowSource(page: number, li: number, via: string): FieldSource {
    const text = this.pages
      .find((x) => x.index === page)!
      .lines[li].text.trim()
      .slice(0, 120);
    return { page: page + 1, line: li + 1, via, text, confidence: 0.9 };
  }

  private takeRows(p: PageLayout, li: number, line: Line, parts: Part[], inherit: ParsedDate | undefined): void {
    let made: RawRow | null = null;
    for (const part of parts) {
      const r = rowFromTokens(part.toks, part.cols, this.section, p.index, line.base, inherit, p.method === 'ocr');
      if (r && this.takeRow(p, li, line, r, part, parts.length)) made = r;
    }
    if (made && parts.length === 1) {
      this.last = made;
      this.lastLineBase = line.base;
      this.lastPage = p.index;
    } else this.last = null;
  }

  /** A row read from a line: kept as a transaction (true), or taken as a balance row. */
  private takeRow(p: PageLayout, li: number, line: Line, r: RawRow, part: Part, partCount: number): boolean {
    if (this.balanceRow(p, li, line, r)) return false;
    if (r.inherited && this.chain?.weak && r.balance === null) return false;
    this.placeDescription(p, line, r);
    this.pending = null;
    this.appended = null;
    r.block = this.block;
    r.boxes = [boxOf(line, part.toks), ...(r.boxes ?? [])];
    this.rows.push(r);
    this.notePitch(p, line, r, partCount);
    this.chain = { page: p.index, base: line.base, date: r.date, size: r.size };
    return true;
  }

  /** Opening, closing and balance-only rows: their balances are noted, and they are not transactions. */
  private balanceRow(p: PageLayout, li: number, line: Line, r: RawRow): boolean {
    const d = r.desc.join(' ');
    const printed = () => r.balance ?? (r.amount !== null ? Math.abs(r.amount) : r.unsignedAmount);
    if (OPEN_ROW_RE.test(d)) {
      if (this.openingFromRow === null && !this.rows.length) {
        this.openingFromRow = printed();
        this.openingRowSource = this.rowSource(p.index, li, 'opening balance row of the table');
      }
      // the rows below a dated "brought forward" row may print no date of their own
      if (r.balanceOnly) this.chain = { page: p.index, base: line.base, date: r.date, size: r.size, weak: true };
      return true;
    }
    if (CLOSE_ROW_RE.test(d)) {
      this.closingFromRow = printed();
      this.closingRowSource = this.rowSource(p.index, li, 'closing balance row of the table');
      // the table ends with its closing balance: no later line takes its date
      this.chain = null;
      return true;
    }
    if (!r.balanceOnly) return false;
    this.chain = { page: p.index, base: line.base, date: r.date, size: r.size, weak: true };
    return true;
  }

  /** The description of a row: words printed on the dated line above it, or the line just above it. */
  private placeDescription(p: PageLayout, line: Line, r: RawRow): void {
    const ap = this.appended;
    if (this.pending && r.inherited) r.desc.unshift(...this.pending.words);
    else if (!r.desc.join('').trim() && ap && ap.page === p.index && line.base - ap.base <= r.size * 1.8) {
      // the description printed just above an amount line that has none: it was taken as the row above's wrapped line
      const k = ap.row.desc.lastIndexOf(ap.text);
      if (k > 0) {
        ap.row.desc.splice(k, 1);
        r.desc.push(ap.text);
      }
    }
  }

  private notePitch(p: PageLayout, line: Line, r: RawRow, partCount: number): void {
    const c = this.chain;
    if (!c || c.page !== p.index || c.weak || c.base === null || partCount !== 1) return;
    const prev = this.rows[this.rows.length - 2];
    if (prev && prev.page === p.index && line.base > prev.base) {
      const gap = Math.min(line.base - prev.base, r.size * 8);
      this.pitch = { page: p.index, gap: this.pitch.page === p.index ? Math.max(this.pitch.gap, gap) : gap };
    }
  }
}

// ---------------------------------------------------------------- dates and years

/** Day-first or month-first numeric dates: decided once for the whole document. */
function dateOrder(
  rows: RawRow[],
  fields: HeaderRead,
  pages: PageLayout[],
  warnings: string[],
  readings: ReadingChoice[],
): { dayFirst: boolean; confidence: number; evidence: string | null } {
  const order = decideDayFirst(rows, fields.periodDayFirst, fields.periodStart, fields.periodEnd, pages);
  if (order.evidence)
    readings.push({
      question: 'date_order',
      chosen: order.dayFirst ? 'DD/MM' : 'MM/DD',
      candidates: 2,
      confidence: order.confidence,
      evidence: order.evidence,
      runnerUp: {
        chosen: order.dayFirst ? 'MM/DD' : 'DD/MM',
        whyNot: order.confidence <= 0.6 ? 'nothing in the dates tells it apart: only the locale marks decided' : order.evidence,
      },
    });
  if (order.confidence <= 0.6 && order.evidence && rows.some((r) => r.date.ambiguous && r.date.day !== r.date.month))
    warnings.push(
      `date order undecided: every numeric date reads both as DD/MM and as MM/DD, and neither the period nor the order of the rows tells them apart; read as ${order.dayFirst ? 'DD/MM' : 'MM/DD'} from the currency and locale marks`,
    );
  if (order.dayFirst) {
    for (const r of rows) if (r.date.ambiguous) r.date = { ...r.date, month: r.date.day, day: r.date.month, ambiguous: false };
    if (rows.some((r) => /^\d/.test(r.dateText))) warnings.push('numeric dates read day-first (DD/MM)');
  }
  return order;
}

/** Where the years of the rows come from, as settled step by step. */
interface YearState {
  periodStart: string | null;
  periodEnd: string | null;
  refDate: string | null;
  fallbackYear: number;
  rowYear: Map<RawRow, number>;
}
interface Years {
  periodStart: string | null;
  periodEnd: string | null;
  /** years of rows placed by their neighbours' printed years */
  rowYear: Map<RawRow, number>;
  yearOf: (month: number, day: number) => number;
}

/** Year resolution: the statement period, else printed years, else the PDF's dates, else the upload date. */
function placeYears(rows: RawRow[], fields: HeaderRead, opts: BankParseOptions, notes: Notes): Years {
  const y: YearState = {
    periodStart: fields.periodStart,
    periodEnd: fields.periodEnd,
    refDate: null,
    fallbackYear: opts.fallbackYear ?? new Date().getUTCFullYear(),
    rowYear: new Map(),
  };
  const yearless = rows.some((r) => r.date.year === null);
  if (!y.periodStart && !y.periodEnd) yearsWithoutPeriod(rows, opts, y, notes, yearless);
  if (yearless && rows.length) notes.readings.push(yearReading(rows, opts, y));
  const { periodStart, periodEnd, refDate, fallbackYear } = y;
  const yearOf = (month: number, day: number): number => {
    if (periodStart || periodEnd) return resolveYear(month, day, periodStart, periodEnd, fallbackYear);
    if (refDate) {
      const ry = Number(refDate.slice(0, 4));
      return fmtDate(ry, month, day) <= refDate ? ry : ry - 1;
    }
    return fallbackYear;
  };
  return { periodStart, periodEnd, rowYear: y.rowYear, yearOf };
}

/** No period printed: the period from fully dated rows, years running on from the rows that print one, or a reference date. */
function yearsWithoutPeriod(rows: RawRow[], opts: BankParseOptions, y: YearState, notes: Notes, yearless: boolean): void {
  const withYear = rows.filter((r) => r.date.year !== null);
  if (withYear.length && withYear.length === rows.length) {
    const ds = withYear.map((r) => fmtDate(r.date.year!, r.date.month, r.date.day)).sort();
    y.periodStart = ds[0];
    y.periodEnd = ds[ds.length - 1];
    notes.warnings.push(`statement period not printed: taken from the transaction dates (${y.periodStart} .. ${y.periodEnd})`);
    const fromRows = {
      page: null,
      line: null,
      via: 'first and last transaction dates',
      text: `${y.periodStart} .. ${y.periodEnd}`,
      confidence: 0.7,
    };
    notes.sources.periodStart = fromRows;
    notes.sources.periodEnd = fromRows;
  } else if (withYear.length) {
    y.fallbackYear = withYear[0].date.year!;
    yearsRunningOn(rows, y.rowYear);
  } else if (opts.fallbackYear === undefined && yearless && rows.length) {
    y.refDate = opts.documentDate ?? opts.uploadDate ?? new Date().toISOString().slice(0, 10);
    const from = opts.documentDate ? "the PDF's creation date" : 'the upload date';
    notes.warnings.push(`statement period not found; dates without a year placed in the 12 months up to ${from} (${y.refDate})`);
  }
}

/**
 * Some rows print a year: the others take it from the nearest row above (a year later after a December ->
 * January turn), or from the first row below for the rows before it.
 */
function yearsRunningOn(rows: RawRow[], rowYear: Map<RawRow, number>): void {
  let cur = null as { year: number; month: number } | null;
  const firstDated = rows.findIndex((r) => r.date.year !== null);
  for (let i = firstDated - 1; i >= 0; i--) {
    const below = i + 1 === firstDated ? rows[firstDated].date : { month: rows[i + 1].date.month, year: rowYear.get(rows[i + 1])! };
    rowYear.set(rows[i], below.year! - (rows[i].date.month > below.month ? 1 : 0));
  }
  for (const r of rows.slice(firstDated)) {
    if (r.date.year !== null) cur = { year: r.date.year, month: r.date.month };
    else if (cur) {
      if (r.date.month < cur.month) cur = { year: cur.year + 1, month: r.date.month };
      else cur = { ...cur, month: r.date.month };
      rowYear.set(r, cur.year);
    }
  }
}

/** The reading that says where yearless dates took their year from. */
function yearReading(rows: RawRow[], opts: BankParseOptions, y: YearState): ReadingChoice {
  const { periodStart, periodEnd, refDate, fallbackYear } = y;
  const source =
    periodStart || periodEnd
      ? [`the statement period (${periodStart ?? '?'} .. ${periodEnd ?? '?'})`, 0.95]
      : refDate
        ? [`${opts.documentDate ? "the PDF's creation date" : 'the upload date'} (${refDate}), no period printed`, 0.5]
        : rows.some((r) => r.date.year !== null)
          ? [`the years printed on other rows (${fallbackYear} first), running on after December`, 0.7]
          : [`the default year ${fallbackYear}`, 0.3];
  const crosses = !!(periodStart && periodEnd && periodStart.slice(0, 4) !== periodEnd.slice(0, 4));
  return {
    question: 'year',
    chosen: `yearless dates placed by ${source[0]}`,
    candidates: crosses ? 2 : 1,
    confidence: source[1] as number,
    evidence: crosses
      ? 'the period runs across the new year: December dates take its first year, January dates its second'
      : 'dates printed without a year',
  };
}

/** A row's year; on OCR pages a printed year misread (e.g. 23 -> 28) takes the period's year when that lands inside it. */
function rowYearOf(r: RawRow, ocr: boolean, fields: HeaderRead, years: Years, warnings: string[]): number {
  const y = r.date.year ?? years.rowYear.get(r) ?? years.yearOf(r.date.month, r.date.day);
  if (!ocr || r.date.year === null || !(fields.periodStart || fields.periodEnd)) return y;
  const ps = fields.periodStart ?? fields.periodEnd!;
  const pe = fields.periodEnd ?? fields.periodStart!;
  const printed = fmtDate(y, r.date.month, r.date.day);
  const far = (k: string) => (k < ps ? daysBetween(k, ps) : k > pe ? daysBetween(pe, k) : 0) > 45;
  const ry = resolveYear(r.date.month, r.date.day, fields.periodStart, fields.periodEnd, y);
  if (!far(printed) || far(fmtDate(ry, r.date.month, r.date.day))) return y;
  warnings.push(`OCR date "${r.dateText}" on page ${r.page + 1} is outside the statement period: year read as ${ry}`);
  return ry;
}

// ---------------------------------------------------------------- transactions

/** The rows as signed transactions: unsigned amounts resolved from the running balance where possible. */
function transactionsOf(rows: RawRow[], pages: PageLayout[], fields: HeaderRead, years: Years, opening: number | null, warnings: string[]) {
  let prevBal: number | null = opening;
  const txs: StatementTransaction[] = [];
  const txBlock: number[] = [];
  const cells: AmountCell[] = [];
  const txOfRow = new Map<RawRow, StatementTransaction>();
  for (const r of rows) {
    const ocr = pages.find((p) => p.index === r.page)?.method === 'ocr';
    const y = rowYearOf(r, ocr, fields, years, warnings);
    const date = fmtDate(y, r.date.month, r.date.day);
    const valid = isValidDate(y, r.date.month, r.date.day);
    if (!valid) warnings.push(`invalid date "${r.dateText}" (${date}) on page ${r.page + 1}: kept as printed`);
    const amount = signedAmount(r, prevBal, ocr, warnings);
    if (amount === null) continue;
    if (r.balance !== null) prevBal = r.balance;
    else if (prevBal !== null) prevBal = round2(prevBal + amount);
    const description = r.desc.join(' ').replace(/\s+/g, ' ').trim();
    if (!description)
      warnings.push(`row ${txs.length + 1} (${date}, ${round2(amount).toFixed(2)}) on page ${r.page + 1} has no description`);
    for (const c of r.cells) cells.push({ ...c, row: txs.length });
    txBlock.push(r.block);
    const tx: StatementTransaction = {
      date,
      description,
      amount: round2(amount),
      balance: r.balance,
      transactionType: amount >= 0 ? 'credit' : 'debit',
      source: { page: r.page + 1, boxes: r.boxes ?? [] },
    };
    if (!valid) rowWarning(tx, `impossible date "${r.dateText}" kept as printed (${date})`);
    if (!description) rowWarning(tx, 'no description printed');
    txOfRow.set(r, tx);
    txs.push(tx);
  }
  return { txs, txBlock, cells, txOfRow };
}

/** A row's signed amount: an unsigned one takes the sign the running balance gives; OCR's lost or invented sign marks are corrected. */
function signedAmount(r: RawRow, prevBal: number | null, ocr: boolean, warnings: string[]): number | null {
  let amount = r.amount;
  if (amount === null && r.unsignedAmount !== null) {
    if (r.balance !== null && prevBal !== null && Math.abs(round2(prevBal - r.unsignedAmount) - r.balance) < 0.005)
      amount = -r.unsignedAmount;
    else amount = r.unsignedAmount;
  }
  if (amount === null) return null;
  if (
    ocr &&
    r.balance !== null &&
    prevBal !== null &&
    Math.abs(round2(prevBal + amount) - r.balance) >= 0.005 &&
    Math.abs(round2(prevBal - amount) - r.balance) < 0.005
  ) {
    // OCR dropped or invented a sign mark: the printed running balance decides
    warnings.push(`OCR amount ${amount} on page ${r.page + 1} (${r.dateText}) sign taken from the running balance`);
    amount = -amount;
  }
  return amount;
}

/** The column readings of pages without header words, with how many running-balance checks hold under them. */
function columnReadings(inferredPages: Map<string, PagesRead>, readings: ReadingChoice[]): void {
  for (const [reading, seen] of inferredPages) {
    const score = seen.scores.length ? seen.scores.reduce((a, b) => a + b, 0) / seen.scores.length : null;
    readings.push({
      question: 'columns',
      chosen: `${reading} (no header words; page${seen.pages.length > 1 ? 's' : ''} ${seen.pages.join(', ')})`,
      candidates: seen.candidates,
      confidence: score === null ? 0.6 : Math.round(score * 1000) / 1000,
      evidence:
        score === null
          ? 'columns from the cells: dates, text, and money bands never filled on the same row; no running balance to check them'
          : `columns from the cells; ${Math.round(score * 100)}% of the running-balance checks hold under this reading`,
    });
  }
}

// ---------------------------------------------------------------- balances the rows imply

/**
 * The opening balance not printed in a header: implied by the first row. A labelled opening balance the
 * rows contradict (a day's "balance brought forward" read as the period's): the one implied by the first
 * row is taken when only it gives the closing balance.
 */
function impliedOpening(txs: StatementTransaction[], bal: Balances, sources: FieldSources, warnings: string[]): void {
  const first = txs[0];
  if (!first || first.balance === null) return;
  const implied = round2(first.balance - first.amount);
  const fromFirst = (via: string) => ({
    page: null,
    line: null,
    via,
    text: `${first.date} ${first.description}`.slice(0, 120),
    confidence: 0.8,
  });
  if (bal.opening === null) {
    bal.opening = implied;
    warnings.push(`opening balance not printed: implied by the first row (${implied.toFixed(2)})`);
    sources.openingBalance = fromFirst("first row's balance less its amount");
  }
  const closingFor = bal.closing ?? txs[txs.length - 1]?.balance ?? null;
  if (closingFor === null) return;
  const sum = txs.reduce((a, t) => a + t.amount, 0);
  const closes = (o: number) => Math.abs(round2(o + sum) - closingFor) < 0.005;
  if (Math.abs(implied - bal.opening) >= 0.005 && closes(implied) && !closes(bal.opening)) {
    warnings.push(
      `opening balance ${bal.opening.toFixed(2)} read from "${sources.openingBalance?.text.slice(0, 60) ?? 'a label'}" does not reconcile; the first row's balance less its amount (${implied.toFixed(2)}) does, and is taken`,
    );
    bal.opening = implied;
    sources.openingBalance = fromFirst("first row's balance less its amount (the labelled value does not reconcile)");
  }
}

/** The closing balance not printed: the last row's balance. */
function impliedClosing(txs: StatementTransaction[], bal: Balances, sources: FieldSources, warnings: string[]): void {
  const lastTx = txs[txs.length - 1];
  if (bal.closing !== null || !lastTx || lastTx.balance === null) return;
  bal.closing = lastTx.balance;
  warnings.push(`closing balance not printed: taken from the last row's balance (${bal.closing.toFixed(2)})`);
  sources.closingBalance = {
    page: null,
    line: null,
    via: "last row's balance",
    text: `${lastTx.date} ${lastTx.description}`.slice(0, 120),
    confidence: 0.8,
  };
}

/** The rows checked against a printed daily-balance table, which also gives balances the statement does not print. */
function dailyBalanceFallback(
  dailyBalances: DailyBalance[],
  dayFirst: boolean,
  yearOf: Years['yearOf'],
  txs: StatementTransaction[],
  bal: Balances,
  sources: FieldSources,
  warnings: string[],
): { dailyBreak: DailyBreak | null; dailyClosing: DailyClosing | null } {
  const daily = checkDailyBalances(
    dailyBalances.map((d) => {
      const dt = dayFirst && d.date.ambiguous ? { ...d.date, month: d.date.day, day: d.date.month } : d.date;
      return { ...d, iso: fmtDate(dt.year ?? yearOf(dt.month, dt.day), dt.month, dt.day) };
    }),
    txs,
    bal.opening,
    warnings,
  );
  if (daily.opening !== null && bal.opening === null) {
    bal.opening = daily.opening.balance;
    sources.openingBalance = {
      page: daily.opening.page + 1,
      line: null,
      via: 'daily balance table (the day before the first row)',
      text: `${daily.opening.iso} ${daily.opening.balance.toFixed(2)}`,
      confidence: 0.85,
    };
  }
  if (daily.closing !== null && bal.closing === null) {
    bal.closing = daily.closing.balance;
    sources.closingBalance = {
      page: daily.closing.page + 1,
      line: null,
      via: 'daily balance table (the last day)',
      text: `${daily.closing.iso} ${daily.closing.balance.toFixed(2)}`,
      confidence: 0.85,
    };
  }
  const agreed = daily.agreed ?? null;
  return {
    dailyBreak: daily.break ?? null,
    dailyClosing: agreed && { day: agreed.iso, balance: agreed.balance, page: agreed.page + 1, box: agreed.box ?? null },
  };
}

/** A page that holds dated lines with amounts but gave no row: a table the reader did not recognise. */
function unreadPageWarnings(pages: PageLayout[], rows: RawRow[], toksOf: (l: Line) => Tok[], warnings: string[]): void {
  const readPages = new Set(rows.map((r) => r.page));
  for (const p of pages) {
    if (readPages.has(p.index)) continue;
    const n = datedMoneyLines(p, toksOf);
    if (n >= UNREAD_PAGE_LINES)
      warnings.push(
        `no transactions read on page ${p.index + 1}, which holds ${n} lines with a date, a description and an amount: a table there may not have been recognised`,
      );
  }
}

/** Lines with a date, words and an amount a page must hold before a page read without rows is named. */
const UNREAD_PAGE_LINES = 4;

/**
 * Lines of a page that look like transactions: a date among their first three tokens, a word, and an
 * amount (a line of date and amount pairs only is a daily-balance table, not counted).
 */
export function datedMoneyLines(p: PageLayout, toksOf: (l: Line) => Tok[] = tokenize): number {
  let n = 0;
  for (const l of p.lines) {
    const toks = toksOf(l);
    if (!toks.slice(0, 3).some((t) => t.kind === 'date')) continue;
    if (!toks.some((t) => t.kind === 'amount') || !toks.some((t) => t.kind === 'text' && /[a-z]{2}/i.test(t.text))) continue;
    n++;
  }
  return n;
}

/** A named problem with one row's own cells: the row is kept, the problem travels with it. */
function rowWarning(tx: StatementTransaction, why: string): void {
  (tx.rowWarnings ??= []).push(why);
}

interface DailyBalance {
  date: ParsedDate;
  balance: number;
  page: number;
  /** the printed date and balance, [x0, y0, x1, y1] in PDF points (origin top-left) */
  box?: [number, number, number, number];
}

/** (date, balance) pairs of a daily-balance table line ("12/09 217.00 12/26 60.78"). */
function collectDailyBalances(toks: Tok[], page: number, line: Line, out: DailyBalance[]): void {
  const ts = toks.filter((t) => t.text !== '$');
  if (!ts.length || !ts.every((t) => t.kind === 'date' || t.kind === 'amount')) return;
  for (let i = 0; i + 1 < ts.length; i++) {
    if (ts[i].kind === 'date' && ts[i + 1].kind === 'amount') {
      const box: [number, number, number, number] = [ts[i].x0, line.y0, ts[i + 1].x1, line.y1];
      out.push({ date: ts[i].date!, balance: signed(ts[i + 1].amount!, 1), page, box });
      i++;
    }
  }
}

/**
 * The daily-balance table as a second running balance: the balance printed for a day must equal the
 * opening balance plus the amounts dated up to that day. Where the statement prints no opening (or
 * closing) balance of its own, the table's entry for the day before the first row (or its last day)
 * gives it, but only when every day of the table then holds. Where the opening is known, a day that
 * does not hold is named in a warning that puts the statement up for review.
 */
export function checkDailyBalances(
  days: Array<DailyBalance & { iso: string }>,
  txs: StatementTransaction[],
  opening: number | null,
  warnings: string[],
): {
  opening: (DailyBalance & { iso: string }) | null;
  closing: (DailyBalance & { iso: string }) | null;
  break?: DailyBreak;
  /** the table's last day, on or after the last row, where the opening balance was printed and every day holds */
  agreed?: DailyBalance & { iso: string };
} {
  const none = { opening: null, closing: null };
  if (days.length < 2 || !txs.length) return none;
  const sorted = [...days].sort((a, b) => (a.iso < b.iso ? -1 : a.iso > b.iso ? 1 : 0));
  const dates = txs.map((t) => t.date).sort();
  const upTo = (iso: string) => round2(txs.reduce((sum, t) => (t.date <= iso ? sum + t.amount : sum), 0));
  const before = sorted.filter((d) => d.iso < dates[0]);
  const start = opening ?? (before.length ? before[before.length - 1].balance : null);
  if (start === null) return none;
  const broken = sorted.filter((d) => Math.abs(round2(start + upTo(d.iso)) - d.balance) >= 0.005);
  if (opening === null) {
    if (broken.length) return none;
    const last = sorted[sorted.length - 1];
    warnings.push(
      `opening balance not printed: taken from the daily balance table (${start.toFixed(2)} on ${before[before.length - 1].iso}), which the amounts then follow on all ${sorted.length} days`,
    );
    return { opening: before[before.length - 1], closing: last.iso >= dates[dates.length - 1] ? last : null };
  }
  const first = broken[0];
  const good = first ? sorted.filter((d) => d.iso < first.iso && !broken.includes(d)) : [];
  const brk = first
    ? {
        lastGood: good.length ? good[good.length - 1].iso : null,
        day: first.iso,
        difference: round2(first.balance - round2(start + upTo(first.iso))),
        page: first.page + 1,
        box: first.box ?? null,
      }
    : undefined;
  // a table that holds on most days but not on some: a row is missing or misread before those days
  if (broken.length && broken.length < sorted.length / 2) {
    const d = broken[0];
    warnings.push(
      `balance chain: the daily balance table prints ${d.balance.toFixed(2)} for ${d.iso} (page ${d.page + 1}), but the opening balance and the rows dated up to that day give ${round2(start + upTo(d.iso)).toFixed(2)}: a row may be missing or misread before that day`,
    );
  }
  const last = sorted[sorted.length - 1];
  const agreed = !broken.length && last.iso >= dates[dates.length - 1] ? last : undefined;
  return { ...none, break: brk, agreed };
}

/**
 * The balance chain across page breaks: a "Balance carried forward" or "Balance brought forward" must
 * equal the running balance of the rows read above it (the last printed balance, else the opening
 * balance plus the amounts). A difference means a row was lost or misread there: named in a warning
 * that puts the document up for review.
 */
function checkForwardBalances(
  forwards: Array<{ at: number; balance: number; page: number; text: string }>,
  rows: RawRow[],
  txOfRow: Map<RawRow, StatementTransaction>,
  txs: StatementTransaction[],
  opening: number | null,
  warnings: string[],
): void {
  if (!forwards.length) return;
  const index = new Map(txs.map((t, i) => [t, i]));
  const running = runningBalances(txs, opening);
  for (const f of forwards) {
    let upto = 0;
    for (let k = f.at - 1; k >= 0; k--) {
      const i = index.get(txOfRow.get(rows[k])!);
      if (i !== undefined) {
        upto = i + 1;
        break;
      }
    }
    const want = running[upto];
    if (want === null || Math.abs(want - f.balance) < 0.005) continue;
    warnings.push(
      `balance chain: "${f.text.slice(0, 60)}" on page ${f.page + 1} prints ${f.balance.toFixed(2)}, but the rows above it give ${want.toFixed(2)} (difference ${round2(f.balance - want).toFixed(2)}): a row may be missing or misread there`,
    );
  }
}

/** The running balance before each transaction (index i) and after the last (index txs.length). */
function runningBalances(txs: StatementTransaction[], opening: number | null): Array<number | null> {
  const running: Array<number | null> = [opening];
  for (const t of txs) {
    const prev = running[running.length - 1];
    running.push(t.balance ?? (prev === null ? null : round2(prev + t.amount)));
  }
  return running;
}

/**
 * Amounts printed in an odd notation ("1935", "120 00", "90,350", "2,7843.55") are read by their digits;
 * the balance chain then confirms the reading (a warning says so) or does not (a misprint, named with
 * the value the chain gives where it gives one, which puts the document up for review).
 */
function checkOddNotations(
  rows: RawRow[],
  txOfRow: Map<RawRow, StatementTransaction>,
  txs: StatementTransaction[],
  opening: number | null,
  warnings: string[],
): string[] {
  const out: string[] = [];
  if (!rows.some((r) => r.odd)) return out;
  const index = new Map(txs.map((t, i) => [t, i]));
  const running = runningBalances(txs, opening);
  for (const r of rows) {
    const tx = txOfRow.get(r);
    const i = tx ? index.get(tx) : undefined;
    if (!r.odd || !tx || i === undefined) continue;
    // the next printed balance at or after this row, and what the amounts up to it give
    let j = i;
    while (j < txs.length && txs[j].balance === null) j++;
    const before = running[i];
    let gives: number | null = null;
    let holds = false;
    if (before !== null && j < txs.length) {
      const sum = round2(txs.slice(i, j + 1).reduce((a, t) => a + t.amount, 0));
      holds = Math.abs(round2(before + sum) - txs[j].balance!) < 0.005;
      gives = round2(before + sum);
    }
    for (const o of r.odd) {
      const value = o.role === 'balance' ? tx.balance : tx.amount;
      const what = `${o.role === 'balance' ? 'balance' : 'amount'} "${o.text}" on ${tx.date} (page ${r.page + 1}) is printed with ${o.why}`;
      rowWarning(
        tx,
        `${o.role === 'balance' ? 'balance' : 'amount'} "${o.text}" printed with ${o.why}${holds ? ' (the running balance confirms it)' : ''}`,
      );
      if (holds) warnings.push(`${what}: read as ${value?.toFixed(2)}, which the running balance confirms`);
      else if (gives !== null)
        out.push(
          `${what}: read as ${value?.toFixed(2)}, but the running balance then gives ${gives.toFixed(2)} where ${txs[j].balance!.toFixed(2)} is printed`,
        );
      else out.push(`${what}: read as ${value?.toFixed(2)}, and no printed balance confirms it`);
    }
  }
  return out;
}

/**
 * Printed running balances that break the chain on their own row only: the next printed balance follows
 * from the arithmetic value, not from the printed one. They are misprints of the document (named so a
 * reviewer can check them), not reading errors.
 */
export function findMisprints(txs: StatementTransaction[], opening: number | null): string[] {
  const out: string[] = [];
  let running = opening;
  for (let i = 0; i < txs.length; i++) {
    const t = txs[i];
    if (running === null) {
      running = t.balance;
      continue;
    }
    running = round2(running + t.amount);
    if (t.balance === null || Math.abs(t.balance - running) < 0.005) {
      if (t.balance !== null) running = t.balance;
      continue;
    }
    // does the next printed balance follow from the arithmetic value?
    let run2 = running;
    let next = -1;
    for (let j = i + 1; j < txs.length; j++) {
      run2 = round2(run2 + txs[j].amount);
      if (txs[j].balance !== null) {
        next = j;
        break;
      }
    }
    if (next >= 0 && Math.abs((txs[next].balance as number) - run2) < 0.005) {
      rowWarning(t, `printed balance ${t.balance.toFixed(2)} looks misprinted: the running balance gives ${running.toFixed(2)}`);
      out.push(
        `printed balance ${t.balance.toFixed(2)} on ${t.date} (row ${i + 1}) looks misprinted: the running balance gives ${running.toFixed(2)}`,
      );
      continue; // keep the arithmetic value
    }
    running = t.balance; // a real break: resynchronise
  }
  return out;
}

/**
 * A printed "Total ..." line under a listing is checked against the rows read above it (since the
 * previous total or section): each printed amount must be their sum, their credits or their debits.
 * A difference is named in `warnings` (the reconciliation decides the review).
 */
function checkPrintedTotal(label: string, toks: Tok[], rows: RawRow[], warnings: string[]): { difference: number; side: number } | null {
  const amounts = toks.filter((t) => t.kind === 'amount').map((t) => t.amount!.value);
  if (!amounts.length || !rows.length) return null;
  const vals = rows.map((r) => r.amount ?? r.unsignedAmount ?? 0);
  const all = round2(vals.reduce((a, v) => a + Math.abs(v), 0));
  const credits = round2(vals.reduce((a, v) => a + (v > 0 ? v : 0), 0));
  const debits = round2(vals.reduce((a, v) => a + (v < 0 ? -v : 0), 0));
  const matches = (v: number) => [all, credits, debits].some((c) => Math.abs(c - v) < 0.005);
  if (amounts.some(matches)) return null;
  const printed = amounts[amounts.length - 1];
  warnings.push(
    `printed total "${label.replace(/\s+/g, ' ').trim()}" (${printed.toFixed(2)}) differs from the ${rows.length} rows read above it (${all.toFixed(2)})`,
  );
  // the measure the total is nearest (a "Total deposits" line sums the credits): its rows and difference
  const near = [
    { v: all, side: 0 },
    { v: credits, side: 1 },
    { v: debits, side: -1 },
  ].sort((a, b) => Math.abs(a.v - Math.abs(printed)) - Math.abs(b.v - Math.abs(printed)))[0];
  return { difference: round2(Math.abs(printed) - near.v), side: near.side };
}

/**
 * A later listing whose rows all repeat earlier rows (same date and amount) is a second view of the
 * same transactions (grouped by type, a check register): it is dropped when the statement reconciles
 * without it and not with it; otherwise it is kept and named in a warning.
 */
function dropRepeatedListings(
  txs: StatementTransaction[],
  txBlock: number[],
  cells: AmountCell[],
  opening: number | null,
  closing: number | null,
  warnings: string[],
): void {
  const key = (t: StatementTransaction) => `${t.date}|${Math.abs(t.amount).toFixed(2)}`;
  // rows before `first`, counted once as `first` advances
  const prefix = new Map<string, number>();
  let counted = 0;
  for (let first = 1; first < txs.length; first++) {
    if (txBlock[first] === txBlock[first - 1]) continue; // listings start where the block changes
    for (; counted < first; counted++) prefix.set(key(txs[counted]), (prefix.get(key(txs[counted])) ?? 0) + 1);
    const used = new Map<string, number>();
    // extend over whole following blocks while every row repeats an earlier one
    let end = first;
    let ok = first;
    while (end < txs.length) {
      const k = key(txs[end]);
      const n = (prefix.get(k) ?? 0) - (used.get(k) ?? 0);
      if (n <= 0) break;
      used.set(k, (used.get(k) ?? 0) + 1);
      end++;
      if (end === txs.length || txBlock[end] !== txBlock[end - 1]) ok = end;
    }
    // (one repeated row is dropped only when the arithmetic says so; two or more are named either way)
    if (ok - first < 1) continue;
    const drop = (i: number) => i >= first && i < ok;
    const total = (keep: (i: number) => boolean) => round2(txs.reduce((sum, t, i) => (keep(i) ? sum + t.amount : sum), 0));
    const reconciles = (keep: (i: number) => boolean) =>
      opening !== null && closing !== null && Math.abs(round2(opening + total(keep)) - closing) < 0.005;
    const where = `${ok - first} row${ok - first > 1 ? 's' : ''} from ${txs[first].date}`;
    if (reconciles((i) => !drop(i)) && !reconciles(() => true)) {
      warnings.push(`a second listing of the same transactions (${where}) was not counted: the statement reconciles without it`);
      const n = ok - first;
      txs.splice(first, n);
      txBlock.splice(first, n);
      prefix.clear();
      counted = 0;
      const kept = cells.filter((c) => !drop(c.row)).map((c) => ({ ...c, row: c.row >= ok ? c.row - n : c.row }));
      cells.splice(0, cells.length, ...kept);
      first--;
      continue;
    }
    if (ok - first >= 2)
      warnings.push(`${where} repeat earlier rows (same dates and amounts): kept, check for a second listing of the same transactions`);
    first = ok - 1;
  }
}

/**
 * Rows printed newest first (an online activity printout): the running balance then runs from the
 * bottom row up (each balance is the one below it plus its own amount). Both readings are counted
 * over the rows that print a balance; when the bottom-up chain holds on more rows, and on most, the
 * rows are put in date order (oldest first) and the reading is recorded.
 */
export function chooseRowOrder(txs: StatementTransaction[], cells: AmountCell[], warnings: string[], readings: ReadingChoice[]): boolean {
  let down = 0;
  let up = 0;
  let pairs = 0;
  for (let i = 1; i < txs.length; i++) {
    const a = txs[i - 1];
    const b = txs[i];
    if (a.balance === null || b.balance === null) continue;
    pairs++;
    if (Math.abs(round2(a.balance + b.amount) - b.balance) < 0.005) down++;
    if (Math.abs(round2(b.balance + a.amount) - a.balance) < 0.005) up++;
  }
  if (pairs < 2 || up <= down) return false;
  const evidence = `running balance: ${up} of ${pairs} checks hold from the bottom row up, ${down} from the top down`;
  if (up < pairs * 0.6) {
    readings.push({
      question: 'row_order',
      chosen: 'as printed',
      candidates: 2,
      confidence: 0.5,
      evidence,
      runnerUp: { chosen: 'newest first', whyNot: `the bottom-up chain holds on only ${up} of ${pairs} rows` },
    });
    return false;
  }
  txs.reverse();
  const n = txs.length;
  for (const c of cells) c.row = n - 1 - c.row;
  readings.push({
    question: 'row_order',
    chosen: 'newest first (read bottom-up)',
    candidates: 2,
    confidence: Math.round((up / pairs) * 1000) / 1000,
    evidence,
    runnerUp: { chosen: 'oldest first (as printed)', whyNot: `the running balance holds on ${down} of ${pairs} rows read top-down` },
  });
  warnings.push(`rows printed newest first: read from the bottom up, where the running balance holds (${up} of ${pairs} checks)`);
  return true;
}

/** How many printed balances the running balance meets with every amount's sign as read (1) or reversed (-1). */
function balanceChecksHeld(txs: StatementTransaction[], opening: number | null, sign: 1 | -1): number {
  let running = opening;
  let ok = 0;
  for (const t of txs) {
    if (running !== null) running = round2(running + sign * t.amount);
    if (t.balance === null) continue;
    if (running !== null && Math.abs(running - t.balance) < 0.005) ok++;
    running = t.balance;
  }
  return ok;
}

/**
 * The running balance as oracle for the sign convention: when the printed balances follow the amounts
 * only with every sign reversed (debit and credit columns named the other way round, or a bank that
 * prints debits as positive numbers), the reversed reading is taken and said in a warning. Without
 * printed balances the printed opening and closing balances decide the same way: the reading under
 * which opening + amounts = closing.
 */
function chooseSignReading(
  txs: StatementTransaction[],
  opening: number | null,
  closing: number | null,
  warnings: string[],
  readings: ReadingChoice[],
): void {
  if (!txs.length) return;
  const printed = txs.filter((t) => t.balance !== null).length;
  const flip = () => {
    for (const t of txs) {
      t.amount = round2(-t.amount) || 0;
      t.transactionType = t.amount >= 0 ? 'credit' : 'debit';
    }
  };
  if (printed < 2) {
    if (opening === null || closing === null) return;
    const sum = round2(txs.reduce((s, t) => s + t.amount, 0));
    const asRead = Math.abs(round2(opening + sum) - closing) < 0.005;
    const reversed = Math.abs(round2(opening - sum) - closing) < 0.005;
    if (asRead === reversed) return; // both (a net change of 0) or neither: the totals do not say
    if (reversed) {
      flip();
      warnings.push('amounts read with the opposite sign: only that way do the opening balance and the amounts give the closing balance');
    }
    readings.push({
      question: 'sign',
      chosen: reversed ? 'reversed' : 'as printed',
      candidates: 2,
      confidence: 1,
      evidence: `opening ${opening.toFixed(2)} + amounts = closing ${closing.toFixed(2)} only under this reading`,
      runnerUp: {
        chosen: reversed ? 'as printed' : 'reversed',
        whyNot: `opening + amounts would give ${round2(opening + (reversed ? sum : -sum)).toFixed(2)}, not the printed closing`,
      },
    });
    return;
  }
  const asRead = balanceChecksHeld(txs, opening, 1);
  const reversed = balanceChecksHeld(txs, opening, -1);
  const checks = printed - (opening === null ? 1 : 0);
  const take = reversed > asRead && reversed >= checks * 0.9;
  if (asRead !== reversed)
    readings.push({
      question: 'sign',
      chosen: take ? 'reversed' : 'as printed',
      candidates: 2,
      confidence: checks > 0 ? Math.round((Math.max(asRead, reversed) / checks) * 1000) / 1000 : 0,
      evidence: `running balance: ${asRead} of ${checks} checks hold as printed, ${reversed} with every sign reversed`,
      runnerUp: {
        chosen: take ? 'as printed' : 'reversed',
        whyNot: `the running balance holds on ${take ? asRead : reversed} of ${checks} rows under it`,
      },
    });
  if (!take) return;
  flip();
  warnings.push(
    `amounts read with the opposite sign: the printed running balance follows them only that way (${reversed} of ${printed} balances, ${asRead} as printed)`,
  );
}

/** Chooses day-first (DD/MM) for numeric dates from unambiguous dates, the period, chronology, then locale marks. */
function decideDayFirst(
  rows: RawRow[],
  periodDayFirst: boolean | null,
  ps: string | null,
  pe: string | null,
  pages: PageLayout[],
): { dayFirst: boolean; confidence: number; evidence: string | null } {
  let dmy = 0;
  let mdy = 0;
  for (const r of rows) {
    if (r.inherited) continue; // its dateText is synthesised, not printed
    const m = /^(\d{1,2})[/.-](\d{1,2})/.exec(r.dateText);
    if (!m) continue;
    if (Number(m[1]) > 12) dmy++;
    else if (Number(m[2]) > 12) mdy++;
  }
  if (dmy !== mdy)
    return {
      dayFirst: dmy > mdy,
      confidence: Math.round((Math.max(dmy, mdy) / (dmy + mdy)) * 1000) / 1000,
      evidence: `${dmy} printed date(s) read only day-first (day > 12), ${mdy} only month-first`,
    };
  if (!rows.some((r) => r.date.ambiguous)) return { dayFirst: false, confidence: 1, evidence: null };
  if (periodDayFirst !== null)
    return { dayFirst: periodDayFirst, confidence: 0.9, evidence: 'the printed statement period reads that way' };
  // the reading under which the dates fall in the period, then run in order
  const score = (swap: boolean) => {
    let inPeriod = 0;
    let ordered = 0;
    let prev = '';
    for (const r of rows) {
      const d = swap && r.date.ambiguous ? { month: r.date.day, day: r.date.month } : r.date;
      const k = `${String(d.month).padStart(2, '0')}-${String(d.day).padStart(2, '0')}`;
      if (ps && pe && r.date.year !== null) {
        const full = `${r.date.year}-${k}`;
        if (full >= ps && full <= pe) inPeriod++;
      }
      if (k >= prev) ordered++;
      prev = k;
    }
    return inPeriod * 2 + ordered;
  };
  const a = score(false);
  const b = score(true);
  if (a !== b)
    return {
      dayFirst: b > a,
      confidence: Math.round((Math.max(a, b) / (a + b)) * 1000) / 1000,
      evidence: 'the dates fall in the period and run in order under this reading',
    };
  // a statement covers about a month: the reading under which the rows span weeks, not months
  const span = (swap: boolean): number => {
    const days = rows.map((r) => {
      const d = swap && r.date.ambiguous ? { month: r.date.day, day: r.date.month } : r.date;
      return Date.UTC(r.date.year ?? 2000, d.month - 1, d.day) / 86_400_000;
    });
    return Math.max(...days) - Math.min(...days);
  };
  const [asMonthFirst, asDayFirst] = [span(false), span(true)];
  if (rows.length >= 2 && Math.min(asMonthFirst, asDayFirst) <= 62 && Math.max(asMonthFirst, asDayFirst) > 62)
    return {
      dayFirst: asDayFirst < asMonthFirst,
      confidence: 0.8,
      evidence: `the rows span ${Math.min(asMonthFirst, asDayFirst)} days under this reading and ${Math.max(asMonthFirst, asDayFirst)} under the other (a statement covers about a month)`,
    };
  const text = pages
    .slice(0, 2)
    .flatMap((p) => p.lines.map((l) => l.text))
    .join(' ');
  return {
    dayFirst: /[£€₹]|\b(GBP|EUR|INR|AUD|NZD)\b|\bsort code\b|\bIFSC\b|\bBSB\b/i.test(text),
    confidence: 0.6,
    evidence: 'no date decides it: currency and locale marks on the first pages',
  };
}

/** The OCR'd pages, when there are any and each transaction still has its row (for the repairs below). */
function ocrPagesOf(pages: PageLayout[], rows: RawRow[], txs: StatementTransaction[]): Set<number> | null {
  const ocr = new Set(pages.filter((p) => p.method === 'ocr').map((p) => p.index));
  return ocr.size && rows.length === txs.length ? ocr : null;
}

/**
 * On OCR pages a `$` read as a digit ("8751.69" for "$751.69") breaks the running balance by that
 * digit's place value. Where dropping the leading 8 or 5 of the printed balance (or of the amount)
 * makes the chain hold on that row, that reading is taken and named in a warning.
 */
function repairOcrCurrencyDigit(txs: StatementTransaction[], opening: number | null, ocrRows: boolean[], warnings: string[]): void {
  const dropLead = (v: number): number | null => {
    const s = Math.abs(v).toFixed(2);
    if (!/^[85]\d/.test(s)) return null;
    const r = Number(s.slice(1));
    return v < 0 ? -r : r;
  };
  const near = (a: number, b: number) => Math.abs(a - b) < 0.005;
  let running = opening;
  for (let i = 0; i < txs.length; i++) {
    const t = txs[i];
    const next = running === null ? null : round2(running + t.amount);
    if (t.balance === null || next === null || near(next, t.balance)) {
      running = t.balance ?? next;
      continue;
    }
    if (ocrRows[i]) {
      const b2 = dropLead(t.balance);
      if (b2 !== null && near(b2, next)) {
        warnings.push(
          `OCR balance ${t.balance.toFixed(2)} on ${t.date} read as ${b2.toFixed(2)}: its first digit is a misread currency sign`,
        );
        t.balance = b2;
        running = b2;
        continue;
      }
      const a2 = dropLead(t.amount);
      if (a2 !== null && running !== null && near(round2(running + a2), t.balance)) {
        warnings.push(
          `OCR amount ${t.amount.toFixed(2)} on ${t.date} read as ${a2.toFixed(2)}: its first digit is a misread currency sign`,
        );
        t.amount = a2;
      }
    }
    running = t.balance;
  }
}

/**
 * On OCR pages a dropped "-" or ")" flips an amount. Between two printed balances, if exactly one
 * OCR row explains the gap by its sign, that row's sign is corrected (and reported in warnings).
 */
function repairOcrSigns(
  txs: StatementTransaction[],
  opening: number | null,
  pages: PageLayout[],
  rows: RawRow[],
  warnings: string[],
): void {
  const ocrPages = ocrPagesOf(pages, rows, txs);
  if (!ocrPages) return;
  let start = opening;
  let seg: number[] = [];
  for (let i = 0; i < txs.length; i++) {
    seg.push(i);
    const bal = txs[i].balance;
    if (bal === null) continue;
    if (start !== null) {
      const sum = seg.reduce((s, k) => s + txs[k].amount, 0);
      const d = round2(bal - (start + sum));
      if (Math.abs(d) >= 0.005) {
        const cands = seg.filter((k) => ocrPages.has(rows[k].page) && Math.abs(round2(-2 * txs[k].amount) - d) < 0.005);
        if (cands.length === 1) {
          const t = txs[cands[0]];
          t.amount = round2(-t.amount);
          t.transactionType = t.amount >= 0 ? 'credit' : 'debit';
          warnings.push(`OCR amount on ${t.date} (${t.description.slice(0, 30)}) sign taken from the running balance`);
        }
      }
    }
    start = bal;
    seg = [];
  }
}

export { tokenize as _tokenize, detectHeader as _detectHeader, classifyHeading as _classifyHeading };
