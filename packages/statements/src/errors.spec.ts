import * as zlib from 'zlib';
import { PDFDocument, PDFName } from 'pdf-lib';
import { makePdf } from './__fixtures__/make-pdf';
import { parseStatementFile, StatementError } from './index';

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'no error';
  } catch (e) {
    if (!(e instanceof StatementError)) throw e;
    return e.code;
  }
}

const statementPdf = () => makePdf([[{ x: 40, y: 40, text: 'Test Bank statement' }]]);

describe('typed errors on hostile input', () => {
  it('0-byte file -> blank', async () => {
    expect(await codeOf(parseStatementFile(new Uint8Array(0)))).toBe('blank');
  });

  it('unknown format -> unsupported_format', async () => {
    expect(await codeOf(parseStatementFile(new Uint8Array(Buffer.from('Date,Amount\n01/01,1.00\n'))))).toBe('unsupported_format');
  });

  it('garbage behind a PDF header -> corrupt', async () => {
    const junk = Buffer.alloc(2048);
    for (let i = 0; i < junk.length; i++) junk[i] = (i * 7919) % 251;
    expect(await codeOf(parseStatementFile(new Uint8Array(Buffer.concat([Buffer.from('%PDF-1.7\n'), junk]))))).toBe('corrupt');
  });

  it('password protected -> encrypted', async () => {
    const mupdf = await import('mupdf');
    const doc = new mupdf.PDFDocument(await statementPdf());
    const enc = doc.saveToBuffer('encrypt=aes-256,user-password=pw,owner-password=own').asUint8Array();
    expect(await codeOf(parseStatementFile(enc))).toBe('encrypted');
  });

  it('zero pages -> blank', async () => {
    const pdf = await PDFDocument.create();
    const bytes = await pdf.save();
    const code = await codeOf(parseStatementFile(bytes, { ocr: false }));
    expect(['blank', 'no_text']).toContain(code);
  });

  it('more pages than the limit -> too_large', async () => {
    const bytes = await makePdf([[{ x: 40, y: 40, text: 'a' }], [{ x: 40, y: 40, text: 'b' }], [{ x: 40, y: 40, text: 'c' }]]);
    expect(await codeOf(parseStatementFile(bytes, { limits: { maxPages: 2 } }))).toBe('too_large');
  });

  it('bigger than the byte limit -> too_large', async () => {
    expect(await codeOf(parseStatementFile(await statementPdf(), { limits: { maxBytes: 100 } }))).toBe('too_large');
  });

  it('compression bomb in a content stream -> too_large, quickly', async () => {
    const pdf = await PDFDocument.create();
    const page = pdf.addPage([612, 792]);
    const raw = zlib.deflateSync(Buffer.alloc(64 * 1024 * 1024, ' '), { level: 9 });
    page.node.set(PDFName.of('Contents'), pdf.context.register(pdf.context.stream(raw, { Filter: 'FlateDecode', Length: raw.length })));
    const bytes = await pdf.save();
    // CPU time, not wall time: the bound is on the work done (inflating the 64 MB would cost it), and
    // a loaded machine stretches the wall clock without the work changing
    const c0 = process.cpuUsage();
    expect(await codeOf(parseStatementFile(bytes))).toBe('too_large');
    const cpu = process.cpuUsage(c0);
    expect((cpu.user + cpu.system) / 1000).toBeLessThan(3000);
  });

  it('a page tree that lies about its page count -> corrupt or too_large', async () => {
    const body =
      '%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n<< /Type /Pages /Count 99999999 /Kids [3 0 R] >>\nendobj\n3 0 obj\n<< /Type /Page /MediaBox [0 0 612 792] /Parent 2 0 R >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n';
    expect(['corrupt', 'too_large']).toContain(await codeOf(parseStatementFile(new Uint8Array(Buffer.from(body)))));
  });

  it('image-only pages with OCR disabled -> no_text', async () => {
    const mupdf = await import('mupdf');
    const doc = mupdf.Document.openDocument(await statementPdf(), 'application/pdf');
    const png = doc.loadPage(0).toPixmap(mupdf.Matrix.scale(0.5, 0.5), mupdf.ColorSpace.DeviceGray, false, true).asPNG();
    const pdf = await PDFDocument.create();
    const img = await pdf.embedPng(png);
    pdf.addPage([612, 792]).drawImage(img, { x: 0, y: 0, width: 612, height: 792 });
    expect(await codeOf(parseStatementFile(await pdf.save(), { ocr: false }))).toBe('no_text');
  });

  it('an aborted signal stops the work', async () => {
    const ac = new AbortController();
    ac.abort();
    await expect(parseStatementFile(await statementPdf(), { signal: ac.signal })).rejects.toThrow();
  });
});
