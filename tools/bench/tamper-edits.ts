/**
 * Edits a fraudster makes to a real statement, made with the same tools (pdf-lib and mupdf), for the
 * tamper benchmark (tamper.ts) and its seeded test. Each edit keeps the file's metadata (pdf-lib loads
 * with updateMetadata: false and writes a whole new file, no incremental update), so whatever is
 * caught is caught from the content. docs/tamper.md describes the kinds.
 */
import { PDFDocument, PDFFont, PDFPage, rgb, StandardFonts } from 'pdf-lib';
import { extractPageText, InkToken, isMoney, openDocument, ParseResult, readPageInk, tokensOf } from '@ledgerlens/statements';
import { Rng } from '../corpus/rng';

export const EDIT_KINDS = [
  'font_swap',
  'size_change',
  'position_shift',
  'white_box',
  'balance_chain',
  'row_delete',
  'mupdf_redact_redraw',
  'stream_digit_swap',
  'summary_balance',
  'summary_stream_swap',
] as const;
export type EditKind = (typeof EDIT_KINDS)[number];

export type Box = [number, number, number, number];

export interface Edit {
  kind: EditKind;
  bytes: Uint8Array;
  /** 1-based page of the edited row */
  page: number;
  /** index (in the original reading) of the edited row; -1 when no row was edited (the summary) */
  row: number;
  /** boxes (top-left PDF points) of what was changed on `page`: a finding naming the row overlaps one */
  boxes: Box[];
  note: string;
}

/** Money text with a new value, written the way the original was ("$1,234.56", "1234.56-", "(12.00)"). */
export function reformat(orig: string, value: number, docSeparator = ''): string {
  const m = /\d[\d,.' ]*[.,]\d{2}/.exec(orig);
  if (!m) return value.toFixed(2);
  const num = m[0];
  const dec = num[num.length - 3];
  const thou = /\d([,.' ])\d{3}/.exec(num.slice(0, -3))?.[1] ?? docSeparator;
  const [int, frac] = Math.abs(value).toFixed(2).split('.');
  const grouped = thou ? int.replace(/\B(?=(\d{3})+(?!\d))/g, thou) : int;
  return orig.slice(0, m.index) + grouped + dec + frac + orig.slice(m.index + num.length);
}

const valueOf = (s: string) => {
  const m = /\d[\d,.' ]*[.,]\d{2}/.exec(s);
  if (!m) return NaN;
  return Number(m[0].slice(0, -3).replace(/[^\d]/g, '') + '.' + m[0].slice(-2));
};

export interface EditContext {
  original: Uint8Array;
  parsed: ParseResult;
  /** visible money tokens per 1-based page */
  money: Map<number, InkToken[]>;
  rotated: Set<number>;
  /** the thousands separator the document's amounts use ('' when none is printed) */
  separator: string;
}

async function context(original: Uint8Array, parsed: ParseResult): Promise<EditContext> {
  const opened = await openDocument(original);
  const money = new Map<number, InkToken[]>();
  const rotated = new Set<number>();
  try {
    for (let i = 0; i < opened.info.pageCount; i++) {
      const ink = await readPageInk(opened, i);
      const vis = ink.glyphs.filter((g) => g.mode === 'fill' && !g.coveredBy && !g.clipped && !g.offPage);
      money.set(
        i + 1,
        tokensOf(vis, i + 1).filter((t) => isMoney(t.text)),
      );
      const rot = opened.doc.loadPage(i).getObject?.()?.getInheritable?.('Rotate')?.asNumber?.() ?? 0;
      if (rot % 360) rotated.add(i + 1);
    }
  } finally {
    opened.close();
  }
  let separator = '';
  for (const toks of money.values())
    for (const t of toks) {
      const m = /\d([,.' ])\d{3}[.,]\d{2}/.exec(t.text);
      if (m) separator ||= m[1];
    }
  return { original, parsed, money, rotated, separator };
}

const inBoxes = (t: InkToken, boxes: Box[]) => {
  const cx = (t.box[0] + t.box[2]) / 2;
  const cy = (t.box[1] + t.box[3]) / 2;
  return boxes.some((b) => cx >= b[0] - 2 && cx <= b[2] + 2 && cy >= b[1] - 1.5 && cy <= b[3] + 1.5);
};

/** The printed token of a row's amount (or balance) in the original. */
function tokenOf(ctx: EditContext, row: number, which: 'amount' | 'balance'): InkToken | null {
  const t = ctx.parsed.transactions[row];
  if (!t?.source || ctx.rotated.has(t.source.page)) return null;
  const want = which === 'amount' ? Math.abs(t.amount) : t.balance === null ? null : Math.abs(t.balance);
  if (want === null) return null;
  const cands = (ctx.money.get(t.source.page) ?? []).filter((k) => inBoxes(k, t.source!.boxes) && Math.abs(valueOf(k.text) - want) < 0.005);
  if (!cands.length) return null;
  // the amount and the balance may print the same value: amount is the left one
  cands.sort((a, b) => a.box[0] - b.box[0]);
  return which === 'amount' ? cands[0] : cands[cands.length - 1];
}

function closestFont(name: string, bold: boolean): StandardFonts {
  if (/courier|mono/i.test(name)) return bold ? StandardFonts.CourierBold : StandardFonts.Courier;
  if (/times|serif|roman|georgia|garamond|cambria|book/i.test(name) && !/sans/i.test(name))
    return bold ? StandardFonts.TimesRomanBold : StandardFonts.TimesRoman;
  return bold ? StandardFonts.HelveticaBold : StandardFonts.Helvetica;
}

interface Redraw {
  tok: InkToken;
  text: string;
  font?: StandardFonts;
  sizeFactor?: number;
  dx?: number;
  dy?: number;
}

/** Covers each token with a white box and draws its new text right-aligned where it was (pdf-lib). */
async function coverAndRedraw(ctx: EditContext, redraws: Redraw[], erase: Array<{ page: number; box: Box }> = []): Promise<Uint8Array> {
  const pdf = await PDFDocument.load(ctx.original, { updateMetadata: false, ignoreEncryption: true });
  const fonts = new Map<StandardFonts, PDFFont>();
  const fontOf = async (f: StandardFonts) => {
    let font = fonts.get(f);
    if (!font) {
      font = await pdf.embedFont(f);
      fonts.set(f, font);
    }
    return font;
  };
  const toPdf = (page: PDFPage, x: number, y: number) => {
    const crop = page.getCropBox();
    return { x: x + crop.x, y: crop.y + crop.height - y };
  };
  const white = (page: PDFPage, b: Box, pad: number) => {
    const p = toPdf(page, b[0] - pad, b[3] + pad);
    page.drawRectangle({ x: p.x, y: p.y, width: b[2] - b[0] + 2 * pad, height: b[3] - b[1] + 2 * pad, color: rgb(1, 1, 1) });
  };
  for (const e of erase) white(pdf.getPage(e.page - 1), e.box, 2.5);
  for (const r of redraws) {
    const page = pdf.getPage(r.tok.page - 1);
    const g = r.tok.glyphs[0];
    white(page, r.tok.box, 0.6);
    const font = await fontOf(r.font ?? closestFont(g.font, g.bold));
    const size = r.tok.size * (r.sizeFactor ?? 1);
    const width = font.widthOfTextAtSize(r.text, size);
    const p = toPdf(page, r.tok.box[2] - width + (r.dx ?? 0), r.tok.base + (r.dy ?? 0));
    page.drawText(r.text, { x: p.x, y: p.y, size, font, color: rgb(0, 0, 0) });
  }
  return pdf.save();
}

/** Removes the amount's glyphs with a mupdf redaction (no box left) and writes the new value in Helvetica where it was. */
async function redactAndRedraw(ctx: EditContext, tok: InkToken, text: string): Promise<Uint8Array> {
  const mupdf = await import('mupdf');
  const doc = mupdf.Document.openDocument(ctx.original, 'application/pdf') as InstanceType<typeof mupdf.PDFDocument>;
  try {
    const page = doc.loadPage(tok.page - 1) as InstanceType<typeof mupdf.PDFPage>;
    const annot = page.createAnnotation('Redact');
    // a thin band through the middle of the glyphs: neighbouring lines stay untouched
    annot.setRect([tok.box[0] + 0.2, tok.base - 0.5 * tok.size, tok.box[2] - 0.2, tok.base - 0.15 * tok.size]);
    annot.update();
    page.applyRedactions(false, mupdf.PDFPage.REDACT_IMAGE_NONE, mupdf.PDFPage.REDACT_LINE_ART_NONE, mupdf.PDFPage.REDACT_TEXT_REMOVE);
    const font = doc.addSimpleFont(new mupdf.Font('Helvetica'));
    const pageObj = page.getObject();
    const resources = pageObj.getInheritable('Resources');
    let fontDict = resources.get('Font');
    if (!fontDict || fontDict.isNull()) {
      fontDict = doc.newDictionary();
      resources.put('Font', fontDict);
    }
    fontDict.put('LLTamper', font);
    // Helvetica's digits are 0.556 em wide, the comma and the point 0.278
    let em = 0;
    for (const ch of text) em += /\d/.test(ch) ? 0.556 : /[.,]/.test(ch) ? 0.278 : ch === '$' ? 0.556 : 0.333;
    const size = tok.size;
    const b = page.getBounds();
    const mediabox = pageObj.getInheritable('MediaBox');
    const cropObj = pageObj.getInheritable('CropBox');
    const box = cropObj && !cropObj.isNull() ? cropObj : mediabox;
    const x0 = box.get(0).asNumber();
    const y1 = box.get(3).asNumber();
    void b;
    const x = tok.box[2] - em * size + x0;
    const y = y1 - tok.base;
    const esc = text.replace(/[()\\]/g, (c) => `\\${c}`);
    // a simple font's string is WinAnsi bytes (the pound sign is one byte, 0xA3)
    const ops = Buffer.from(`q BT /LLTamper ${size.toFixed(2)} Tf ${x.toFixed(2)} ${y.toFixed(2)} Td (${esc}) Tj ET Q\n`, 'latin1');
    const stream = doc.addStream(ops, doc.newDictionary());
    const contents = pageObj.get('Contents');
    if (contents.isArray()) contents.push(stream);
    else {
      const arr = doc.newArray();
      arr.push(contents);
      arr.push(stream);
      pageObj.put('Contents', arr);
    }
    return doc.saveToBuffer('garbage=1').asUint8Array().slice();
  } finally {
    doc.destroy?.();
  }
}

/**
 * The most careful edit: the amount's digits changed inside the page's own content stream (mupdf),
 * same font, same size, same place, same drawing order; one digit raised so the width holds. Only
 * where the stream holds the amount as literal text exactly once (fonts with a simple encoding);
 * elsewhere not applicable.
 */
async function swapDigitInStream(original: Uint8Array, tok: InkToken, value: number): Promise<{ bytes: Uint8Array; text: string } | null> {
  const m = /\d[\d,.' ]*[.,]\d{2}/.exec(tok.text);
  if (!m) return null;
  const digits = m[0];
  const mupdf = await import('mupdf');
  const doc = mupdf.Document.openDocument(original, 'application/pdf') as InstanceType<typeof mupdf.PDFDocument>;
  try {
    const page = doc.loadPage(tok.page - 1) as InstanceType<typeof mupdf.PDFPage>;
    const contents = page.getObject().get('Contents');
    const streams: Array<InstanceType<typeof mupdf.PDFObject>> = [];
    if (contents.isArray()) for (let i = 0; i < contents.length; i++) streams.push(contents.get(i));
    else if (contents.isStream()) streams.push(contents);
    // the new digits: the leading digit raised (same count of digits, so the same width in tabular figures)
    const lead = Number(digits[0]);
    const raised = String(Math.min(9, lead + 1 + (Math.floor(value * 100) % Math.max(1, 8 - lead))));
    if (raised === digits[0]) return null;
    const next = raised + digits.slice(1);
    let found: { s: InstanceType<typeof mupdf.PDFObject>; text: string } | null = null;
    for (const st of streams) {
      const text = Buffer.from(st.readStream().asUint8Array()).toString('latin1');
      const hits = text.split(`(${digits}`).length - 1 + (text.split(`${digits})`).length - 1);
      if (!hits) continue;
      if (found || hits > 2) return null; // printed more than once: not sure which
      found = { s: st, text };
    }
    if (!found) return null;
    const edited = found.text.split(digits).length === 2 ? found.text.replace(digits, next) : null;
    if (!edited) return null;
    found.s.writeStream(Buffer.from(edited, 'latin1'));
    const bytes = doc.saveToBuffer('garbage=1').asUint8Array().slice();
    const text = tok.text.replace(digits, next);
    // a font's own encoding may give the same bytes to other glyphs: the edit must change this amount's
    // line and no other, into the new value
    return (await changedLine(original, bytes, tok.page - 1, tok.text, text)) ? { bytes, text } : null;
  } finally {
    doc.destroy?.();
  }
}

/** Whether exactly one line of page `index` differs between the two files, by `from` written as `to`. */
async function changedLine(before: Uint8Array, after: Uint8Array, index: number, from: string, to: string): Promise<boolean> {
  const lines = async (bytes: Uint8Array) => {
    const opened = await openDocument(bytes);
    try {
      return extractPageText(opened, index).lines.map((l) => l.text);
    } finally {
      opened.close();
    }
  };
  const [a, b] = [await lines(before), await lines(after)];
  if (a.length !== b.length) return false;
  const diff = a.map((l, i) => i).filter((i) => a[i] !== b[i]);
  return diff.length === 1 && a[diff[0]].replace(from, to) === b[diff[0]];
}

/** Rows in the order the running balance runs (newest-first printouts run bottom-up). */
function chainAfter(parsed: ParseResult, row: number): number[] {
  const newestFirst = (parsed.readings ?? []).some((r) => r.question === 'row_order' && /newest/i.test(r.chosen));
  const idx = parsed.transactions.map((_, i) => i);
  return newestFirst ? idx.filter((i) => i <= row) : idx.filter((i) => i >= row);
}

/** Printed closing balances outside the rows (the summary), to move with the chain. */
function closingTokens(ctx: EditContext): InkToken[] {
  const close = ctx.parsed.closingBalance;
  if (close === null) return [];
  const rowBoxes = ctx.parsed.transactions.flatMap((t) => (t.source ? t.source.boxes.map((b) => ({ page: t.source!.page, b })) : []));
  const out: InkToken[] = [];
  for (const [page, toks] of ctx.money)
    for (const t of toks)
      if (Math.abs(valueOf(t.text) - Math.abs(close)) < 0.005 && !rowBoxes.some((r) => r.page === page && inBoxes(t, [r.b]))) out.push(t);
  return out;
}

/** One edit of `kind` on a row the seed picks; null when the document has no row that fits (counted as not applicable). */
export async function makeEdit(
  original: Uint8Array,
  parsed: ParseResult,
  kind: EditKind,
  seed: number,
  ctxIn?: EditContext,
): Promise<Edit | null> {
  const ctx = ctxIn ?? (await context(original, parsed));
  const r = new Rng(seed);
  const txs = parsed.transactions;
  const credits = txs.map((t, i) => i).filter((i) => txs[i].amount > 0 && tokenOf(ctx, i, 'amount'));
  const debits = txs.map((t, i) => i).filter((i) => txs[i].amount < 0 && tokenOf(ctx, i, 'amount'));
  const lift = (v: number) => Math.round(v * (1.5 + r.next() * 2) * 100) / 100 + (v < 10 ? 100 : 0);
  const single = async (font: (t: InkToken) => StandardFonts | undefined, extra: Partial<Redraw>): Promise<Edit | null> => {
    const pool = credits.length ? credits : debits;
    if (!pool.length) return null;
    const row = r.pick(pool);
    const tok = tokenOf(ctx, row, 'amount')!;
    const text = reformat(tok.text, lift(Math.abs(txs[row].amount)), ctx.separator);
    const bytes = await coverAndRedraw(ctx, [{ tok, text, font: font(tok), ...extra }]);
    return { kind, bytes, page: tok.page, row, boxes: [tok.box], note: `${tok.text} -> ${text}` };
  };
  switch (kind) {
    case 'font_swap':
      return single((t) => (/courier|mono/i.test(t.glyphs[0].font) ? StandardFonts.TimesRoman : StandardFonts.Courier), {});
    case 'size_change':
      return single(() => undefined, { sizeFactor: 1.12 });
    case 'position_shift':
      return single(() => undefined, { dx: 1.5, dy: 0.9 });
    case 'white_box':
      return single(() => undefined, {});
    case 'mupdf_redact_redraw': {
      const pool = credits.length ? credits : debits;
      if (!pool.length) return null;
      const row = r.pick(pool);
      const tok = tokenOf(ctx, row, 'amount')!;
      const text = reformat(tok.text, lift(Math.abs(txs[row].amount)), ctx.separator);
      return { kind, bytes: await redactAndRedraw(ctx, tok, text), page: tok.page, row, boxes: [tok.box], note: `${tok.text} -> ${text}` };
    }
    case 'stream_digit_swap': {
      // deposits (or any amount) whose printed text the stream holds once
      for (const row of [...(credits.length ? credits : debits)].sort(() => r.next() - 0.5).slice(0, 12)) {
        const tok = tokenOf(ctx, row, 'amount')!;
        const done = await swapDigitInStream(ctx.original, tok, Math.abs(txs[row].amount));
        if (done)
          return {
            kind,
            bytes: done.bytes,
            page: tok.page,
            row,
            boxes: [tok.box],
            note: `${tok.text} -> ${done.text} in the content stream`,
          };
      }
      return null;
    }
    case 'balance_chain': {
      const pool = credits.filter((i) => tokenOf(ctx, i, 'balance'));
      if (!pool.length) return null;
      const row = r.pick(pool);
      const tok = tokenOf(ctx, row, 'amount')!;
      const newAmount = lift(txs[row].amount);
      const delta = Math.round((newAmount - txs[row].amount) * 100) / 100;
      const redraws: Redraw[] = [{ tok, text: reformat(tok.text, newAmount, ctx.separator) }];
      for (const j of chainAfter(parsed, row)) {
        const b = tokenOf(ctx, j, 'balance');
        if (b && txs[j].balance !== null)
          redraws.push({ tok: b, text: reformat(b.text, Math.abs(txs[j].balance! + delta), ctx.separator) });
      }
      for (const c of closingTokens(ctx))
        redraws.push({ tok: c, text: reformat(c.text, Math.abs(parsed.closingBalance! + delta), ctx.separator) });
      const bytes = await coverAndRedraw(ctx, redraws);
      return {
        kind,
        bytes,
        page: tok.page,
        row,
        boxes: [tok.box],
        note: `${tok.text} +${delta.toFixed(2)} and ${redraws.length - 1} balances after it`,
      };
    }
    case 'summary_balance':
    case 'summary_stream_swap': {
      // the closing balance lifted where the summary prints it (every printed place outside the
      // rows), the rows and their balances left as they are: white boxes and new text (pdf-lib), or
      // the digits changed inside the content streams (mupdf; not applicable where a stream does not
      // hold the value as literal text once)
      const toks = closingTokens(ctx).filter((t) => !ctx.rotated.has(t.page));
      if (!toks.length || parsed.closingBalance === null) return null;
      const close = Math.abs(parsed.closingBalance);
      const first = toks[0];
      const edit = (bytes: Uint8Array, note: string): Edit => ({ kind, bytes, page: first.page, row: -1, boxes: [first.box], note });
      if (kind === 'summary_balance') {
        const text = reformat(first.text, lift(close), ctx.separator);
        const bytes = await coverAndRedraw(
          ctx,
          toks.map((tok) => ({ tok, text: reformat(tok.text, valueOf(text), ctx.separator) })),
        );
        return edit(bytes, `closing ${first.text} -> ${text} (${toks.length} printed)`);
      }
      let bytes: Uint8Array = ctx.original;
      let text = '';
      for (const tok of toks) {
        const done = await swapDigitInStream(bytes, tok, close);
        if (!done) return null;
        bytes = done.bytes;
        text ||= done.text;
      }
      return edit(bytes, `closing ${first.text} -> ${text} in the content stream (${toks.length} printed)`);
    }
    case 'row_delete': {
      if (!debits.length) return null;
      const row = r.pick(debits);
      const t = txs[row];
      const delta = -t.amount;
      const redraws: Redraw[] = [];
      for (const j of chainAfter(parsed, row)) {
        if (j === row) continue;
        const b = tokenOf(ctx, j, 'balance');
        if (b && txs[j].balance !== null)
          redraws.push({ tok: b, text: reformat(b.text, Math.abs(txs[j].balance! + delta), ctx.separator) });
      }
      for (const c of closingTokens(ctx))
        redraws.push({ tok: c, text: reformat(c.text, Math.abs(parsed.closingBalance! + delta), ctx.separator) });
      const erase = t.source!.boxes.map((box) => ({ page: t.source!.page, box }));
      const bytes = await coverAndRedraw(ctx, redraws, erase);
      return {
        kind,
        bytes,
        page: t.source!.page,
        row,
        boxes: t.source!.boxes,
        note: `row ${row + 1} (${t.date}, ${t.amount.toFixed(2)}) covered`,
      };
    }
  }
}

export { context as editContext };
