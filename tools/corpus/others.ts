/** Non-statement documents (tax return, P&L, letter), scanned variants and hostile files. */
import * as zlib from 'zlib';
import { degrees, PDFDocument, PDFName, rgb } from 'pdf-lib';
import { fmtMoney } from './model';
import { Writer } from './pdfdoc';
import { Rng } from './rng';

const money = fmtMoney;

export async function taxReturn(r: Rng): Promise<Uint8Array> {
  const w = await Writer.create('helvetica');
  const year = r.int(2021, 2025);
  w.text('Form 1120-S', 36, 50, 14, true);
  w.text('U.S. Income Tax Return for an S Corporation', 150, 50, 12, true);
  w.text('Department of the Treasury  Internal Revenue Service', 150, 64, 8);
  w.text(`For calendar year ${year} or tax year beginning ______, ending ______`, 150, 76, 8);
  w.text(`Name: ${r.pick(['Acme Plumbing LLC', 'Sunrise Bakery Inc', 'Metro Print Shop Inc'])}`, 36, 100, 9);
  w.text(`Employer identification number ${r.int(10, 99)}-${r.int(1000000, 9999999)}`, 330, 100, 9);
  const gross = r.money(200000, 2000000);
  const lines: Array<[string, number]> = [
    ['1a Gross receipts or sales', gross],
    ['2 Cost of goods sold (attach Form 1125-A)', r.money(50000, gross * 0.5)],
    ['3 Gross profit. Subtract line 2 from line 1c', r.money(50000, gross * 0.5)],
    ['7 Compensation of officers', r.money(30000, 150000)],
    ['8 Salaries and wages (less employment credits)', r.money(30000, 300000)],
    ['11 Rents', r.money(10000, 90000)],
    ['12 Taxes and licenses', r.money(2000, 30000)],
    ['20 Total deductions. Add lines 7 through 19', r.money(100000, 500000)],
    ['21 Ordinary business income (loss). Subtract line 20 from line 6', r.money(10000, 300000)],
  ];
  let cy = 130;
  w.text('Income', 36, cy, 10, true);
  cy += 16;
  for (const [l, v] of lines) {
    w.text(l, 50, cy, 9);
    w.right(money(v), 570, cy, 9);
    cy += 15;
  }
  w.text('Sign Here  Under penalties of perjury, I declare that I have examined this return', 36, cy + 20, 8);
  return w.save();
}

export async function profitAndLoss(r: Rng): Promise<Uint8Array> {
  const w = await Writer.create('times');
  const year = r.int(2022, 2026);
  w.text(r.pick(['Acme Plumbing LLC', 'Harbor View Fitness Inc', 'Maple Street Cafe LLC']), 220, 50, 14, true);
  w.text('Profit and Loss', 250, 68, 12, true);
  w.text(`January - December ${year}`, 245, 82, 10);
  w.text('Accrual Basis', 265, 94, 9);
  let cy = 130;
  const row = (l: string, v: number | null, bold = false, indent = 0) => {
    w.text(l, 60 + indent, cy, 10, bold);
    if (v !== null) w.right(money(v), 540, cy, 10, bold);
    cy += 15;
  };
  const sales = r.money(150000, 900000);
  row('Income', null, true);
  row('Sales', sales, false, 15);
  row('Services', r.money(1000, 50000), false, 15);
  row('Total Income', sales, true);
  row('Cost of Goods Sold', r.money(20000, sales * 0.4), false);
  row('Gross Profit', r.money(50000, sales * 0.6), true);
  row('Expenses', null, true);
  for (const e of ['Advertising', 'Insurance', 'Payroll Expenses', 'Rent Expense', 'Utilities', 'Repairs and Maintenance'])
    row(e, r.money(1000, 60000), false, 15);
  row('Total Expenses', r.money(50000, 200000), true);
  row('Net Operating Income', r.money(10000, 200000), true);
  row('Net Income', r.money(10000, 200000), true);
  return w.save();
}

export async function letter(r: Rng): Promise<Uint8Array> {
  const w = await Writer.create('helvetica');
  const lines = [
    'Dear Customer,',
    'Thank you for choosing our services. We are writing to let you know about changes',
    'to our privacy policy that take effect next month. No action is required on your part.',
    'If you have questions, please contact our office during business hours.',
    'Sincerely,',
    `${r.pick(['Jane Doe', 'Robert Brown'])}, Office Manager`,
  ];
  lines.forEach((l, i) => w.text(l, 60, 100 + i * 18, 11));
  return w.save();
}

export interface ScanOptions {
  dpi: number;
  rotate: number; // degrees
  noise: number; // specks per page
}

/** Renders each page of a PDF to an image and wraps the images in a new PDF with no text layer. */
export async function scanned(pdf: Uint8Array, r: Rng, o: ScanOptions, maxPages = 3): Promise<Uint8Array> {
  const mupdf = await import('mupdf');
  const doc = mupdf.Document.openDocument(pdf, 'application/pdf');
  const out = await PDFDocument.create();
  out.setProducer('Scanner XYZ 2.1');
  out.setCreator('Scanner XYZ 2.1');
  const n = Math.min(doc.countPages(), maxPages);
  for (let i = 0; i < n; i++) {
    const page = doc.loadPage(i);
    const b = page.getBounds();
    const pix = page.toPixmap(mupdf.Matrix.scale(o.dpi / 72, o.dpi / 72), mupdf.ColorSpace.DeviceGray, false, true);
    const png = pix.asPNG();
    const img = await out.embedPng(png);
    const W = b[2] - b[0];
    const H = b[3] - b[1];
    const p = out.addPage([W, H]);
    p.drawRectangle({ x: 0, y: 0, width: W, height: H, color: rgb(1, 1, 1) });
    const rad = (o.rotate * Math.PI) / 180;
    p.drawImage(img, {
      x: o.rotate > 0 ? H * Math.sin(rad) * 0.5 : 0,
      y: o.rotate < 0 ? -W * Math.sin(rad) * 0.5 : 0,
      width: W,
      height: H,
      rotate: degrees(o.rotate),
    });
    for (let k = 0; k < o.noise; k++) {
      const s = 0.3 + r.next() * 0.9;
      p.drawRectangle({ x: r.next() * W, y: r.next() * H, width: s, height: s, color: rgb(0.3, 0.3, 0.3) });
    }
  }
  return out.save();
}

/** Renders the first page of a PDF as a PNG file (image upload). */
export async function pageAsPng(pdf: Uint8Array, dpi = 150): Promise<Uint8Array> {
  const mupdf = await import('mupdf');
  const doc = mupdf.Document.openDocument(pdf, 'application/pdf');
  const page = doc.loadPage(0);
  return page.toPixmap(mupdf.Matrix.scale(dpi / 72, dpi / 72), mupdf.ColorSpace.DeviceGray, false, true).asPNG();
}

export interface Hostile {
  name: string;
  bytes: Uint8Array;
  expectError: string;
}

export async function hostileFiles(r: Rng, sample: Uint8Array): Promise<Hostile[]> {
  const out: Hostile[] = [];
  out.push({ name: 'empty', bytes: new Uint8Array(0), expectError: 'blank' });
  const junk = Buffer.alloc(4096);
  for (let i = 0; i < junk.length; i++) junk[i] = Math.floor(r.next() * 256);
  out.push({ name: 'corrupt', bytes: new Uint8Array(Buffer.concat([Buffer.from('%PDF-1.7\n'), junk])), expectError: 'corrupt' });
  out.push({
    name: 'not_a_pdf',
    bytes: new Uint8Array(Buffer.from('Date,Description,Amount\n01/02/2025,Deposit,100.00\n')),
    expectError: 'unsupported_format',
  });
  const zero = await PDFDocument.create();
  out.push({ name: 'zero_pages', bytes: await zero.save(), expectError: 'blank' });
  // encrypted (mupdf writes the encryption dictionary)
  const mupdf = await import('mupdf');
  const d = new mupdf.PDFDocument(sample);
  const enc = d.saveToBuffer('encrypt=aes-256,user-password=secret,owner-password=owner').asUint8Array();
  out.push({ name: 'encrypted', bytes: new Uint8Array(enc), expectError: 'encrypted' });
  // flate bomb: ~300 MB of drawing operators compressed to a few hundred KB
  const bomb = await PDFDocument.create();
  const page = bomb.addPage([612, 792]);
  const raw = zlib.deflateSync(Buffer.alloc(300 * 1024 * 1024, ' '), { level: 9 });
  const stream = bomb.context.stream(raw, { Filter: 'FlateDecode', Length: raw.length });
  page.node.set(PDFName.of('Contents'), bomb.context.register(stream));
  out.push({ name: 'flate_bomb', bytes: await bomb.save(), expectError: 'too_large' });
  // page-count bomb: the page tree claims a million pages
  const hdr = '%PDF-1.4\n';
  const kids = (ref: string) => Array(100).fill(ref).join(' ');
  const objs = [
    '1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n',
    `2 0 obj\n<< /Type /Pages /Count 1000000 /Kids [${kids('3 0 R')}] >>\nendobj\n`,
    `3 0 obj\n<< /Type /Pages /Count 10000 /Kids [${kids('4 0 R')}] /Parent 2 0 R >>\nendobj\n`,
    `4 0 obj\n<< /Type /Pages /Count 100 /Kids [${kids('5 0 R')}] /Parent 3 0 R >>\nendobj\n`,
    '5 0 obj\n<< /Type /Page /MediaBox [0 0 612 792] /Parent 4 0 R >>\nendobj\n',
  ];
  let body = hdr;
  const offs: number[] = [];
  for (const o of objs) {
    offs.push(body.length);
    body += o;
  }
  const xref = body.length;
  body += `xref\n0 ${objs.length + 1}\n0000000000 65535 f \n${offs.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}trailer\n<< /Size ${objs.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  out.push({ name: 'page_tree_lie', bytes: new Uint8Array(Buffer.from(body, 'latin1')), expectError: 'corrupt' });
  // many real pages
  const many = await PDFDocument.create();
  for (let i = 0; i < 5000; i++) many.addPage([200, 200]);
  out.push({ name: 'page_bomb', bytes: await many.save(), expectError: 'too_large' });
  return out;
}

/** A statement whose metadata says it went through an online editor after creation. */
export async function withEditedMetadata(pdf: Uint8Array): Promise<Uint8Array> {
  const doc = await PDFDocument.load(pdf);
  doc.setProducer('iLovePDF');
  doc.setModificationDate(new Date(Date.UTC(2026, 1, 20)));
  return doc.save();
}

/**
 * The statement as a word processor would leave it after an edit: editor producer, modification
 * after creation, and an incremental update appended to the original file (pdf_risk_level high).
 */
export async function withIncrementalEdit(pdf: Uint8Array): Promise<Uint8Array> {
  const mupdf = await import('mupdf');
  const doc = mupdf.PDFDocument.openDocument(await withEditedMetadata(pdf), 'application/pdf') as InstanceType<typeof mupdf.PDFDocument>;
  try {
    doc.setMetaData('info:Producer', 'Microsoft Word - statement.docx');
    return doc.saveToBuffer('incremental').asUint8Array().slice();
  } finally {
    doc.destroy();
  }
}
