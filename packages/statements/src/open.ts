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
  const dims = mimeType === 'application/pdf' ? null : imageDimensions(bytes);
  // an image decodes to width x height pixels whatever its file size (decompression bomb)
  if (dims && dims.width * dims.height > lim.maxImagePixels)
    throw new StatementError('too_large', `image is ${dims.width} x ${dims.height} pixels, limit ${lim.maxImagePixels}`);
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

/** Pixel dimensions from a PNG or JPEG header (null for other formats or a header it cannot read). */
export function imageDimensions(bytes: Uint8Array): { width: number; height: number } | null {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (b.length >= 24 && b.readUInt32BE(0) === 0x89504e47) return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
  if (b.length >= 4 && b[0] === 0xff && b[1] === 0xd8) {
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
  }
  return null;
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

const nameList = (obj: any): string[] => {
  const names: string[] = [];
  if (!obj || obj.isNull()) return names;
  if (obj.isArray()) obj.forEach((f: any) => names.push(f.isName() ? f.asName() : '?'));
  else if (obj.isName()) names.push(obj.asName());
  return names;
};

/**
 * Bounds the work mupdf would do on a page before it does it (mupdf's calls are synchronous and
 * cannot be interrupted in-process): decodes the content streams and form XObjects through their
 * filter chains with a hard output cap (compression bombs), counts XObject draws through nested
 * forms (a few KB of forms drawing each other 1,000 times per level), bounds form depth and the
 * pixel size of images. The parser pool's time and memory limits are the backstop.
 */
export function guardPageContent(page: any, index: number, limits: Partial<Limits> = {}): { hasImages: boolean } {
  if (typeof page.getObject !== 'function') return { hasImages: true }; // image documents
  const lim = { ...DEFAULT_LIMITS, ...limits };
  const tooLarge = (why: string) => new StatementError('too_large', `page ${index + 1}: ${why}`);
  let total = 0;
  let hasImages = false;
  const decoded = new Map<number, Map<string, number>>();
  const cost = new Map<number, number>();
  const active = new Set<number>();

  /** Decodes a stream once (by object number) and returns its XObject draws. */
  const drawsOf = (obj: any): Map<string, number> => {
    const num: number | null = obj.isIndirect() ? obj.asIndirect() : null;
    if (num !== null && decoded.has(num)) return decoded.get(num)!;
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
    const draws = content ? xobjectDraws(content) : new Map<string, number>();
    if (num !== null) decoded.set(num, draws);
    return draws;
  };

  /** XObject draws a stream causes, counted through its nested forms. */
  const expand = (stream: any, resources: any, depth: number): number => {
    const draws = drawsOf(stream);
    if (!draws.size) return 0;
    const xo = resources && !resources.isNull() ? resources.get('XObject') : null;
    if (!xo || xo.isNull() || !xo.isDictionary()) return 0;
    let n = 0;
    for (const [name, times] of draws) {
      const v = xo.get(name);
      if (!v || !v.isStream()) continue;
      const sub = v.get('Subtype');
      const kind = sub.isName() ? sub.asName() : '';
      let each = 1;
      if (kind === 'Image') {
        hasImages = true;
        const w = v.get('Width');
        const h = v.get('Height');
        if (w.isNumber() && h.isNumber() && w.asNumber() * h.asNumber() > lim.maxImagePixels)
          throw tooLarge(`an image of ${w.asNumber()} x ${h.asNumber()} pixels exceeds ${lim.maxImagePixels}`);
      } else if (kind === 'Form') {
        if (depth + 1 > lim.maxFormDepth) throw tooLarge(`form XObjects nested deeper than ${lim.maxFormDepth}`);
        const num: number | null = v.isIndirect() ? v.asIndirect() : null;
        if (num !== null && active.has(num)) throw tooLarge('a form XObject draws itself');
        if (num !== null && cost.has(num)) each = cost.get(num)!;
        else {
          if (num !== null) active.add(num);
          const own = v.get('Resources');
          each = 1 + expand(v, own && !own.isNull() ? own : resources, depth + 1);
          if (num !== null) {
            active.delete(num);
            cost.set(num, each);
          }
        }
      }
      n += times * each;
      if (n > lim.maxFormDraws) throw tooLarge(`more than ${lim.maxFormDraws} XObject draws (nested forms)`);
    }
    return n;
  };

  const po = page.getObject();
  const res = po.get('Resources');
  if (res.isNull()) hasImages = true; // inherited resources: be conservative
  const contents = po.get('Contents');
  const streams: any[] = [];
  if (contents.isArray()) contents.forEach((c: any) => streams.push(c));
  else if (!contents.isNull()) streams.push(contents);
  let draws = 0;
  for (const s of streams) {
    if (!s.isStream()) continue;
    draws += expand(s, res, 0);
    if (draws > lim.maxFormDraws) throw tooLarge(`more than ${lim.maxFormDraws} XObject draws (nested forms)`);
  }
  // images listed but not drawn from the page's own content still make OCR worth considering
  const xo = res.isNull() ? null : res.get('XObject');
  if (xo && xo.isDictionary())
    xo.forEach((v: any) => {
      const sub = v.isStream() ? v.get('Subtype') : null;
      if (sub && sub.isName() && sub.asName() === 'Image') hasImages = true;
    });
  return { hasImages };
}
