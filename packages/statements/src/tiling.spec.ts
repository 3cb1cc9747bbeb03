import { PDFDocument } from 'pdf-lib';
import { loadMupdf } from './mupdf';
import { guardPageContent } from './open';
import { parseStatementFile, StatementError } from './index';

/**
 * A one-page PDF written byte by byte (about 700 bytes): the page fills itself with tiling pattern
 * P1 (cell `cell`, steps `step`, optional Matrix), the way a 0.01 pt step stalls a renderer for
 * minutes while passing every size check.
 */
function tilingPdf(opts: { step: number; content?: string[]; cell?: string; matrix?: string; extraObjects?: string[] }): Uint8Array {
  const content = opts.content ?? ['/Pattern cs /P1 scn 0 0 612 792 re f'];
  const cell = opts.cell ?? '0 0 0.005 0.005 re f';
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Pattern << /P1 4 0 R >> /XObject << /Fm1 6 0 R >> >> /Contents [${content.map((_, i) => `${7 + i} 0 R`).join(' ')}] >>`,
    `<< /Type /Pattern /PatternType 1 /PaintType 1 /TilingType 1 /BBox [0 0 ${opts.step} ${opts.step}] /XStep ${opts.step} /YStep ${opts.step}${opts.matrix ? ` /Matrix [${opts.matrix}]` : ''} /Resources << >> /Length ${cell.length} >>\nstream\n${cell}\nendstream`,
    ...(opts.extraObjects ?? ['<< >>', '<< /Type /XObject /Subtype /Form /BBox [0 0 612 792] /Length 0 >>\nstream\n\nendstream']),
    ...content.map((c) => `<< /Length ${c.length} >>\nstream\n${c}\nendstream`),
  ];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return new Uint8Array(Buffer.from(out, 'latin1'));
}

async function guard(bytes: Uint8Array, limits = {}): Promise<string | null> {
  const mupdf = await loadMupdf();
  const doc = mupdf.Document.openDocument(bytes, 'application/pdf');
  try {
    guardPageContent(doc.loadPage(0), 0, limits);
    return null;
  } catch (e) {
    if (!(e instanceof StatementError)) throw e;
    return `${e.code}: ${e.message}`;
  } finally {
    doc.destroy?.();
  }
}

describe('tiling patterns: the page guard counts the cells a pattern draws', () => {
  it('refuses a page filled with an XStep/YStep 0.01 pattern (about 4.8 billion cells) at once, before any drawing', async () => {
    const bytes = tilingPdf({ step: 0.01 });
    expect(bytes.length).toBeLessThan(1024);
    const started = Date.now();
    expect(await guard(bytes)).toMatch(/^too_large: page 1: more than 1000000 tiling pattern cells to draw/);
    const err = await parseStatementFile(bytes, { ocr: false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StatementError);
    expect((err as StatementError).code).toBe('too_large');
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('lets an ordinary pattern through (a 10 pt cell over the page: about 5,000 cells)', async () => {
    expect(await guard(tilingPdf({ step: 10, cell: '0 0 5 5 re f' }))).toBeNull();
  });

  it('counts in pattern space: a Matrix that shrinks a 10 pt cell to 0.01 pt is refused', async () => {
    expect(await guard(tilingPdf({ step: 10, matrix: '0.001 0 0 0.001 0 0' }))).toMatch(/tiling pattern cells/);
    expect(await guard(tilingPdf({ step: 10, matrix: '0 0 0 0 0 0' }))).toMatch(/tiling pattern cells/);
  });

  it('counts every fill made with the pattern, the colour state followed across content streams and through q/Q', async () => {
    // 50 page fills of a 2 pt cell: 50 x ~121,000 cells
    const fills = Array.from({ length: 50 }, () => '0 0 612 792 re f').join('\n');
    expect(await guard(tilingPdf({ step: 2, cell: '0 0 1 1 re f', content: ['/Pattern cs /P1 scn', fills] }))).toMatch(
      /tiling pattern cells/,
    );
    expect(await guard(tilingPdf({ step: 2, cell: '0 0 1 1 re f', content: ['/Pattern cs /P1 scn 0 0 612 792 re f'] }))).toBeNull();
    // the pattern is no longer the fill colour after Q or after another colour: those fills do not tile
    expect(
      await guard(
        tilingPdf({ step: 2, cell: '0 0 1 1 re f', content: [`q /Pattern cs /P1 scn 0 0 612 792 re f Q ${fills}`, `0 g ${fills}`] }),
      ),
    ).toBeNull();
  });

  it('multiplies through forms drawn with the pattern as their colour, and through nested patterns', async () => {
    const draws = Array.from({ length: 20 }, () => '/Fm1 Do').join(' ');
    const form = '<< /Type /XObject /Subtype /Form /BBox [0 0 612 792] /Length 16 >>\nstream\n0 0 612 792 re f\nendstream';
    expect(
      await guard(tilingPdf({ step: 1, cell: '0 0 1 1 re f', content: [`/Pattern cs /P1 scn ${draws}`], extraObjects: ['<< >>', form] })),
    ).toMatch(/tiling pattern cells/);
    expect(
      await guard(tilingPdf({ step: 1, cell: '0 0 1 1 re f', content: ['/Pattern cs /P1 scn /Fm1 Do'], extraObjects: ['<< >>', form] })),
    ).toBeNull();
    // a 100 pt cell (~80 cells a page) whose content tiles a 0.5 pt pattern (~40,000 cells a cell)
    const nested = (innerStep: number) => {
      const inner = `<< /Type /Pattern /PatternType 1 /PaintType 1 /TilingType 1 /BBox [0 0 ${innerStep} ${innerStep}] /XStep ${innerStep} /YStep ${innerStep} /Resources << >> /Length 10 >>\nstream\n0 0 1 1 re\nendstream`;
      const cell = '/Pattern cs /P2 scn 0 0 100 100 re f';
      const bytes = tilingPdf({
        step: 100,
        cell,
        extraObjects: [inner, '<< /Type /XObject /Subtype /Form /BBox [0 0 1 1] /Length 0 >>\nstream\n\nendstream'],
      });
      // the outer pattern's resources name P2 (object 5)
      const text = Buffer.from(bytes)
        .toString('latin1')
        .replace('/XStep 100 /YStep 100 /Resources << >>', '/XStep 100 /YStep 100 /Resources << /Pattern << /P2 5 0 R >> >>');
      return new Uint8Array(Buffer.from(text, 'latin1'));
    };
    expect(await guard(nested(0.5))).toMatch(/tiling pattern cells/);
    expect(await guard(nested(5))).toBeNull();
  });

  it('reads a page made with pdf-lib as before; a shading pattern (type 2) is not tiled', async () => {
    const pdf = await PDFDocument.create();
    const page = pdf.addPage([612, 792]);
    page.drawText('Statement', { x: 40, y: 700 });
    expect(await guard(await pdf.save())).toBeNull();
    // a page-level shading pattern (type 2) paints once: not counted as tiles
    const shading = tilingPdf({ step: 0.01 });
    const type2 = Buffer.from(shading).toString('latin1').replace('/PatternType 1', '/PatternType 2');
    expect(await guard(new Uint8Array(Buffer.from(type2, 'latin1')))).toBeNull();
  });
});
