import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';

/**
 * IBM Plex Sans (SIL Open Font License 1.1, apps/api/assets/fonts/OFL-LICENSE.txt), read once and
 * embedded (subset) in every report, so the PDF looks the same in every viewer and carries no
 * system-font dependency. The four weights are kept in the repository: the npm package of the font
 * runs a telemetry program on install, which a self-hosted install must not do.
 */
export interface FontFiles {
  regular: Uint8Array;
  medium: Uint8Array;
  semibold: Uint8Array;
  bold: Uint8Array;
}

let cached: FontFiles | null = null;

export function fontFiles(): FontFiles {
  if (cached) return cached;
  // apps/api/assets/fonts, from src/modules/exports/pdf (tests) and dist/modules/exports/pdf alike
  const root = join(__dirname, '..', '..', '..', '..', 'assets', 'fonts');
  const read = (name: string) => woffToSfnt(readFileSync(join(root, `IBMPlexSans-${name}.woff`)));
  cached = { regular: read('Regular'), medium: read('Medium'), semibold: read('SemiBold'), bold: read('Bold') };
  return cached;
}

/**
 * WOFF 1.0 to a plain TrueType/OpenType file, once per process. fontkit would otherwise inflate
 * the compressed tables in JavaScript on every report (most of the render time); here node's zlib
 * does it once.
 */
export function woffToSfnt(woff: Buffer): Uint8Array {
  if (woff.toString('latin1', 0, 4) !== 'wOFF') return new Uint8Array(woff);
  const flavor = woff.readUInt32BE(4);
  const numTables = woff.readUInt16BE(12);
  const tables: { tag: number; checksum: number; data: Buffer }[] = [];
  for (let i = 0; i < numTables; i++) {
    const at = 44 + i * 20;
    const offset = woff.readUInt32BE(at + 4);
    const compLength = woff.readUInt32BE(at + 8);
    const origLength = woff.readUInt32BE(at + 12);
    const raw = woff.subarray(offset, offset + compLength);
    tables.push({
      tag: woff.readUInt32BE(at),
      checksum: woff.readUInt32BE(at + 16),
      data: compLength < origLength ? inflateSync(raw) : Buffer.from(raw),
    });
  }
  const pad4 = (n: number) => (n + 3) & ~3;
  let size = 12 + 16 * numTables;
  for (const t of tables) size += pad4(t.data.length);
  const out = Buffer.alloc(size);
  const entrySelector = Math.floor(Math.log2(numTables));
  const searchRange = 2 ** entrySelector * 16;
  out.writeUInt32BE(flavor, 0);
  out.writeUInt16BE(numTables, 4);
  out.writeUInt16BE(searchRange, 6);
  out.writeUInt16BE(entrySelector, 8);
  out.writeUInt16BE(numTables * 16 - searchRange, 10);
  let offset = 12 + 16 * numTables;
  tables.forEach((t, i) => {
    const at = 12 + i * 16;
    out.writeUInt32BE(t.tag, at);
    out.writeUInt32BE(t.checksum, at + 4);
    out.writeUInt32BE(offset, at + 8);
    out.writeUInt32BE(t.data.length, at + 12);
    t.data.copy(out, offset);
    offset += pad4(t.data.length);
  });
  return new Uint8Array(out);
}

interface GlyphRun {
  glyphs: unknown[];
}
interface FontkitFont {
  layout(text: string, features?: unknown): GlyphRun;
  glyphsForString(text: string): unknown[];
}

/**
 * pdf-lib reads only glyph ids and advance widths from fontkit's `layout` (it ignores the
 * positions, so kerning never reaches the page), yet `layout` runs the whole OpenType shaping
 * engine on every string: about 2/3 of a report's render time. A plain cmap lookup gives the same
 * glyphs without ligatures, which also keeps the text extractable letter by letter ("fi", not "ﬁ").
 */
export function useCmapLayout(font: object): void {
  const fk = (font as { embedder?: { font?: FontkitFont } }).embedder?.font;
  if (!fk || typeof fk.glyphsForString !== 'function') return;
  fk.layout = (text: string) => ({ glyphs: fk.glyphsForString(text) });
}
