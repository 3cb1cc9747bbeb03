/** A tiny page-flow writer over pdf-lib (top-left coordinates, page breaks, wrapping). */
import { PDFDocument, PDFFont, PDFPage, StandardFonts, rgb } from 'pdf-lib';

export interface FontSet {
  reg: PDFFont;
  bold: PDFFont;
}

export type FontFamily = 'helvetica' | 'times' | 'courier';

export class Writer {
  pdf!: PDFDocument;
  fonts!: FontSet;
  page!: PDFPage;
  pages: PDFPage[] = [];
  cy = 0;
  onNewPage: (w: Writer) => void = () => undefined;
  constructor(
    readonly size: [number, number],
    readonly top = 50,
    readonly bottom = 60,
  ) {}

  static async create(family: FontFamily, size: [number, number] = [612, 792], top = 50, bottom = 60): Promise<Writer> {
    const w = new Writer(size, top, bottom);
    w.pdf = await PDFDocument.create();
    const f = {
      helvetica: [StandardFonts.Helvetica, StandardFonts.HelveticaBold],
      times: [StandardFonts.TimesRoman, StandardFonts.TimesRomanBold],
      courier: [StandardFonts.Courier, StandardFonts.CourierBold],
    }[family];
    w.fonts = { reg: await w.pdf.embedFont(f[0]), bold: await w.pdf.embedFont(f[1]) };
    w.pdf.setProducer('Ledgerlens corpus statement renderer');
    w.pdf.setCreator('Ledgerlens corpus');
    const dt = new Date(Date.UTC(2026, 0, 5));
    w.pdf.setCreationDate(dt);
    w.pdf.setModificationDate(dt);
    w.newPage();
    return w;
  }

  get width(): number {
    return this.size[0];
  }

  newPage(): void {
    this.page = this.pdf.addPage(this.size);
    this.pages.push(this.page);
    this.cy = this.top;
    this.onNewPage(this);
  }

  /** Makes room for h points; returns true if a new page was started. */
  ensure(h: number): boolean {
    if (this.cy + h > this.size[1] - this.bottom) {
      this.newPage();
      return true;
    }
    return false;
  }

  font(bold?: boolean): PDFFont {
    return bold ? this.fonts.bold : this.fonts.reg;
  }

  tw(s: string, size: number, bold?: boolean): number {
    return this.font(bold).widthOfTextAtSize(s, size);
  }

  text(s: string, x: number, cy: number, size = 9, bold = false, font?: PDFFont): void {
    if (!s) return;
    this.page.drawText(s, { x, y: this.size[1] - cy, size, font: font ?? this.font(bold), color: rgb(0, 0, 0) });
  }

  right(s: string, xr: number, cy: number, size = 9, bold = false, font?: PDFFont): void {
    const f = font ?? this.font(bold);
    this.text(s, xr - f.widthOfTextAtSize(s, size), cy, size, bold, f);
  }

  rule(x0: number, x1: number, cy: number, thick = 0.5): void {
    this.page.drawLine({
      start: { x: x0, y: this.size[1] - cy },
      end: { x: x1, y: this.size[1] - cy },
      thickness: thick,
      color: rgb(0.4, 0.4, 0.4),
    });
  }

  shade(x0: number, cy0: number, x1: number, cy1: number): void {
    this.page.drawRectangle({ x: x0, y: this.size[1] - cy1, width: x1 - x0, height: cy1 - cy0, color: rgb(0.92, 0.92, 0.92) });
  }

  wrap(s: string, maxW: number, size: number, bold = false): string[] {
    const words = s.split(' ');
    const out: string[] = [];
    let cur = '';
    for (const w of words) {
      const t = cur ? `${cur} ${w}` : w;
      if (this.tw(t, size, bold) > maxW && cur) {
        out.push(cur);
        cur = w;
      } else cur = t;
    }
    if (cur) out.push(cur);
    return out;
  }

  /** Writes "Page i of n" on every page once the page count is known. */
  pageNumbers(fn: (i: number, n: number) => { text: string; x: number; cy: number; size: number; align?: 'r' | 'l' }): void {
    const n = this.pages.length;
    const keep = this.page;
    this.pages.forEach((p, i) => {
      this.page = p;
      const o = fn(i + 1, n);
      if (o.align === 'r') this.right(o.text, o.x, o.cy, o.size);
      else this.text(o.text, o.x, o.cy, o.size);
    });
    this.page = keep;
  }

  async save(): Promise<Uint8Array> {
    return this.pdf.save({ useObjectStreams: false });
  }
}

export interface Col {
  key: string;
  header: string;
  x: number; // left edge, or right edge when align = 'r'
  w: number;
  align: 'l' | 'r';
}

/** Draws a table header row at the cursor. */
export function drawHeader(w: Writer, cols: Col[], size: number, opts: { shade?: boolean; bold?: boolean } = {}): void {
  const h = size * 1.8;
  if (opts.shade) w.shade(cols[0].align === 'l' ? cols[0].x - 4 : cols[0].x - cols[0].w - 4, w.cy, w.width - 36, w.cy + h);
  const base = w.cy + size * 1.25;
  for (const c of cols) {
    if (c.align === 'r') w.right(c.header, c.x, base, size, opts.bold ?? true);
    else w.text(c.header, c.x, base, size, opts.bold ?? true);
  }
  w.cy += h + 2;
}

/**
 * Draws one row. `cells[key]` is a string; the `wrapKey` cell wraps within its column width.
 * Returns the height used. Calls `onBreak` after a page break (to redraw headers).
 */
export function drawRow(
  w: Writer,
  cols: Col[],
  cells: Record<string, string>,
  size: number,
  wrapKey: string | null,
  onBreak: () => void,
  lead = 1.35,
): void {
  const lh = size * lead;
  const wc = wrapKey ? cols.find((c) => c.key === wrapKey) : undefined;
  const lines = wc && cells[wrapKey!] ? w.wrap(cells[wrapKey!], wc.w, size) : [cells[wrapKey ?? ''] ?? ''];
  if (w.ensure(lh * lines.length + 2)) onBreak();
  const base = w.cy + size;
  for (const c of cols) {
    const v = c.key === wrapKey ? lines[0] : cells[c.key];
    if (!v) continue;
    if (c.align === 'r') w.right(v, c.x, base, size);
    else w.text(v, c.x, base, size);
  }
  for (let i = 1; i < lines.length; i++) if (wc) w.text(lines[i], wc.x, base + i * lh, size);
  w.cy += lh * lines.length;
}
