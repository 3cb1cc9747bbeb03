import * as zlib from 'zlib';
import { loadMupdf } from './mupdf';
import { DEFAULT_LIMITS, Limits, StatementError } from './types';

export interface DocumentInfo {
  mimeType: string;
  pageCount: number;
  isPdf: boolean;
  producer: string | null;
  creator: string | null;
  creationDate: string | null;
  modDate: string | null;
  /** number of incremental-update sections (1 = none) */
  versions: number;
  repaired: boolean;
  byteLength: number;
}

export interface OpenedDocument {
  info: DocumentInfo;
  // mupdf Document (typed loosely to keep mupdf types out of the public API)
  doc: any;
  close(): void;
}

/** Sniffs the file type from magic bytes. */
export function sniffMimeType(bytes: Uint8Array): string | null {
  const head = Buffer.from(bytes.subarray(0, Math.min(bytes.length, 1024))).toString('latin1');
  if (head.includes('%PDF-')) return 'application/pdf';
  if (bytes[0] === 0x89 && head.startsWith('\x89PNG')) return 'image/png';
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (head.startsWith('II*\x00') || head.startsWith('MM\x00*')) return 'image/tiff';
  return null;
}

const str = (v: string | undefined | null): string | null => (v && v.trim() ? v.trim() : null);

/** Opens a PDF or image, rejecting hostile input with a typed StatementError. */
export async function openDocument(bytes: Uint8Array, limits: Partial<Limits> = {}): Promise<OpenedDocument> {
  const lim = { ...DEFAULT_LIMITS, ...limits };
  if (!bytes || bytes.length === 0) throw new StatementError('blank', 'file is empty (0 bytes)');
  if (bytes.length > lim.maxBytes) throw new StatementError('too_large', `file is ${bytes.length} bytes, limit ${lim.maxBytes}`);
  const mimeType = sniffMimeType(bytes);
  if (!mimeType) throw new StatementError('unsupported_format', 'not a PDF, PNG, JPEG or TIFF file');
  if (mimeType !== 'application/pdf') {
    // an image decodes to width x height pixels whatever its file size (decompression bomb): its
    // size is read from the header first, and an image whose header says nothing is not decoded
    const dims = imageDimensions(bytes);
    if (!dims)
      throw new StatementError('corrupt', `cannot read the pixel size of the ${mimeType.slice(6).toUpperCase()} image from its header`);
    if (dims.width * dims.height > lim.maxImagePixels)
      throw new StatementError('too_large', `image is ${dims.width} x ${dims.height} pixels, limit ${lim.maxImagePixels}`);
  }
  const mupdf = await loadMupdf();
  let doc: any;
  try {
    doc = mupdf.Document.openDocument(bytes, mimeType);
  } catch (e) {
    throw new StatementError('corrupt', `cannot open document: ${(e as Error).message}`);
  }
  const close = () => {
    try {
      doc.destroy?.();
    } catch {
      /* ignore */
    }
  };
  try {
    if (doc.needsPassword()) throw new StatementError('encrypted', 'document is password protected');
    let pageCount: number;
    try {
      pageCount = doc.countPages();
    } catch (e) {
      throw new StatementError('corrupt', `cannot read page tree: ${(e as Error).message}`);
    }
    if (!Number.isFinite(pageCount) || pageCount <= 0) throw new StatementError('blank', 'document has no pages');
    if (pageCount > lim.maxPages) throw new StatementError('too_large', `document has ${pageCount} pages, limit ${lim.maxPages}`);
    const isPdf = mimeType === 'application/pdf' && doc.isPDF();
    let versions = 1;
    let repaired = false;
    if (isPdf) {
      try {
        versions = doc.countVersions();
        repaired = doc.wasRepaired();
      } catch {
        /* ignore */
      }
    }
    const meta = (k: string) => {
      try {
        return str(doc.getMetaData(k));
      } catch {
        return null;
      }
    };
    if (isPdf && repaired) {
      // a repaired file that still opens is accepted; the page loop will reject it if pages are unreadable
    }
    const info: DocumentInfo = {
      mimeType,
      pageCount,
      isPdf,
      producer: isPdf ? meta('info:Producer') : null,
      creator: isPdf ? meta('info:Creator') : null,
      creationDate: isPdf ? meta('info:CreationDate') : null,
      modDate: isPdf ? meta('info:ModDate') : null,
      versions,
      repaired,
      byteLength: bytes.length,
    };
    return { info, doc, close };
  } catch (e) {
    close();
    throw e;
  }
}

/**
 * Pixel dimensions from the header of a PNG, JPEG or TIFF (for a multi-page TIFF, the largest
 * page's); null when the format is none of these or its header cannot be read.
 */
export function imageDimensions(bytes: Uint8Array): { width: number; height: number } | null {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const dims = pngDimensions(b) ?? jpegDimensions(b) ?? tiffDimensions(b);
  return dims && dims.width > 0 && dims.height > 0 ? dims : null;
}

function pngDimensions(b: Buffer): { width: number; height: number } | null {
  if (b.length < 24 || b.readUInt32BE(0) !== 0x89504e47 || b.toString('latin1', 12, 16) !== 'IHDR') return null;
  return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
}

function jpegDimensions(b: Buffer): { width: number; height: number } | null {
  if (b.length < 4 || b[0] !== 0xff || b[1] !== 0xd8) return null;
  let i = 2;
  while (i + 9 < b.length) {
    if (b[i] !== 0xff) return null;
    const marker = b[i + 1];
    if (marker === 0xff) {
      i++;
      continue;
    }
    // SOF0..SOF15 except DHT (c4), JPG (c8), DAC (cc) carry the frame size
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc)
      return { width: b.readUInt16BE(i + 7), height: b.readUInt16BE(i + 5) };
    if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      i += 2;
      continue;
    }
    i += 2 + b.readUInt16BE(i + 2);
  }
  return null;
}

/** Image file directories a TIFF may chain (each is a page); more, or a loop, is not read. */
const MAX_TIFF_IFDS = 10_000;

/**
 * TIFF (either byte order): ImageWidth (256) and ImageLength (257), SHORT or LONG, of every image
 * file directory in the chain; the largest page counts. Null for a directory outside the file, a
 * loop, or a page without both tags.
 */
function tiffDimensions(b: Buffer): { width: number; height: number } | null {
  if (b.length < 8) return null;
  const order = b.toString('latin1', 0, 4);
  if (order !== 'II*\x00' && order !== 'MM\x00*') return null;
  const le = order === 'II*\x00';
  const u16 = (at: number) => (le ? b.readUInt16LE(at) : b.readUInt16BE(at));
  const u32 = (at: number) => (le ? b.readUInt32LE(at) : b.readUInt32BE(at));
  let largest: { width: number; height: number } | null = null;
  const seen = new Set<number>();
  for (let ifd = u32(4); ifd !== 0;) {
    if (seen.has(ifd) || seen.size >= MAX_TIFF_IFDS || ifd + 2 > b.length) return null;
    seen.add(ifd);
    const entries = u16(ifd);
    if (ifd + 2 + entries * 12 + 4 > b.length) return null;
    let width = 0;
    let height = 0;
    for (let e = 0; e < entries; e++) {
      const at = ifd + 2 + e * 12;
      const tag = u16(at);
      if (tag !== 256 && tag !== 257) continue;
      const type = u16(at + 2);
      if (u32(at + 4) !== 1 || (type !== 3 && type !== 4)) return null;
      const value = type === 3 ? u16(at + 8) : u32(at + 8);
      if (tag === 256) width = value;
      else height = value;
    }
    if (width === 0 || height === 0) return null;
    if (!largest || width * height > largest.width * largest.height) largest = { width, height };
    ifd = u32(ifd + 2 + entries * 12);
  }
  return largest;
}

// ---- Page content guard: bounds the work mupdf would do on a page before it does it. ----

class OverLimit extends Error {}

/** Inflates with a hard output cap: zlib stops as soon as the output passes `cap` (no full bomb in memory). */
function inflateCapped(data: Buffer, cap: number): Buffer {
  try {
    return zlib.inflateSync(data, { maxOutputLength: cap + 1, finishFlush: zlib.constants.Z_SYNC_FLUSH });
  } catch (e) {
    if ((e as { code?: string })?.code === 'ERR_BUFFER_TOO_LARGE' || e instanceof RangeError) throw new OverLimit();
    throw e;
  }
}

function asciiHex(data: Buffer): Buffer {
  const hex = data
    .toString('latin1')
    .replace(/[^0-9a-fA-F>]/g, '')
    .split('>')[0];
  return Buffer.from(hex.length % 2 ? `${hex}0` : hex, 'hex');
}

function ascii85(data: Buffer, cap: number): Buffer {
  const s = data.toString('latin1').replace(/\s+/g, '').replace(/^<~/, '').split('~>')[0];
  const out: number[] = [];
  let group: number[] = [];
  const flush = (n: number) => {
    let v = 0;
    for (let k = 0; k < 5; k++) v = v * 85 + (group[k] ?? 84);
    for (let k = 0; k < n; k++) out.push((v >>> (24 - 8 * k)) & 0xff);
    if (out.length > cap) throw new OverLimit();
    group = [];
  };
  for (const ch of s) {
    if (ch === 'z' && group.length === 0) {
      out.push(0, 0, 0, 0);
      if (out.length > cap) throw new OverLimit();
      continue;
    }
    const c = ch.charCodeAt(0) - 33;
    if (c < 0 || c > 84) continue;
    group.push(c);
    if (group.length === 5) flush(4);
  }
  if (group.length > 1) flush(group.length - 1);
  return Buffer.from(out);
}

function runLength(data: Buffer, cap: number): Buffer {
  const out: Buffer[] = [];
  let size = 0;
  for (let i = 0; i < data.length;) {
    const len = data[i++];
    if (len === 128) break;
    const chunk = len < 128 ? data.subarray(i, (i += len + 1)) : Buffer.alloc(257 - len, data[i++] ?? 0);
    size += chunk.length;
    if (size > cap) throw new OverLimit();
    out.push(chunk);
  }
  return Buffer.concat(out);
}

function lzw(data: Buffer, cap: number, earlyChange: number): Buffer {
  const out = Buffer.alloc(Math.min(cap + 1, Math.max(1024, data.length * 8)));
  let buf = out;
  let size = 0;
  const push = (bytes: Buffer | Uint8Array) => {
    if (size + bytes.length > cap) throw new OverLimit();
    if (size + bytes.length > buf.length) {
      const bigger = Buffer.alloc(Math.min(cap + 1, Math.max(buf.length * 2, size + bytes.length)));
      buf.copy(bigger, 0, 0, size);
      buf = bigger;
    }
    buf.set(bytes, size);
    size += bytes.length;
  };
  let table: Buffer[] = [];
  const reset = () => {
    table = [];
    for (let i = 0; i < 256; i++) table.push(Buffer.from([i]));
    table.push(Buffer.alloc(0), Buffer.alloc(0));
  };
  reset();
  let bits = 9;
  let acc = 0;
  let accBits = 0;
  let prev: Buffer | null = null;
  for (let i = 0; i < data.length; i++) {
    acc = ((acc << 8) | data[i]) >>> 0;
    accBits += 8;
    while (accBits >= bits) {
      const code = (acc >>> (accBits - bits)) & ((1 << bits) - 1);
      accBits -= bits;
      acc &= (1 << accBits) - 1;
      if (code === 256) {
        reset();
        bits = 9;
        prev = null;
        continue;
      }
      if (code === 257) return buf.subarray(0, size);
      let entry: Buffer;
      if (code < table.length) entry = table[code];
      else if (prev) entry = Buffer.concat([prev, prev.subarray(0, 1)]);
      else return buf.subarray(0, size);
      push(entry);
      if (prev && table.length < 4096) table.push(Buffer.concat([prev, entry.subarray(0, 1)]));
      prev = entry;
      if (table.length + earlyChange >= 1 << bits && bits < 12) bits++;
    }
  }
  return buf.subarray(0, size);
}

/**
 * Decodes a stream through its whole filter chain with a hard output cap per stage (a chain of
 * FlateDecode filters multiplies the ratio). Null when a filter is one mupdf decodes but this
 * guard does not (images: DCT, JBIG2, CCITT, JPX), so the caller estimates instead.
 */
export function decodeBounded(raw: Uint8Array, filters: string[], cap: number, earlyChange = 1): Buffer | null {
  let data = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  for (const f of filters) {
    if (f === 'FlateDecode' || f === 'Fl') data = inflateCapped(data, cap);
    else if (f === 'ASCIIHexDecode' || f === 'AHx') data = asciiHex(data);
    else if (f === 'ASCII85Decode' || f === 'A85') data = ascii85(data, cap);
    else if (f === 'RunLengthDecode' || f === 'RL') data = runLength(data, cap);
    else if (f === 'LZWDecode' || f === 'LZW') data = lzw(data, cap, earlyChange);
    else return null;
    if (data.length > cap) throw new OverLimit();
  }
  return data;
}

/** `/Name Do` operators in a content stream, by XObject name. */
function xobjectDraws(content: Buffer): Map<string, number> {
  const draws = new Map<string, number>();
  const re = /\/([^\s/<>[\]()%{}]+)\s*Do(?![^\s/<>[\]()%{}])/g;
  const text = content.toString('latin1');
  let m: RegExpExecArray | null;
  while ((m = re.exec(text))) draws.set(m[1], (draws.get(m[1]) ?? 0) + 1);
  return draws;
}

// names, strings, hex strings, comments, numbers and operators of a content stream
const CONTENT_TOKEN =
  /\/([^\s/<>[\]()%{}]*)|\((?:\\[\s\S]|[^\\)])*\)|<[0-9A-Fa-f\s]*>|%[^\r\n]*|([A-Za-z'"][A-Za-z0-9*'"]*)|[-+.\d]+|<<|>>|[[\]{}]/g;
const FILLS = new Set(['f', 'F', 'f*', 'B', 'B*', 'b', 'b*']);
const STROKES = new Set(['S', 's', 'B', 'B*', 'b', 'b*']);
/** Text shows paint with the fill (or, by render mode, the stroke) colour; a form drawn inherits both. */
const BOTH = new Set(['Tj', 'TJ', "'", '"', 'Do']);
const FILL_COLOURS = new Set(['cs', 'sc', 'g', 'rg', 'k']);
const STROKE_COLOURS = new Set(['CS', 'SC', 'G', 'RG', 'K']);

/**
 * Paint operations made with each pattern (by resource name) in a content stream: the colour
 * state (`/P1 scn`, `/P1 SCN`, other colour operators, `q`/`Q`) followed through the stream, and
 * each fill, stroke, text show or form draw counted for the pattern then current. Approximate by
 * design (a string holding an operator's name counts it): it errs towards counting more.
 */
function patternPaints(content: Buffer): Map<string, number> {
  const paints = new Map<string, number>();
  const text = content.toString('latin1');
  if (!/scn/i.test(text)) return paints;
  let fill: string | null = null;
  let stroke: string | null = null;
  const stack: [string | null, string | null][] = [];
  let name: string | null = null;
  const paint = (pattern: string | null) => pattern !== null && paints.set(pattern, (paints.get(pattern) ?? 0) + 1);
  CONTENT_TOKEN.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = CONTENT_TOKEN.exec(text))) {
    if (m[1] !== undefined) {
      name = m[1];
      continue;
    }
    const op = m[2];
    if (op === undefined) continue;
    if (op === 'scn') fill = name;
    else if (op === 'SCN') stroke = name;
    else if (FILL_COLOURS.has(op)) fill = null;
    else if (STROKE_COLOURS.has(op)) stroke = null;
    else if (op === 'q') stack.push([fill, stroke]);
    else if (op === 'Q') [fill, stroke] = stack.pop() ?? [fill, stroke];
    else if (op === 'ID') {
      // inline image data: binary up to EI
      const end = text.slice(CONTENT_TOKEN.lastIndex).search(/\sEI(?![^\s/<>[\]()%{}])/);
      CONTENT_TOKEN.lastIndex = end < 0 ? text.length : CONTENT_TOKEN.lastIndex + end + 3;
    } else {
      if (FILLS.has(op) || BOTH.has(op)) paint(fill);
      if (STROKES.has(op) || (BOTH.has(op) && stroke !== fill)) paint(stroke);
    }
    name = null;
  }
  return paints;
}

type Box = [number, number, number, number];
type Matrix = [number, number, number, number, number, number];

const numbers = (obj: any): number[] => {
  const out: number[] = [];
  if (obj && !obj.isNull() && obj.isArray()) obj.forEach((v: any) => out.push(v.isNumber() ? v.asNumber() : NaN));
  return out;
};

function boxOf(obj: any): Box | null {
  const n = numbers(obj);
  return n.length === 4 && n.every(Number.isFinite)
    ? [Math.min(n[0], n[2]), Math.min(n[1], n[3]), Math.max(n[0], n[2]), Math.max(n[1], n[3])]
    : null;
}

/**
 * Pattern cells a tiling pattern draws to cover `area` (in the space its Matrix maps to): the
 * area taken into pattern space, divided by the steps, plus the partial cells along the edges.
 */
function tilesOver(area: Box, pattern: any): number {
  const m = numbers(pattern.get('Matrix'));
  const [a, b, c, d, e, f]: Matrix = m.length === 6 && m.every(Number.isFinite) ? (m as Matrix) : [1, 0, 0, 1, 0, 0];
  const det = a * d - b * c;
  const xStep = Math.abs(pattern.get('XStep').isNumber() ? pattern.get('XStep').asNumber() : 0);
  const yStep = Math.abs(pattern.get('YStep').isNumber() ? pattern.get('YStep').asNumber() : 0);
  if (!(Math.abs(det) > 0) || !(xStep > 0) || !(yStep > 0)) return Infinity;
  // the inverse of the pattern matrix takes the area's corners into pattern space
  const corners = [
    [area[0], area[1]],
    [area[2], area[1]],
    [area[0], area[3]],
    [area[2], area[3]],
  ].map(([x, y]) => [(d * (x - e) - c * (y - f)) / det, (a * (y - f) - b * (x - e)) / det]);
  const xs = corners.map((p) => p[0]);
  const ys = corners.map((p) => p[1]);
  const across = (Math.max(...xs) - Math.min(...xs)) / xStep + 1;
  const down = (Math.max(...ys) - Math.min(...ys)) / yStep + 1;
  return Math.ceil(across) * Math.ceil(down);
}

const nameList = (obj: any): string[] => {
  const names: string[] = [];
  if (!obj || obj.isNull()) return names;
  if (obj.isArray()) obj.forEach((f: any) => names.push(f.isName() ? f.asName() : '?'));
  else if (obj.isName()) names.push(obj.asName());
  return names;
};

/** What a content stream does that costs: XObject draws by name, paints by pattern name. */
interface Operations {
  draws: Map<string, number>;
  paints: Map<string, number>;
}

/** The work a content causes: XObject draws and tiling-pattern cells, counted through nesting. */
interface Work {
  draws: number;
  tiles: number;
}

/**
 * Bounds the work mupdf would do on a page before it does it (mupdf's calls are synchronous and
 * cannot be interrupted in-process): decodes the content streams and form XObjects through their
 * filter chains with a hard output cap (compression bombs), counts XObject draws through nested
 * forms (a few KB of forms drawing each other 1,000 times per level), counts the cells tiling
 * patterns draw (a 0.01 pt step over a page is billions of cells), bounds form depth and the
 * pixel size of images. The parser pool's time and memory limits are the backstop.
 */
export function guardPageContent(page: any, index: number, limits: Partial<Limits> = {}): { hasImages: boolean } {
  if (typeof page.getObject !== 'function') return { hasImages: true }; // image documents
  const lim = { ...DEFAULT_LIMITS, ...limits };
  const tooLarge = (why: string) => new StatementError('too_large', `page ${index + 1}: ${why}`);
  let total = 0;
  let hasImages = false;
  const decoded = new Map<number, Operations>();
  /** The work one run of a form's or a pattern cell's content causes (they do not depend on where it is drawn). */
  const cost = new Map<number, Work>();
  const active = new Set<number>();
  const checked = (work: Work): Work => {
    if (work.draws > lim.maxFormDraws) throw tooLarge(`more than ${lim.maxFormDraws} XObject draws (nested forms)`);
    if (work.tiles > lim.maxPatternTiles) throw tooLarge(`more than ${lim.maxPatternTiles} tiling pattern cells to draw`);
    return work;
  };

  /** A stream's content through its filters (null when broken), counted against the page's budget. */
  const decode = (obj: any): Buffer | null => {
    const filters = nameList(obj.get('Filter'));
    const parms = obj.get('DecodeParms');
    const early = parms && parms.isDictionary() && parms.get('EarlyChange').isNumber() ? parms.get('EarlyChange').asNumber() : 1;
    const raw: Uint8Array = obj.readRawStream().asUint8Array();
    let content: Buffer | null = null;
    try {
      content = decodeBounded(raw, filters, lim.maxContentBytes - total, early);
    } catch (e) {
      if (e instanceof OverLimit) throw tooLarge(`content inflates beyond ${lim.maxContentBytes} bytes (compression bomb)`);
      content = null; // a broken stream: mupdf repairs or skips it; count its raw size
    }
    total += content ? content.length : raw.length * 4;
    if (total > lim.maxContentBytes) throw tooLarge(`page content is larger than ${lim.maxContentBytes} bytes`);
    return content;
  };
  const operations = (content: Buffer | null): Operations =>
    content ? { draws: xobjectDraws(content), paints: patternPaints(content) } : { draws: new Map(), paints: new Map() };

  /** Decodes a stream once (by object number) and returns its XObject draws and pattern paints. */
  const operationsOf = (obj: any): Operations => {
    const num: number | null = obj.isIndirect() ? obj.asIndirect() : null;
    if (num !== null && decoded.has(num)) return decoded.get(num)!;
    const ops = operations(decode(obj));
    if (num !== null) decoded.set(num, ops);
    return ops;
  };

  /** The work of a form or a pattern cell's content, once per object (a loop through itself is refused). */
  const contentOf = (v: any, resources: any, depth: number, area: Box, what: string): Work => {
    if (depth + 1 > lim.maxFormDepth) throw tooLarge(`${what}s nested deeper than ${lim.maxFormDepth}`);
    const num: number | null = v.isIndirect() ? v.asIndirect() : null;
    if (num !== null && active.has(num)) throw tooLarge(`a ${what} draws itself`);
    if (num !== null && cost.has(num)) return cost.get(num)!;
    if (num !== null) active.add(num);
    const own = v.get('Resources');
    const work = expand(operationsOf(v), own && !own.isNull() ? own : resources, depth + 1, boxOf(v.get('BBox')) ?? area);
    if (num !== null) {
      active.delete(num);
      cost.set(num, work);
    }
    return work;
  };

  /**
   * The work a stream causes: XObject draws counted through nested forms, and the cells of the
   * tiling patterns it paints with (each paint covers at most `area`, the page or the form's
   * BBox, in the stream's space), each cell running the pattern's own content.
   */
  const expand = ({ draws, paints }: Operations, resources: any, depth: number, area: Box): Work => {
    const work: Work = { draws: 0, tiles: 0 };
    if (!draws.size && !paints.size) return work;
    const dict = (key: string) => {
      const d = resources && !resources.isNull() ? resources.get(key) : null;
      return d && !d.isNull() && d.isDictionary() ? d : null;
    };
    const xo = dict('XObject');
    for (const [name, times] of xo ? draws : []) {
      const v = xo.get(name);
      if (!v || !v.isStream()) continue;
      const sub = v.get('Subtype');
      const kind = sub.isName() ? sub.asName() : '';
      let each: Work = { draws: 1, tiles: 0 };
      if (kind === 'Image') {
        hasImages = true;
        const w = v.get('Width');
        const h = v.get('Height');
        if (w.isNumber() && h.isNumber() && w.asNumber() * h.asNumber() > lim.maxImagePixels)
          throw tooLarge(`an image of ${w.asNumber()} x ${h.asNumber()} pixels exceeds ${lim.maxImagePixels}`);
      } else if (kind === 'Form') {
        const inner = contentOf(v, resources, depth, area, 'form XObject');
        each = { draws: 1 + inner.draws, tiles: inner.tiles };
      }
      work.draws += times * each.draws;
      work.tiles += times * each.tiles;
      checked(work);
    }
    const patterns = dict('Pattern');
    for (const [name, times] of patterns ? paints : []) {
      const v = patterns.get(name);
      // shading patterns (type 2) paint once; a tiling pattern (type 1) repeats its cell
      if (!v || !v.isStream() || !v.get('PatternType').isNumber() || v.get('PatternType').asNumber() !== 1) continue;
      const cells = tilesOver(area, v);
      if (cells > lim.maxPatternTiles)
        throw tooLarge(`more than ${lim.maxPatternTiles} tiling pattern cells to draw (XStep/YStep too small for the area)`);
      const cell = contentOf(v, resources, depth, area, 'tiling pattern');
      work.draws += times * cells * cell.draws;
      work.tiles += times * cells * (1 + cell.tiles);
      checked(work);
    }
    return work;
  };

  const po = page.getObject();
  const res = po.get('Resources');
  if (res.isNull()) hasImages = true; // inherited resources: be conservative
  const contents = po.get('Contents');
  const streams: any[] = [];
  if (contents.isArray()) contents.forEach((c: any) => streams.push(c));
  else if (!contents.isNull()) streams.push(contents);
  const bounds: number[] = Array.from(page.getBounds());
  const pageArea: Box = [0, 0, Math.abs(bounds[2] - bounds[0]), Math.abs(bounds[3] - bounds[1])];
  // a page's content streams are one content (a colour set in one applies in the next)
  const parts = streams.filter((c) => c.isStream()).map((c) => decode(c));
  const content = parts.some((c) => c !== null) ? Buffer.concat(parts.flatMap((c) => (c ? [c, Buffer.from('\n')] : []))) : null;
  checked(expand(operations(content), res, 0, pageArea));
  // images listed but not drawn from the page's own content still make OCR worth considering
  const xo = res.isNull() ? null : res.get('XObject');
  if (xo && xo.isDictionary())
    xo.forEach((v: any) => {
      const sub = v.isStream() ? v.get('Subtype') : null;
      if (sub && sub.isName() && sub.asName() === 'Image') hasImages = true;
    });
  return { hasImages };
}
