import { PDFDocument, PDFFont, PDFPage, rgb, RGB } from 'pdf-lib';

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

/** The text, cut with an ellipsis to fit `width` (binary search on the cut). */
export function fitText(font: PDFFont, text: string, size: number, width: number): string {
  const t = clean(text);
  if (font.widthOfTextAtSize(t, size) <= width) return t;
  let lo = 0;
  let hi = t.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (font.widthOfTextAtSize(`${t.slice(0, mid)}…`, size) <= width) lo = mid;
    else hi = mid - 1;
  }
  return `${t.slice(0, lo).trimEnd()}…`;
}

export function wrapText(font: PDFFont, text: string, size: number, width: number): string[] {
  const lines: string[] = [];
  for (const paragraph of text.split(/\r?\n/)) {
    const words = clean(paragraph).split(/\s+/).filter(Boolean);
    let line = '';
    for (const word of words) {
      const candidate = line ? `${line} ${word}` : word;
      if (font.widthOfTextAtSize(candidate, size) <= width || !line) line = candidate;
      else {
        lines.push(line);
        line = word;
      }
    }
    lines.push(line);
  }
  return lines.map((l) => fitText(font, l, size, width));
}

export interface Column {
  title: string;
  width: number;
  align?: 'left' | 'right';
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
      this.text(this.runningTitle, PAGE.margin, PAGE.height - 34, { size: 8.5, font: this.fonts.semibold, color: COLOR.muted });
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

  text(
    s: string,
    x: number,
    y: number,
    o: { size?: number; font?: PDFFont; color?: RGB; align?: 'left' | 'right' | 'center'; width?: number } = {},
  ): void {
    const size = o.size ?? 9.5;
    const font = o.font ?? this.fonts.regular;
    const t = o.width ? fitText(font, s, size, o.width) : clean(s);
    const w = font.widthOfTextAtSize(t, size);
    const dx = o.align === 'right' ? (o.width ?? 0) - w : o.align === 'center' ? ((o.width ?? 0) - w) / 2 : 0;
    this.page.drawText(t, { x: x + dx, y, size, font, color: o.color ?? COLOR.text });
  }

  /** A section title with a rule under it; `keep` is the height of what follows that should stay on its page. */
  heading(title: string, subtitle?: string, keep = 32): void {
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
    for (const line of wrapText(font, s, size, (o.width ?? CONTENT_WIDTH) - indent)) {
      this.ensure(leading);
      this.text(line, PAGE.margin + indent, this.y - size, { size, font, color: o.color });
      this.y -= leading;
    }
  }

  bullets(items: string[], o: { color?: RGB; size?: number } = {}): void {
    const size = o.size ?? 9.5;
    for (const item of items) {
      const lines = wrapText(this.fonts.regular, item, size, CONTENT_WIDTH - 14);
      lines.forEach((line, i) => {
        this.ensure(size * 1.45);
        if (i === 0) this.page.drawCircle({ x: PAGE.margin + 4, y: this.y - size + 3, size: 1.7, color: o.color ?? COLOR.accent });
        this.text(line, PAGE.margin + 14, this.y - size, { size, color: COLOR.text });
        this.y -= size * 1.45;
      });
      this.y -= 2;
    }
  }

  /** A table with a shaded header, zebra rows, and the header repeated after a page break. */
  table(columns: Column[], rows: string[][], o: { size?: number; cellColor?: (row: number, col: number) => RGB | null } = {}): void {
    const size = o.size ?? 8.5;
    const rowH = size + 8;
    const total = columns.reduce((a, c) => a + c.width, 0);
    const scale = CONTENT_WIDTH / total;
    const cols = columns.map((c) => ({ ...c, width: c.width * scale }));
    const header = () => {
      this.page.drawRectangle({ x: PAGE.margin, y: this.y - rowH, width: CONTENT_WIDTH, height: rowH, color: COLOR.panel });
      let x = PAGE.margin;
      for (const c of cols) {
        this.text(c.title.toUpperCase(), x + 5, this.y - rowH + 5.5, {
          size: size - 1.5,
          font: this.fonts.semibold,
          color: COLOR.muted,
          align: c.align,
          width: c.width - 10,
        });
        x += c.width;
      }
      this.y -= rowH;
    };
    this.ensure(rowH * 2);
    header();
    rows.forEach((row, i) => {
      if (this.y - rowH < PAGE.bottom) {
        this.newPage();
        header();
      }
      if (i % 2 === 1)
        this.page.drawRectangle({ x: PAGE.margin, y: this.y - rowH, width: CONTENT_WIDTH, height: rowH, color: rgb(0.985, 0.988, 0.995) });
      let x = PAGE.margin;
      row.forEach((cell, j) => {
        const c = cols[j];
        const color = o.cellColor?.(i, j) ?? null;
        this.text(cell, x + 5, this.y - rowH + 5.5, {
          size,
          font: color ? this.fonts.semibold : this.fonts.regular,
          color: color ?? COLOR.text,
          align: c.align,
          width: c.width - 10,
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
      page.drawText(fitText(this.fonts.regular, note, 7.5, CONTENT_WIDTH - 80), {
        x: PAGE.margin,
        y: 24,
        size: 7.5,
        font: this.fonts.regular,
        color: COLOR.muted,
      });
      const label = `Page ${i + 1} of ${n}`;
      const w = this.fonts.semibold.widthOfTextAtSize(label, 8);
      page.drawText(label, { x: PAGE.width - PAGE.margin - w, y: 24, size: 8, font: this.fonts.semibold, color: COLOR.muted });
    });
  }
}
