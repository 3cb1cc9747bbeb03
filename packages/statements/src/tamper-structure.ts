/**
 * Structure checks for edited statements (issue 32): how the fonts of the pages are built, and in
 * which order the pages' content was written. A bank's generator embeds the fonts of every page the
 * same way and names its font resources one way; an editor that writes an amount into a finished page
 * adds a font of its own (often a standard font it does not embed) under a name of its own, and a
 * content stream of its own numbered after everything the generator wrote, on the edited page only.
 * Reads each text page's font resources and content stream numbers (object lookups, no pass over the
 * content; only a stream found appended is drawn alone) and the ink tokens already read. docs/tamper.md.
 */
import type { InkToken } from './tamper-content';
import type { OpenedDocument } from './open';
import type { StatementTransaction, TamperFinding } from './types';
import { inkOf, PageInk } from './ink';
import { loadMupdf, mupdfWasm } from './mupdf';
import { rowLabel } from './tamper-arith';

export interface PageFont {
  /** the resource name on the page (/F1) */
  key: string;
  /** BaseFont without the subset prefix */
  name: string;
  embedded: boolean;
}

const strip = (s: string) => s.replace(/^[A-Z]{6}\+/, '');

/** Font objects already read, by object number, per open document. */
const fontCache = new WeakMap<OpenedDocument, Map<number, Omit<PageFont, 'key'>>>();

/**
 * The fonts a page's own resources list (fonts of form XObjects are not read); null when unreadable.
 * `viaWrappers` reads the dictionary through mupdf's object wrappers, as without the wasm accessors.
 */
export function pageFonts(opened: OpenedDocument, index: number, viaWrappers = false): PageFont[] | null {
  try {
    // the page's object without loading the page (no display list, no annotations)
    const doc = opened.doc as any;
    const po = doc.findPage ? doc.findPage(index) : null;
    if (!po || po.isNull()) return null;
    const res = po.getInheritable ? po.getInheritable('Resources') : po.get('Resources');
    if (!res || res.isNull() || !res.isDictionary()) return null;
    const fd = res.get('Font');
    if (!fd || fd.isNull() || !fd.isDictionary()) return [];
    const out: PageFont[] = [];
    // a generator may list one font object under many names (pdf-lib: a name per text drawn), and the
    // pages share their font objects: each object is read once per document
    let known = fontCache.get(opened);
    if (!known) fontCache.set(opened, (known = new Map()));
    const read = (v: any, keyName: string, num: number | null) => {
      if (!v.isDictionary()) return;
      const sub = v.get('Subtype');
      const subtype = sub?.isName() ? sub.asName() : '';
      const base = v.get('BaseFont');
      const name = strip(base?.isName() ? base.asName() : keyName);
      let desc = v.get('FontDescriptor');
      if (subtype === 'Type0') {
        const d = v.get('DescendantFonts');
        desc = d && d.isArray() && d.length ? d.get(0).get('FontDescriptor') : null;
      }
      const embedded =
        subtype === 'Type3' || (!!desc && desc.isDictionary() && ['FontFile', 'FontFile2', 'FontFile3'].some((k) => !desc.get(k).isNull()));
      if (num !== null) known.set(num, { name, embedded });
      out.push({ key: keyName, name, embedded });
    };
    const w = viaWrappers ? null : mupdfWasm();
    if (w) {
      // the names and object numbers straight from the dictionary: an object wrapper only for a font not read yet
      const n = w._wasm_pdf_dict_len(fd.pointer);
      for (let i = 0; i < n; i++) {
        const val = w._wasm_pdf_dict_get_val(fd.pointer, i);
        if (!val) continue;
        const keyName = w.UTF8ToString(w._wasm_pdf_to_name(w._wasm_pdf_dict_get_key(fd.pointer, i)));
        const num = w._wasm_pdf_is_indirect(val) ? w._wasm_pdf_to_num(val) : null;
        const seen = num !== null ? known.get(num) : undefined;
        if (seen) out.push({ key: keyName, ...seen });
        else read(fd.get(keyName), keyName, num);
      }
      return out;
    }
    fd.forEach((v: any, key: any) => {
      if (!v) return;
      const keyName = String(typeof key === 'string' ? key : (key?.asName?.() ?? key));
      const num: number | null = v.isIndirect?.() ? v.asIndirect() : null;
      const seen = num !== null ? known.get(num) : undefined;
      if (seen) out.push({ key: keyName, ...seen });
      else read(v, keyName, num);
    });
    return out;
  } catch {
    return null;
  }
}

/** Each page's own modification date (/LastModified), null where it has none or the page cannot be read. */
export function pageModDates(opened: OpenedDocument): Array<string | null> {
  const out: Array<string | null> = [];
  const doc = opened.doc as any;
  for (let i = 0; i < opened.info.pageCount; i++) {
    try {
      const po = doc.findPage ? doc.findPage(i) : null;
      const v = po && !po.isNull() ? po.get('LastModified') : null;
      out.push(v && v.isString() ? v.asString() : null);
    } catch {
      out.push(null);
    }
  }
  return out;
}

/** The shape of a resource name: the font's own name as one mark, digits as another (/F1, /F12 -> F#; /Helvetica-Bold-12 -> @-#). */
const keyShape = (f: PageFont) => f.key.split(f.name).join('@').replace(/\d+/g, '#');

const r1 = (n: number) => Math.round(n * 10) / 10;
const boxesOf = (ts: InkToken[]) =>
  ts.map((t): [number, number, number, number] => [r1(t.box[0]), r1(t.box[1]), r1(t.box[2]), r1(t.box[3])]);

/**
 * Fonts embedded on some pages and not on others, and fonts of row amounts that a single page adds
 * (not embedded where the document embeds every other font, or under a resource name unlike every
 * other font's): each named with the amounts it sets.
 */
export function fontFindings(fontsByPage: Map<number, PageFont[]>, money: InkToken[], txs: StatementTransaction[]): TamperFinding[] {
  const out: TamperFinding[] = [];
  const pages = [...fontsByPage.keys()];
  if (!pages.length) return out;
  const amountsIn = (page: number, name: string) =>
    money.filter((t) => t.page === page && t.row !== null && t.glyphs.some((g) => g.font === name));
  /** A font_pages finding on the amounts `ts` of `page` (not empty); `says` ends with how the font came there. */
  const finding = (page: number, ts: InkToken[], says: string): TamperFinding => ({
    kind: 'font_pages',
    category: 'structure',
    severity: 'medium',
    page,
    boxes: boxesOf(ts),
    row: ts[0].row,
    message: `page ${page}: ${says}${rowLabel(txs, ts[0].row)}`,
  });
  const listed = (ts: InkToken[]) =>
    ts
      .map((t) => t.text)
      .slice(0, 3)
      .join(', ');
  const seen = new Set<string>();
  // 1. one font, embedded on some pages and not on others
  const state = new Map<string, { on: Set<number>; off: Set<number> }>();
  for (const [page, fonts] of fontsByPage)
    for (const f of fonts) {
      const s = state.get(f.name) ?? { on: new Set<number>(), off: new Set<number>() };
      (f.embedded ? s.on : s.off).add(page);
      state.set(f.name, s);
    }
  for (const [name, s] of state) {
    // a page listing the font both ways (a subset and the standard font) says nothing of the others
    if (!s.on.size || !s.off.size || [...s.on].some((p) => s.off.has(p))) continue;
    // the fewer pages are the odd ones (on a tie, those without the font program)
    const on = [...s.on];
    const off = [...s.off];
    const odd = off.length <= on.length ? { pages: off, how: 'not embedded' } : { pages: on, how: 'embedded' };
    const rest = odd.how === 'not embedded' ? on : off;
    for (const page of odd.pages) {
      // a page of boilerplate may come from another template: only a font that sets amounts of the rows counts
      const ts = amountsIn(page, name);
      if (!ts.length) continue;
      seen.add(`${page}|${name}`);
      out.push(
        finding(
          page,
          ts,
          `the font ${name} is ${odd.how} here but ${odd.how === 'embedded' ? 'not embedded' : 'embedded'} on page${rest.length > 1 ? 's' : ''} ${rest.slice(0, 5).join(', ')}, and it sets the amount${ts.length > 1 ? 's' : ''} ${listed(ts)}: the page was written by another program`,
        ),
      );
    }
  }
  // 2. a font only one page lists, setting amounts of the rows, that no other font resembles in how it
  // is built (on a document of one page every font is that page's own: not judged)
  const all = [...fontsByPage.values()].flat();
  for (const [page, fonts] of pages.length < 2 ? [] : fontsByPage) {
    for (const f of fonts) {
      if (seen.has(`${page}|${f.name}`)) continue;
      seen.add(`${page}|${f.name}`);
      if (pages.some((p) => p !== page && fontsByPage.get(p)!.some((o) => o.name === f.name))) continue;
      const others = all.filter((o) => o !== f && o.name !== f.name);
      if (others.length < 2) continue;
      const unembedded = !f.embedded && others.every((o) => o.embedded);
      const shapes = new Set(others.map(keyShape));
      const named = shapes.size === 1 && !shapes.has(keyShape(f));
      if (!unembedded && !named) continue;
      const ts = amountsIn(page, f.name);
      if (!ts.length) continue;
      out.push(
        finding(
          page,
          ts,
          `the amount${ts.length > 1 ? 's' : ''} ${listed(ts)} ${ts.length > 1 ? 'are' : 'is'} set in ${f.name}, a font only this page lists${unembedded ? ', and the only one of the document not embedded' : ''}${named ? `, under a resource name (/${f.key}) unlike the document's other fonts (/${others[0].key})` : ''}: as an editor adds to a finished page`,
        ),
      );
    }
  }
  return out;
}

/** A content stream added to a page after the file's pages and their own content were written. */
export interface AppendedStream {
  /** 0-based page index */
  index: number;
  /** its object number */
  num: number;
  /** the page's lowest-numbered content stream: its own */
  own: number;
  /** the highest object number of the pages and their own content streams */
  pagesEnd: number;
}

const objNum = (o: any): number | null => (o && !o.isNull() && o.isIndirect() ? o.asIndirect() : null);

/**
 * Object numbers follow the order a program writes objects. A bank's generator writes every page and
 * its content; an editor that draws on a finished page (pdf-lib: the page's content wrapped in q/Q and
 * a stream of its own after it) writes new streams numbered after all of them. A stream is reported
 * when its page has another, lower-numbered one (its own), when it is numbered above every page
 * object and every page's own stream, when other objects were written between the two (a generator
 * that splits a page's content writes the parts together), and when at most a handful of objects
 * come after it (a generator writes its fonts and the rest after the pages). Object lookups only, no
 * pass over any content.
 */
export function appendedStreams(opened: OpenedDocument): AppendedStream[] {
  try {
    const doc = opened.doc as any;
    if (!doc.findPage) return [];
    const pages: Array<{ index: number; obj: number; nums: number[] }> = [];
    for (let i = 0; i < doc.countPages(); i++) {
      const po = doc.findPage(i);
      const c = po.get('Contents');
      const nums: number[] = [];
      if (c.isArray()) {
        for (let k = 0; k < c.length; k++) {
          const n = objNum(c.get(k));
          if (n !== null) nums.push(n);
        }
      } else if (objNum(c) !== null) nums.push(objNum(c)!);
      pages.push({ index: i, obj: objNum(po) ?? 0, nums });
    }
    let pagesEnd = 0;
    for (const p of pages) pagesEnd = Math.max(pagesEnd, p.obj, p.nums.length ? Math.min(...p.nums) : 0);
    const count: number = doc.countObjects();
    const out: AppendedStream[] = [];
    for (const p of pages) {
      if (p.nums.length < 2) continue;
      const own = Math.min(...p.nums);
      for (const num of p.nums) {
        if (num <= pagesEnd) continue;
        // written apart from the page's own content (a generator writes a page's parts together)
        if (num - own - 1 - p.nums.filter((x) => x > own && x < num).length < 1) continue;
        if (objectsAfter(doc, num, count, p.nums) <= AFTER_APPENDED) out.push({ index: p.index, num, own, pagesEnd });
      }
    }
    return out;
  } catch {
    return [];
  }
}

/**
 * Objects an editor writes after its stream (its font, the q/Q streams it wraps the page's content
 * in): at most this many others may follow an appended stream. A generator writes its fonts, images
 * and the rest of the document after a page's content, many more than this.
 */
const AFTER_APPENDED = 6;

/**
 * Objects numbered after `num` that are not streams of the same page, nor the object and
 * cross-reference streams a writer packs the file into (pdf-lib packs every object anew); counted up
 * to one more than AFTER_APPENDED.
 */
function objectsAfter(doc: any, num: number, count: number, pageStreams: number[]): number {
  let n = 0;
  for (let k = num + 1; k < count && n <= AFTER_APPENDED; k++) {
    if (pageStreams.includes(k)) continue;
    const o = doc.newIndirect(k, 0).resolve();
    if (o.isNull()) continue;
    const type = o.isDictionary() || o.isStream() ? o.get('Type') : null;
    const name = type?.isName() ? type.asName() : '';
    if (name === 'ObjStm' || name === 'XRef') continue;
    n++;
  }
  return n;
}

/** The ink of one appended stream alone: drawn on a page of its own with the page's resources, box and rotation. */
export async function appendedInk(opened: OpenedDocument, a: AppendedStream): Promise<PageInk | null> {
  const mupdf = await loadMupdf();
  const src = opened.doc as any;
  const po = src.findPage(a.index);
  let stream: any = null;
  const c = po.get('Contents');
  if (c.isArray()) {
    for (let k = 0; k < c.length && !stream; k++) if (objNum(c.get(k)) === a.num) stream = c.get(k);
  } else stream = c;
  if (!stream || !stream.isStream()) return null;
  const out = new mupdf.PDFDocument();
  try {
    const box = (name: string) => {
      const b = po.getInheritable(name);
      return b && b.isArray() && b.length === 4 ? [0, 1, 2, 3].map((k) => b.get(k).asNumber()) : null;
    };
    const media = box('MediaBox') ?? [0, 0, 612, 792];
    const rot = po.getInheritable('Rotate');
    const rotate = rot && rot.isNumber() ? rot.asNumber() : 0;
    const res = po.getInheritable('Resources');
    const page = out.addPage(
      media as [number, number, number, number],
      rotate,
      res && !res.isNull() ? out.graftObject(res) : out.newDictionary(),
      stream.readStream(),
    );
    const crop = box('CropBox');
    if (crop) page.put('CropBox', crop);
    out.insertPage(-1, page);
    const loaded = out.loadPage(0);
    try {
      return inkOf(mupdf, loaded, a.index, loaded.getBounds() as number[]);
    } finally {
      loaded.destroy?.();
    }
  } catch {
    return null;
  } finally {
    out.destroy?.();
  }
}

/**
 * draw_order findings (structure) for the amounts of the rows an appended stream draws: `drawn` are
 * the stream's own money tokens already matched to the page's visible amounts (not empty).
 */
export function appendedFinding(a: AppendedStream, drawn: InkToken[], txs: StatementTransaction[]): TamperFinding {
  const page = a.index + 1;
  const texts = drawn.map((t) => t.text).slice(0, 3);
  return {
    kind: 'draw_order',
    category: 'structure',
    severity: 'medium',
    page,
    boxes: boxesOf(drawn),
    row: drawn[0].row,
    message: `page ${page}: the amount${drawn.length > 1 ? 's' : ''} ${texts.join(', ')}${drawn.length > 3 ? ` and ${drawn.length - 3} more` : ''} ${drawn.length > 1 ? 'are' : 'is'} drawn by a content stream added to the page after the file's pages were written (object ${a.num}; the page's own content is object ${a.own}, and the pages and their own content end at object ${a.pagesEnd}): as an editor draws on a finished page${rowLabel(txs, drawn[0].row)}`,
  };
}
