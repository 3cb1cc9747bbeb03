/**
 * The hostile-file corpus: files an attacker or a careless client uploads. Each is small on disk
 * and built in well under a second, deterministically from a seed. `expect` is what the
 * pipeline must end with (`failed` with an error code, `completed`, or a rejection at upload).
 * usage: node tools/dist/corpus/hostile.js [--seed N] [--out DIR] [--limit BYTES]
 */
import * as fs from 'fs';
import * as path from 'path';
import * as zlib from 'zlib';
import { makeStatement } from './corpus';
import { LAYOUTS } from './layouts';
import { hostileFiles } from './others';
import { Rng } from './rng';

export type HostileExpectation =
  | { kind: 'failed'; codes: string[] }
  | { kind: 'completed' }
  /** read by OCR: completed, or failed `no_text` when OCR reads nothing in its time on a loaded machine */
  | { kind: 'completed_or_failed'; codes: string[] }
  | { kind: 'rejected'; status: number };

export interface HostileFile {
  name: string;
  filename: string;
  bytes: Uint8Array;
  expect: HostileExpectation;
}

/** A PDF from numbered object bodies (`n 0 obj ... endobj`), with a correct xref table. */
export function rawPdf(objects: Array<string | Buffer>): Uint8Array {
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  let size = parts[0].length;
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(size);
    const body = Buffer.concat([
      Buffer.from(`${i + 1} 0 obj\n`, 'latin1'),
      typeof o === 'string' ? Buffer.from(o, 'latin1') : o,
      Buffer.from('\nendobj\n', 'latin1'),
    ]);
    parts.push(body);
    size += body.length;
  });
  const xref = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  parts.push(Buffer.from(`${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${size}\n%%EOF\n`, 'latin1'));
  return new Uint8Array(Buffer.concat(parts));
}

const stream = (dict: string, data: Buffer) =>
  Buffer.concat([Buffer.from(`<< ${dict} /Length ${data.length} >>\nstream\n`, 'latin1'), data, Buffer.from('\nendstream', 'latin1')]);

/**
 * A zlib stream that inflates to `bytes` bytes of `fill`, built without compressing them: one
 * full-flushed deflate block sequence (independent of what precedes it) repeated.
 */
export function zlibOf(bytes: number, fill = 0x20): Buffer {
  const chunk = 1 << 20;
  const deflater = zlib.deflateRawSync(Buffer.alloc(chunk, fill), { level: 9, finishFlush: zlib.constants.Z_FULL_FLUSH });
  const n = Math.ceil(bytes / chunk);
  const blocks = Buffer.alloc(deflater.length * n);
  for (let i = 0; i < n; i++) deflater.copy(blocks, i * deflater.length);
  // header, blocks, an empty final stored block, and a checksum the guard never reaches
  return Buffer.concat([Buffer.from([0x78, 0xda]), blocks, Buffer.from([0x01, 0x00, 0x00, 0xff, 0xff]), Buffer.alloc(4)]);
}

/** Five levels of form XObjects, each drawing the next 1,000 times (1e15 draws from ~40 KB). */
export function nestedXObjects(levels = 5, draws = 1000): Uint8Array {
  // objects: 1 catalog, 2 pages, 3 page, 4.. forms (4 = level 1)
  const objs: Array<string | Buffer> = ['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Count 1 /Kids [3 0 R] >>'];
  const content = Buffer.from('BT /F1 12 Tf 72 720 Td (Statement of account) Tj ET\nq /X Do Q\n', 'latin1');
  objs.push(
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents ${4 + levels} 0 R /Resources << /XObject << /X 4 0 R >> /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >> >>`,
  );
  for (let l = 0; l < levels; l++) {
    const last = l === levels - 1;
    const body = last
      ? Buffer.from('0 0 1 1 re f\n', 'latin1')
      : zlib.deflateSync(Buffer.from('q 1 0 0 1 0.001 0 cm /X Do Q\n'.repeat(draws), 'latin1'));
    const res = last ? '' : `/Resources << /XObject << /X ${5 + l} 0 R >> >>`;
    objs.push(stream(`/Type /XObject /Subtype /Form /BBox [0 0 612 792] ${res}${last ? '' : ' /Filter /FlateDecode'}`, body));
  }
  objs.push(stream('', content));
  return rawPdf(objs);
}

/** A page whose content stream is `/Filter [/FlateDecode /FlateDecode]`, inflating to `bytes` (4 GiB). */
export function multiFilterBomb(bytes = 4 * 1024 ** 3): Uint8Array {
  const twice = zlib.deflateSync(zlibOf(bytes), { level: 9 });
  return rawPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Count 1 /Kids [3 0 R] >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << >> >>',
    stream('/Filter [/FlateDecode /FlateDecode]', twice),
  ]);
}

/** A page drawing a 100,000 x 100,000 image whose compressed data is a few bytes. */
export function pdfImageBomb(): Uint8Array {
  return rawPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Count 1 /Kids [3 0 R] >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /XObject << /Im 5 0 R >> >> >>',
    stream('', Buffer.from('q 612 0 0 792 0 0 cm /Im Do Q\n', 'latin1')),
    stream(
      '/Type /XObject /Subtype /Image /Width 100000 /Height 100000 /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode',
      zlib.deflateSync(Buffer.alloc(1024)),
    ),
  ]);
}

const crc32 = (buf: Buffer) => zlib.crc32(buf);

/** A PNG declaring 20,000 x 20,000 pixels (400 MB decoded) in about 400 KB. */
export function pngBomb(side = 20_000): Uint8Array {
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(td) >>> 0);
    return Buffer.concat([len, td, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(side, 0);
  ihdr.writeUInt32BE(side, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 0; // grayscale
  return new Uint8Array(
    Buffer.concat([
      Buffer.from('\x89PNG\r\n\x1a\n', 'latin1'),
      chunk('IHDR', ihdr),
      chunk('IDAT', zlibOf((side + 1) * side, 0)),
      chunk('IEND', Buffer.alloc(0)),
    ]),
  );
}

/** Pads a PDF with a trailing comment to exactly `size` bytes (readers ignore bytes after %%EOF). */
export function padTo(pdf: Uint8Array, size: number): Uint8Array {
  if (pdf.length + 3 > size) throw new Error(`cannot pad ${pdf.length} bytes to ${size}`);
  const pad = Buffer.alloc(size - pdf.length, 0x20);
  pad[0] = 0x25; // '%'
  pad[pad.length - 1] = 0x0a;
  return new Uint8Array(Buffer.concat([Buffer.from(pdf), pad]));
}

/** The whole corpus for an upload limit of `limitBytes` (the limit and limit+1 files). */
export async function hostileCorpus(seed: number, limitBytes: number): Promise<HostileFile[]> {
  const r = new Rng(seed);
  const good = await makeStatement(LAYOUTS[0], seed, 20);
  const out: HostileFile[] = [];
  const add = (name: string, bytes: Uint8Array, expect: HostileExpectation, filename = `${name}.pdf`) =>
    out.push({ name, filename, bytes, expect });
  add('nested_xobjects', nestedXObjects(), { kind: 'failed', codes: ['too_large'] });
  add('multi_filter_bomb', multiFilterBomb(), { kind: 'failed', codes: ['too_large'] });
  add('pdf_image_bomb', pdfImageBomb(), { kind: 'failed', codes: ['too_large'] });
  add('png_bomb', pngBomb(), { kind: 'failed', codes: ['too_large'] }, 'png_bomb.png');
  // the statements corpus's hostile files: flate bomb, page tree lie, 5,000 pages, encrypted, ...
  for (const h of await hostileFiles(r, good.bytes)) {
    if (h.name === 'empty') add('zero_bytes', h.bytes, { kind: 'rejected', status: 422 });
    else if (h.name === 'not_a_pdf') add('csv_named_pdf', h.bytes, { kind: 'rejected', status: 415 });
    else
      add(h.name, h.bytes, {
        kind: 'failed',
        codes: [h.expectError, 'corrupt', 'blank', 'too_large'].filter((c, i, a) => a.indexOf(c) === i),
      });
  }
  // mupdf repairs what survives: a statement without its second half still reads (no rows)
  add('truncated', good.bytes.subarray(0, Math.floor(good.bytes.length / 2)), { kind: 'completed' });
  const mupdf = await import('mupdf');
  const doc = mupdf.Document.openDocument(good.bytes, 'application/pdf');
  const jpeg = doc
    .loadPage(0)
    .toPixmap(mupdf.Matrix.scale(150 / 72, 150 / 72), mupdf.ColorSpace.DeviceRGB, false, true)
    .asJPEG(80);
  add('jpeg_named_pdf', jpeg, { kind: 'completed_or_failed', codes: ['no_text'] });
  add('limit_bytes', padTo(good.bytes, limitBytes), { kind: 'completed' });
  add('limit_plus_one_bytes', padTo(good.bytes, limitBytes + 1), { kind: 'rejected', status: 413 });
  return out;
}

async function main() {
  const args = process.argv.slice(2);
  const get = (k: string) => (args.indexOf(k) >= 0 ? args[args.indexOf(k) + 1] : undefined);
  const out = path.resolve(get('--out') ?? path.join(__dirname, '..', '..', 'corpus', 'out', 'hostile'));
  fs.mkdirSync(out, { recursive: true });
  const files = await hostileCorpus(Number(get('--seed') ?? 1), Number(get('--limit') ?? 25 * 1024 * 1024));
  for (const f of files) fs.writeFileSync(path.join(out, f.filename), f.bytes);
  console.log(`wrote ${files.length} hostile files to ${out}`);
}

if (require.main === module)
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
