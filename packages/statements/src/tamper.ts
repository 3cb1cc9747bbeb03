import type { AmountCell } from './bank-parser';
import type { DocumentInfo } from './open';
import { PageLayout, Reconciliation, RiskLevel } from './types';

export interface TamperInput {
  info: DocumentInfo;
  pages: PageLayout[];
  amountCells: AmountCell[];
  reconciliation: Reconciliation | null;
  /** each page's own modification date (its /LastModified), null where it has none (tamper-structure.ts, pageModDates) */
  pageModDates?: Array<string | null>;
}

export interface TamperAssessment {
  level: RiskLevel;
  reasons: string[];
  score: number;
}

const EDITORS =
  /photoshop|illustrator|gimp|inkscape|ilovepdf|smallpdf|sejda|pdfescape|pdf-?xchange|foxit phantom|foxit pdf editor|nitro|pdffiller|dochub|canva|libreoffice|openoffice|microsoft.{0,10}word|pdf ?editor|pdf ?element|wondershare|able2extract|soda pdf|pdf candy|formswift|acrobat pro|adobe acrobat \d|master ?pdf|qoppa|pdf ?expert/i;

/** Parses a PDF date "D:YYYYMMDDHHmmSS+hh'mm'" (or ISO) to epoch ms. */
export function parsePdfDate(s: string | null): number | null {
  if (!s) return null;
  const m = /^(?:D:)?(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?(Z|[+-]\d{2}'?\d{2}'?)?/.exec(s.trim());
  if (!m) {
    const t = Date.parse(s);
    return Number.isFinite(t) ? t : null;
  }
  const [, y, mo = '01', d = '01', h = '00', mi = '00', se = '00', tz] = m;
  let t = Date.UTC(+y, +mo - 1, +d, +h, +mi, +se);
  if (tz && tz !== 'Z') {
    const sign = tz[0] === '-' ? -1 : 1;
    const digits = tz.replace(/\D/g, '');
    t -= sign * (+digits.slice(0, 2) * 60 + +(digits.slice(2, 4) || '0')) * 60_000;
  }
  return t;
}

function overlaps(a: [number, number, number, number], b: [number, number, number, number]): boolean {
  return a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3];
}

/** Scores signs of editing. */
export function assessTamperRisk(input: TamperInput): TamperAssessment {
  const { info, pages, amountCells, reconciliation } = input;
  const reasons: string[] = [];
  let score = 0;
  const tool = [info.producer, info.creator].filter(Boolean).join(' / ');
  if (tool && EDITORS.test(tool)) {
    reasons.push(`produced or edited with an editing tool (${tool})`);
    score += 2;
  }
  const c = parsePdfDate(info.creationDate);
  const m = parsePdfDate(info.modDate);
  if (c !== null && m !== null && m - c > 60_000) {
    reasons.push('modification date is after the creation date');
    score += 1;
  }
  const late = pagesSavedLater(input.pageModDates ?? [], info.creationDate);
  if (late) {
    reasons.push(late);
    // the same editing session as a later modification date: counted once
    if (!(c !== null && m !== null && m - c > 60_000)) score += 1;
  }
  if (info.versions > 1) {
    reasons.push(`file has ${info.versions - 1} incremental update(s)`);
    score += 2;
  }
  if (info.repaired) {
    reasons.push('file structure is damaged (repaired on open)');
    score += 1;
  }
  // fonts of amount cells: a minority font among amounts is a classic sign of a pasted number
  const byRole = new Map<string, Map<string, number>>();
  for (const cell of amountCells) {
    const key = cell.role;
    const m2 = byRole.get(key) ?? new Map<string, number>();
    m2.set(`${cell.font}@${Math.round(cell.size * 2) / 2}`, (m2.get(`${cell.font}@${Math.round(cell.size * 2) / 2}`) ?? 0) + 1);
    byRole.set(key, m2);
  }
  for (const [role, fonts] of byRole) {
    if (fonts.size < 2 || role === 'other') continue;
    const counts = [...fonts.values()].sort((a, b) => b - a);
    const total = counts.reduce((a, b) => a + b, 0);
    const minority = total - counts[0];
    if (total >= 3 && minority > 0 && minority / total <= 0.2) {
      reasons.push(`amount cells in the ${role} column use inconsistent fonts (${minority} of ${total})`);
      score += 2;
      break;
    }
  }
  // text drawn over images on text pages
  let over = 0;
  for (const p of pages) {
    if (p.method !== 'text' || !p.imageRects.length) continue;
    const pageArea = p.width * p.height;
    for (const r of p.imageRects) {
      const area = (r[2] - r[0]) * (r[3] - r[1]);
      if (area > pageArea * 0.8) continue; // full-page background/scan
      for (const l of p.lines) for (const w of l.words) if (overlaps([w.x0, w.y0, w.x1, w.y1], r)) over++;
    }
  }
  if (over > 0) {
    reasons.push(`text drawn over images (${over} words)`);
    score += 2;
  }
  if (reconciliation && !reconciliation.reconciled && reconciliation.totalsMatch === false) {
    reasons.push('balances do not reconcile');
    score += 2;
  } else if (reconciliation && reconciliation.firstBrokenRow !== null) {
    reasons.push(`running balance breaks at row ${reconciliation.firstBrokenRow + 1}`);
    score += 1;
  }
  const level: RiskLevel = score >= 4 ? 'high' : score >= 1 ? 'medium' : 'low';
  return { level, reasons, score };
}

const DAY = 86_400_000;
/** The calendar day a PDF date prints (its own time zone). */
const dayOf = (s: string) => {
  const m = /^(?:D:)?(\d{4})(\d{2})(\d{2})/.exec(s.trim());
  return m ? `${m[1]}-${m[2]}-${m[3]}` : s;
};

/**
 * Pages saved again by an editor after the file was made: an editor such as Acrobat stamps the pages
 * it changes with their own modification date (/LastModified). The pages dated more than a day after
 * the file's creation (after the other pages' dates, where it records none), when they are the fewer
 * and the other pages carry an earlier date or none. One sentence naming the pages, or null.
 */
export function pagesSavedLater(dates: Array<string | null>, createdOn: string | null): string | null {
  if (dates.length < 2) return null;
  const ts = dates.map((d) => parsePdfDate(d));
  const known = ts.filter((t): t is number => t !== null);
  if (!known.length) return null;
  const created = parsePdfDate(createdOn);
  const base = created ?? Math.min(...known);
  const baseDay = created !== null ? dayOf(createdOn!) : dayOf(dates[ts.indexOf(base)]!);
  const late = ts.map((t, i) => (t !== null && t - base > DAY ? i : -1)).filter((i) => i >= 0);
  if (!late.length || late.length * 2 > dates.length) return null;
  const first = Math.min(...late.map((i) => ts[i]!));
  // the other pages: none dated, or dated before the late pages by more than a day
  if (ts.some((t, i) => !late.includes(i) && t !== null && first - t <= DAY)) return null;
  const names = late.map((i) => i + 1);
  const when = [...new Set(late.map((i) => dayOf(dates[i]!)))].join(', ');
  return `page${names.length > 1 ? 's' : ''} ${names.join(', ')} ${names.length > 1 ? 'were' : 'was'} saved again by an editor on ${when}, after the file was made (${baseDay}), and the other pages were not (their own modification dates)`;
}
