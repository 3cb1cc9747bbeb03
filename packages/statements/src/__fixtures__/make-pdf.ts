/** Test helper: writes small PDFs with text at explicit positions (top-left coordinates). */
import { PDFDocument, StandardFonts } from 'pdf-lib';

export interface Txt {
  x: number;
  y: number;
  text: string;
  size?: number;
  bold?: boolean;
  courier?: boolean;
  /** x is the right edge */
  right?: boolean;
}

export interface PdfOptions {
  producer?: string;
  creator?: string;
  created?: Date;
  modified?: Date;
  size?: [number, number];
  /** write no creation or modification date (a PDF that says nothing of when it was made) */
  noDates?: boolean;
}

export async function makePdf(pages: Txt[][], o: PdfOptions = {}): Promise<Uint8Array> {
  const pdf = await PDFDocument.create({ updateMetadata: !o.noDates });
  const reg = await pdf.embedFont(StandardFonts.Helvetica);
  const bold = await pdf.embedFont(StandardFonts.HelveticaBold);
  const courier = await pdf.embedFont(StandardFonts.Courier);
  pdf.setProducer(o.producer ?? 'Test Bank Statement Engine');
  pdf.setCreator(o.creator ?? 'Test Bank');
  if (!o.noDates) {
    pdf.setCreationDate(o.created ?? new Date(Date.UTC(2025, 0, 2)));
    pdf.setModificationDate(o.modified ?? o.created ?? new Date(Date.UTC(2025, 0, 2)));
  }
  const [W, H] = o.size ?? [612, 792];
  for (const items of pages) {
    const p = pdf.addPage([W, H]);
    for (const t of items) {
      const font = t.courier ? courier : t.bold ? bold : reg;
      const size = t.size ?? 9;
      const x = t.right ? t.x - font.widthOfTextAtSize(t.text, size) : t.x;
      p.drawText(t.text, { x, y: H - t.y, size, font });
    }
  }
  return pdf.save();
}

/** Lays out rows of cells at column x positions; a column whose x is negative is right-aligned at -x. */
export function rows(cells: string[][], xs: number[], y0: number, lh = 12, size = 9): Txt[] {
  const out: Txt[] = [];
  cells.forEach((r, i) =>
    r.forEach((c, k) => {
      if (!c) return;
      out.push({ x: Math.abs(xs[k]), y: y0 + i * lh, text: c, size, right: xs[k] < 0 });
    }),
  );
  return out;
}

/**
 * One page of a small statement whose second row is dated February 29 of a common year: the row is
 * kept and the date named on it (columns: date, description, withdrawals, deposits, balance).
 */
export function impossibleDatePage(): Txt[] {
  const X = [40, 100, -380, -460, -560];
  return [
    { x: 40, y: 40, text: 'Plover Savings Bank', size: 12, bold: true },
    { x: 40, y: 58, text: 'Statement period 01/02/2023 to 28/02/2023' },
    { x: 40, y: 70, text: 'Opening balance 500.00' },
    { x: 40, y: 82, text: 'Closing balance 430.00' },
    ...rows([['Date', 'Description', 'Withdrawals', 'Deposits', 'Balance']], X, 110),
    ...rows(
      [
        ['10/02/2023', 'Grocer', '50.00', '', '450.00'],
        ['29/02/2023', 'Card fee', '20.00', '', '430.00'],
      ],
      X,
      125,
    ),
  ];
}
