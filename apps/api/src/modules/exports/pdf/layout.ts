import { PDFDocument, PDFFont, PDFPage, rgb, RGB } from 'pdf-lib';
import { hasGlyph } from './fonts';

/** Page geometry and the house palette of the report. */
export const PAGE = { width: 612, height: 792, margin: 44, top: 64, bottom: 54 } as const;
export const CONTENT_WIDTH = PAGE.width - 2 * PAGE.margin;

const hex = (h: string): RGB =>
  rgb(parseInt(h.slice(1, 3), 16) / 255, parseInt(h.slice(3, 5), 16) / 255, parseInt(h.slice(5, 7), 16) / 255);
export const COLOR = {
  ink: hex('#14213d'),
  text: hex('#273142'),
  muted: hex('#667085'),
  faint: hex('#98a2b3'),
  line: hex('#e4e7ec'),
  panel: hex('#f4f6fa'),
  accent: hex('#1f4e9c'),
  accentSoft: hex('#a9c1e8'),
  good: hex('#1b7f4b'),
  goodSoft: hex('#d3f0df'),
  warn: hex('#b26b00'),
  warnSoft: hex('#fcecc8'),
  bad: hex('#b42318'),
  badSoft: hex('#fbdcd8'),
  white: rgb(1, 1, 1),
} as const;

export interface Fonts {
  regular: PDFFont;
  semibold: PDFFont;
  bold: PDFFont;
  /** embedded for this report only when its text needs them, tried in order for what Plex lacks */
  fallback?: PDFFont[];
}

/** A stretch of text drawn with one font. */
export interface TextRun {
  text: string;
  font: PDFFont;
}

/**
 * The text cut into runs of one font each: `font` where it has the glyph, else the first fallback
 * that has it. A space between two characters of one fallback font stays in that font's run, so a
 * right-to-left phrase is laid out (and reordered) as a whole.
 */
export function textRuns(font: PDFFont, text: string, fallback: PDFFont[] = []): TextRun[] {
  if (!fallback.length) return [{ text, font }];
  const chars = Array.from(text);
  const picks = chars.map((ch) => {
    const cp = ch.codePointAt(0)!;
    if (cp < 0x250 || hasGlyph(font, cp)) return font;
    return fallback.find((f) => hasGlyph(f, cp)) ?? font;
  });
  for (let i = 0; i < chars.length; i++) {
    if (picks[i] !== font || !/\s/.test(chars[i])) continue;
    let j = i - 1;
    while (j >= 0 && /\s/.test(chars[j])) j--;
    let k = i + 1;
    while (k < chars.length && /\s/.test(chars[k])) k++;
    if (j >= 0 && k < chars.length && picks[j] === picks[k] && picks[j] !== font && hasGlyph(picks[j], chars[i].codePointAt(0)!))
      picks[i] = picks[j];
  }
  const runs: TextRun[] = [];
  chars.forEach((ch, i) => {
    const last = runs[runs.length - 1];
    if (last && last.font === picks[i]) last.text += ch;
    else runs.push({ text: ch, font: picks[i] });
  });
  return runs;
}

/** Width of text drawn in runs (see `textRuns`). */
export function textWidth(font: PDFFont, text: string, size: number, fallback: PDFFont[] = []): number {
  return textRuns(font, text, fallback).reduce((w, r) => w + r.font.widthOfTextAtSize(r.text, size), 0);
}

/** A score's colour: green from 70, amber from 40, red below. */
export function scoreColor(score: number): { strong: RGB; soft: RGB } {
  if (score >= 70) return { strong: COLOR.good, soft: COLOR.goodSoft };
  if (score >= 40) return { strong: COLOR.warn, soft: COLOR.warnSoft };
  return { strong: COLOR.bad, soft: COLOR.badSoft };
}

/** Text the embedded font can draw: one line, no control characters. */
export function clean(text: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is removed
  return text.replace(/[\u0000-\u001f\u007f]+/g, ' ');
}

/** The text, cut with an ellipsis to fit `width` (binary search on the cut, whole characters). */
export function fitText(font: PDFFont, text: string, size: number, width: number, fallback: PDFFont[] = []): string {
  const t = clean(text);
  if (textWidth(font, t, size, fallback) <= width) return t;
  const chars = Array.from(t);
  let lo = 0;
  let hi = chars.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (textWidth(font, `${chars.slice(0, mid).join('')}…`, size, fallback) <= width) lo = mid;
    else hi = mid - 1;
  }
  return `${chars.slice(0, lo).join('').trimEnd()}…`;
}

/** Lines of at most `width`: words wrap; a word wider than a line (a filename, a run of CJK) is broken where it must be. */
export function wrapText(font: PDFFont, text: string, size: number, width: number, fallback: PDFFont[] = []): string[] {
  const fits = (s: string) => textWidth(font, s, size, fallback) <= width;
  const lines: string[] = [];
  for (const paragraph of text.split(/\r?\n/)) {
    const words = clean(paragraph).split(/\s+/).filter(Boolean);
    let line = '';
    for (const word of words) {
      const candidate = line ? `${line} ${word}` : word;
      if (fits(candidate)) {
        line = candidate;
        continue;
      }
      if (line) lines.push(line);
      line = word;
      // a single word too wide for a line: broken into pieces that fit
      while (!fits(line) && Array.from(line).length > 1) {
        const chars = Array.from(line);
        let n = chars.length - 1;
        while (n > 1 && !fits(chars.slice(0, n).join(''))) n--;
        lines.push(chars.slice(0, n).join(''));
        line = chars.slice(n).join('');
      }
    }
    lines.push(line);
  }
  return lines.map((l) => fitText(font, l, size, width, fallback));
}

export interface Column {
  title: string;
  width: number;
  align?: 'left' | 'right';
  /** wrap the cells of this column onto up to this many lines (default 1: cut with an ellipsis) */
  lines?: number;
}

/**
 * A flowing page writer: a cursor runs down the page, and `ensure` starts a new page (with the
 * running header) when the next block would not fit. Page numbers are written at the end, when
 * the total is known.
 */
export class ReportWriter {
  page!: PDFPage;
  y = 0;
  readonly pages: PDFPage[] = [];

  constructor(
    readonly doc: PDFDocument,
    readonly fonts: Fonts,
    private readonly runningTitle: string,
  ) {}

  newPage(): void {
    this.page = this.doc.addPage([PAGE.width, PAGE.height]);
    this.pages.push(this.page);
    this.y = PAGE.height - PAGE.top;
    if (this.pages.length > 1) {
      this.text(this.runningTitle, PAGE.margin, PAGE.height - 34, {
        size: 8.5,
        font: this.fonts.semibold,
        color: COLOR.muted,
        width: CONTENT_WIDTH,
      });
      this.page.drawLine({
        start: { x: PAGE.margin, y: PAGE.height - 42 },
        end: { x: PAGE.width - PAGE.margin, y: PAGE.height - 42 },
        thickness: 0.6,
        color: COLOR.line,
      });
    }
  }

  ensure(height: number): void {
    if (this.y - height < PAGE.bottom) this.newPage();
  }

  space(h: number): void {
    this.y -= h;
  }

  /** The fallback fonts of this report (none for text Plex covers). */
  get fallback(): PDFFont[] {
    return this.fonts.fallback ?? [];
  }

  /** Width of `s` as `text` draws it. */
  width(s: string, size: number, font: PDFFont = this.fonts.regular): number {
    return textWidth(font, clean(s), size, this.fallback);
  }

  text(
    s: string,
    x: number,
    y: number,
    o: { size?: number; font?: PDFFont; color?: RGB; align?: 'left' | 'right' | 'center'; width?: number; page?: PDFPage } = {},
  ): void {
    const size = o.size ?? 9.5;
    const font = o.font ?? this.fonts.regular;
    const t = o.width ? fitText(font, s, size, o.width, this.fallback) : clean(s);
    const runs = textRuns(font, t, this.fallback);
    const w = runs.reduce((a, r) => a + r.font.widthOfTextAtSize(r.text, size), 0);
    let cx = x + (o.align === 'right' ? (o.width ?? 0) - w : o.align === 'center' ? ((o.width ?? 0) - w) / 2 : 0);
    for (const r of runs) {
      (o.page ?? this.page).drawText(r.text, { x: cx, y, size, font: r.font, color: o.color ?? COLOR.text });
      cx += r.font.widthOfTextAtSize(r.text, size);
    }
  }

  /** Lines of `s` within `width`, as `paragraph` and `bullets` break them. */
  lines(s: string, size: number, width: number, font: PDFFont = this.fonts.regular): string[] {
    return wrapText(font, s, size, width, this.fallback);
  }

  /**
   * A section title with a rule under it. `keep`: the height of what follows that must stay on
   * the title's page (its first block: a chart, the score bars, a table's first rows), so a title
   * never stands alone at a page foot.
   */
  heading(title: string, subtitle?: string, keep = 48): void {
    this.ensure(32 + keep);
    this.space(8);
    this.text(title, PAGE.margin, this.y - 14, { size: 13.5, font: this.fonts.bold, color: COLOR.ink });
    if (subtitle) {
      this.text(subtitle, PAGE.width - PAGE.margin - 300, this.y - 13, { size: 8.5, color: COLOR.muted, align: 'right', width: 300 });
    }
    this.page.drawRectangle({ x: PAGE.margin, y: this.y - 21, width: 28, height: 2, color: COLOR.accent });
    this.page.drawLine({
      start: { x: PAGE.margin + 28, y: this.y - 20 },
      end: { x: PAGE.width - PAGE.margin, y: this.y - 20 },
      thickness: 0.6,
      color: COLOR.line,
    });
    this.space(32);
  }

  paragraph(s: string, o: { size?: number; color?: RGB; font?: PDFFont; indent?: number; width?: number; leading?: number } = {}): void {
    const size = o.size ?? 9.5;
    const font = o.font ?? this.fonts.regular;
    const indent = o.indent ?? 0;
    const leading = o.leading ?? size * 1.45;
    for (const line of this.lines(s, size, (o.width ?? CONTENT_WIDTH) - indent, font)) {
      this.ensure(leading);
      this.text(line, PAGE.margin + indent, this.y - size, { size, font, color: o.color });
      this.y -= leading;
    }
  }

  /** Height `bullets` takes for one item. */
  bulletHeight(item: string, size = 9.5): number {
    return this.lines(item, size, CONTENT_WIDTH - 14).length * size * 1.45 + 2;
  }

  bullets(items: string[], o: { color?: RGB; size?: number } = {}): void {
    const size = o.size ?? 9.5;
    for (const item of items) {
      const lines = this.lines(item, size, CONTENT_WIDTH - 14);
      lines.forEach((line, i) => {
        this.ensure(size * 1.45);
        if (i === 0) this.page.drawCircle({ x: PAGE.margin + 4, y: this.y - size + 3, size: 1.7, color: o.color ?? COLOR.accent });
        this.text(line, PAGE.margin + 14, this.y - size, { size, color: COLOR.text });
        this.y -= size * 1.45;
      });
      this.y -= 2;
    }
  }

  /** Height of the header and first `rows` rows of a table (for a heading's `keep`). */
  static tableHeight(rows: number, size = 8.5): number {
    return (rows + 1) * (size + 8) + 6;
  }

  /**
   * A table with a shaded header, zebra rows, and the header repeated after a page break. A
   * column with `lines` > 1 wraps its cells, the row growing to the tallest cell.
   */
  table(columns: Column[], rows: string[][], o: { size?: number; cellColor?: (row: number, col: number) => RGB | null } = {}): void {
    const size = o.size ?? 8.5;
    const headerH = size + 8;
    const lineH = size * 1.25;
    const total = columns.reduce((a, c) => a + c.width, 0);
    const scale = CONTENT_WIDTH / total;
    const cols = columns.map((c) => ({ ...c, width: c.width * scale }));
    const header = () => {
      this.page.drawRectangle({ x: PAGE.margin, y: this.y - headerH, width: CONTENT_WIDTH, height: headerH, color: COLOR.panel });
      let x = PAGE.margin;
      for (const c of cols) {
        this.text(c.title.toUpperCase(), x + 5, this.y - headerH + 5.5, {
          size: size - 1.5,
          font: this.fonts.semibold,
          color: COLOR.muted,
          align: c.align,
          width: c.width - 10,
        });
        x += c.width;
      }
      this.y -= headerH;
    };
    const cellLines = (cell: string, c: (typeof cols)[number], font: PDFFont): string[] => {
      const max = c.lines ?? 1;
      if (max <= 1) return [cell];
      const lines = this.lines(cell, size, c.width - 10, font);
      if (lines.length <= max) return lines;
      return [...lines.slice(0, max - 1), fitText(font, lines.slice(max - 1).join(' '), size, c.width - 10, this.fallback)];
    };
    this.ensure(headerH * 2);
    header();
    rows.forEach((row, i) => {
      const fonts = row.map((_, j) => (o.cellColor?.(i, j) ? this.fonts.semibold : this.fonts.regular));
      const cells = row.map((cell, j) => cellLines(cell, cols[j], fonts[j]));
      const rowH = headerH + (Math.max(1, ...cells.map((c) => c.length)) - 1) * lineH;
      if (this.y - rowH < PAGE.bottom) {
        this.newPage();
        header();
      }
      if (i % 2 === 1)
        this.page.drawRectangle({ x: PAGE.margin, y: this.y - rowH, width: CONTENT_WIDTH, height: rowH, color: rgb(0.985, 0.988, 0.995) });
      let x = PAGE.margin;
      cells.forEach((lines, j) => {
        const c = cols[j];
        const color = o.cellColor?.(i, j) ?? null;
        lines.forEach((line, k) => {
          this.text(line, x + 5, this.y - headerH + 5.5 - k * lineH, {
            size,
            font: fonts[j],
            color: color ?? COLOR.text,
            align: c.align,
            width: c.width - 10,
          });
        });
        x += c.width;
      });
      this.page.drawLine({
        start: { x: PAGE.margin, y: this.y - rowH },
        end: { x: PAGE.width - PAGE.margin, y: this.y - rowH },
        thickness: 0.4,
        color: COLOR.line,
      });
      this.y -= rowH;
    });
    this.space(6);
  }

  /** Footer on every page: generation note left, `Page n of N` right. */
  finish(note: string): void {
    const n = this.pages.length;
    this.pages.forEach((page, i) => {
      page.drawLine({ start: { x: PAGE.margin, y: 36 }, end: { x: PAGE.width - PAGE.margin, y: 36 }, thickness: 0.6, color: COLOR.line });
      this.text(note, PAGE.margin, 24, { size: 7.5, color: COLOR.muted, width: CONTENT_WIDTH - 80, page });
      const label = `Page ${i + 1} of ${n}`;
      const w = this.fonts.semibold.widthOfTextAtSize(label, 8);
      page.drawText(label, { x: PAGE.width - PAGE.margin - w, y: 24, size: 8, font: this.fonts.semibold, color: COLOR.muted });
    });
  }
}
