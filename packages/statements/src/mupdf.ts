/** The only place that loads mupdf (AGPL, ESM with top-level await): keep it behind this port. */
export type Mupdf = typeof import('mupdf');

let loading: Promise<Mupdf> | null = null;
let loaded: Mupdf | null = null;

/** Recent mupdf warnings (kept short; mupdf would otherwise print them to stderr). */
export const mupdfMessages: string[] = [];

/**
 * The exports of mupdf's wasm module that the hot readers call (the structured text and the glyphs
 * in extract.ts and ink.ts, page font dictionaries in tamper-structure.ts). mupdf.js
 * passes `globalThis.$libmupdf_wasm_Module` to its Emscripten module as the module object, which
 * the module fills with its exports: handing it an empty object before the first import gives
 * this package the exported `_wasm_*` functions and the heap views, besides the class API.
 */
export interface MupdfWasm {
  HEAPF32: Float32Array;
  HEAP32: Int32Array;
  UTF8ToString(ptr: number): string;
  _wasm_stext_page_get_first_block(page: number): number;
  _wasm_stext_block_get_type(block: number): number;
  _wasm_stext_block_get_bbox(block: number): number;
  _wasm_stext_block_get_first_line(block: number): number;
  _wasm_stext_block_get_next(block: number): number;
  _wasm_stext_line_get_bbox(line: number): number;
  _wasm_stext_line_get_first_char(line: number): number;
  _wasm_stext_line_get_next(line: number): number;
  _wasm_stext_char_get_c(ch: number): number;
  _wasm_stext_char_get_origin(ch: number): number;
  _wasm_stext_char_get_font(ch: number): number;
  _wasm_stext_char_get_size(ch: number): number;
  _wasm_stext_char_get_next(ch: number): number;
  _wasm_font_get_name(font: number): number;
  _wasm_font_is_bold(font: number): number;
  _wasm_advance_glyph(font: number, gid: number, wmode: number): number;
  _wasm_pdf_dict_len(dict: number): number;
  _wasm_pdf_dict_get_key(dict: number, i: number): number;
  _wasm_pdf_dict_get_val(dict: number, i: number): number;
  _wasm_pdf_to_name(obj: number): number;
  _wasm_pdf_is_indirect(obj: number): number;
  _wasm_pdf_to_num(obj: number): number;
}

const WASM_ACCESSORS = [
  '_wasm_stext_page_get_first_block',
  '_wasm_stext_block_get_type',
  '_wasm_stext_block_get_bbox',
  '_wasm_stext_block_get_first_line',
  '_wasm_stext_block_get_next',
  '_wasm_stext_line_get_bbox',
  '_wasm_stext_line_get_first_char',
  '_wasm_stext_line_get_next',
  '_wasm_stext_char_get_c',
  '_wasm_stext_char_get_origin',
  '_wasm_stext_char_get_font',
  '_wasm_stext_char_get_size',
  '_wasm_stext_char_get_next',
  '_wasm_font_get_name',
  '_wasm_font_is_bold',
  '_wasm_advance_glyph',
  '_wasm_pdf_dict_len',
  '_wasm_pdf_dict_get_key',
  '_wasm_pdf_dict_get_val',
  '_wasm_pdf_to_name',
  '_wasm_pdf_is_indirect',
  '_wasm_pdf_to_num',
] as const;

let wasm: MupdfWasm | null = null;

/**
 * The wasm accessors, or null when they are not there (mupdf was first imported elsewhere in this
 * process, or a release renamed them): the callers then use the class API's slower path.
 */
export function mupdfWasm(): MupdfWasm | null {
  return wasm;
}

export function loadMupdf(): Promise<Mupdf> {
  if (!loading) {
    const g = globalThis as { $libmupdf_wasm_Module?: Record<string, unknown> };
    const module: Record<string, unknown> = g.$libmupdf_wasm_Module ?? {};
    g.$libmupdf_wasm_Module = module;
    loading = import('mupdf').then((m) => {
      if (
        WASM_ACCESSORS.every((k) => typeof module[k] === 'function') &&
        typeof module.UTF8ToString === 'function' &&
        module.HEAPF32 instanceof Float32Array &&
        module.HEAP32 instanceof Int32Array
      )
        wasm = module as unknown as MupdfWasm;
      const log = (msg: string) => {
        // A debugging switch of this library (no server configuration reaches this deep).
        // eslint-disable-next-line no-restricted-properties
        if (process.env.LEDGERLENS_MUPDF_LOG) process.stderr.write(`mupdf: ${msg}\n`);
        mupdfMessages.push(msg);
        if (mupdfMessages.length > 50) mupdfMessages.shift();
      };
      try {
        m.setLog({ error: log, warning: log });
      } catch {
        /* older builds */
      }
      loaded = m;
      return m;
    });
  }
  return loading;
}

/** mupdf once loaded (an opened document means it is): for the synchronous readers of a page. */
export function loadedMupdf(): Mupdf {
  if (!loaded) throw new Error('mupdf is not loaded yet');
  return loaded;
}

/** Releases cached fonts/images after a document (keeps a long-running worker's memory flat). */
export function releaseMupdfCaches(): void {
  try {
    loaded?.emptyStore();
  } catch {
    /* ignore */
  }
}

/**
 * Byte offsets of mupdf's text object (fz_text: its spans; each span: font, matrix, glyph count,
 * glyph items and the next span; each item: origin, glyph id and Unicode value). Reading them from
 * the wasm heap replaces Text.walk, which calls back into JavaScript once per glyph with freshly
 * allocated arguments: the cost that dominated the glyph pass of the content tamper checks.
 */
export interface TextLayout {
  head: number;
  font: number;
  trm: number;
  len: number;
  items: number;
  next: number;
  stride: number;
  x: number;
  y: number;
  gid: number;
  ucs: number;
}

/**
 * Candidate layouts: an item of origin, glyph id and Unicode value (older releases), then with an
 * advance and a CID as well (the 1.28 release pinned here reads with the second).
 */
const TEXT_LAYOUTS: TextLayout[] = [
  { head: 4, font: 0, trm: 4, len: 32, items: 40, next: 44, stride: 16, x: 0, y: 4, gid: 8, ucs: 12 },
  { head: 4, font: 0, trm: 4, len: 32, items: 40, next: 44, stride: 24, x: 0, y: 4, gid: 12, ucs: 16 },
  { head: 4, font: 0, trm: 4, len: 32, items: 40, next: 44, stride: 20, x: 0, y: 4, gid: 8, ucs: 12 },
];

/**
 * Glyphs of one text object as Text.walk reports them (font pointer, glyph matrix, glyph id,
 * Unicode value), held in reused typed arrays: no object per glyph.
 */
export class GlyphBuffer {
  n = 0;
  font = new Int32Array(256);
  gid = new Int32Array(256);
  ucs = new Int32Array(256);
  /** a b c d e f of each glyph's matrix */
  trm = new Float64Array(256 * 6);

  push(font: number, a: number, b: number, c: number, d: number, e: number, f: number, gid: number, ucs: number): void {
    const i = this.n++;
    if (i === this.font.length) this.grow();
    this.font[i] = font;
    this.gid[i] = gid;
    this.ucs[i] = ucs;
    const t = i * 6;
    this.trm[t] = a;
    this.trm[t + 1] = b;
    this.trm[t + 2] = c;
    this.trm[t + 3] = d;
    this.trm[t + 4] = e;
    this.trm[t + 5] = f;
  }

  private grow(): void {
    const more = <T extends Int32Array | Float64Array>(old: T, size: number): T => {
      const next = new (old.constructor as new (n: number) => T)(size);
      next.set(old);
      return next;
    };
    const size = this.font.length * 2;
    this.font = more(this.font, size);
    this.gid = more(this.gid, size);
    this.ucs = more(this.ucs, size);
    this.trm = more(this.trm, size * 6);
  }
}

/**
 * Reads the glyphs of the text object at `text` from the heap with `layout` into `out` (emptied
 * first), at most `max` of them (and as many spans: a bound on a hostile file, and on a layout
 * tried by the probe that does not fit). Returns true when the text held more than it read.
 */
export function heapGlyphs(w: MupdfWasm, layout: TextLayout, text: number, out: GlyphBuffer, max: number): boolean {
  out.n = 0;
  const i32 = w.HEAP32;
  const f32 = w.HEAPF32;
  let spans = 0;
  for (let span = i32[(text + layout.head) >> 2]; span; span = i32[(span + layout.next) >> 2]) {
    if (++spans > max) return true;
    const font = i32[(span + layout.font) >> 2];
    const t = (span + layout.trm) >> 2;
    const len = i32[(span + layout.len) >> 2];
    const items = i32[(span + layout.items) >> 2];
    for (let i = 0; i < len; i++) {
      if (out.n >= max) return true;
      const it = items + i * layout.stride;
      out.push(
        font,
        f32[t],
        f32[t + 1],
        f32[t + 2],
        f32[t + 3],
        f32[(it + layout.x) >> 2],
        f32[(it + layout.y) >> 2],
        i32[(it + layout.gid) >> 2],
        i32[(it + layout.ucs) >> 2],
      );
    }
  }
  return false;
}

/** The same glyphs through the class API (one JavaScript call per glyph), at most `max` kept. */
export function walkedGlyphs(text: { walk(walker: unknown): void }, out: GlyphBuffer, max: number): boolean {
  out.n = 0;
  let cut = false;
  text.walk({
    showGlyph(font: { pointer: number }, trm: number[], gid: number, uni: number) {
      if (out.n >= max) cut = true;
      else out.push(font.pointer, trm[0], trm[1], trm[2], trm[3], trm[4], trm[5], gid, uni);
    },
  });
  return cut;
}

let textLayout: TextLayout | null | undefined;

/**
 * The text layout of the loaded mupdf, found by writing a probe text through the class API and
 * comparing what Text.walk reports with each known layout read from the heap; null when none
 * matches (another release): the callers then walk the text.
 */
export function mupdfTextLayout(): TextLayout | null {
  if (textLayout !== undefined) return textLayout;
  textLayout = null;
  const w = wasm;
  if (!w || !loaded) return null;
  const m = loaded;
  const fonts = [new m.Font('Times-Roman'), new m.Font('Courier')];
  const text = new m.Text();
  try {
    const probe: Array<[number, number[], number, number]> = [
      [0, [10.5, 0.25, -0.5, 11.75, 100.5, 200.25], 37, 65],
      [0, [10.5, 0.25, -0.5, 11.75, 111.5, 201.25], 38, 0x20ac],
      [1, [9, 0, 0, 9, 300.5, 400.75], 40, 49],
      [0, [-7, 0, 0, 7, 20.25, 30.5], 41, 50],
    ];
    for (const [f, trm, gid, uni] of probe) text.showGlyph(fonts[f], trm as any, gid, uni);
    const walked = new GlyphBuffer();
    walkedGlyphs(text, walked, probe.length + 1);
    if (walked.n !== probe.length) return null;
    const read = new GlyphBuffer();
    const same = (): boolean => {
      if (read.n !== walked.n) return false;
      for (let i = 0; i < read.n; i++)
        if (read.font[i] !== walked.font[i] || read.gid[i] !== walked.gid[i] || read.ucs[i] !== walked.ucs[i]) return false;
      return read.trm.every((v, i) => v === walked.trm[i]);
    };
    for (const layout of TEXT_LAYOUTS) {
      heapGlyphs(w, layout, text.pointer, read, probe.length + 1);
      if (same()) return (textLayout = layout);
    }
    return null;
  } catch {
    return null;
  } finally {
    text.destroy();
    for (const f of fonts) f.destroy();
  }
}
