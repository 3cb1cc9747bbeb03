import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { woffToSfnt } from '@ledgerlens/statements';

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

// apps/api/assets/fonts, from src/modules/exports/pdf (tests) and dist/modules/exports/pdf alike
const FONTS_DIR = join(__dirname, '..', '..', '..', '..', 'assets', 'fonts');

export function fontFiles(): FontFiles {
  if (cached) return cached;
  const read = (name: string) => woffToSfnt(readFileSync(join(FONTS_DIR, `IBMPlexSans-${name}.woff`)));
  cached = { regular: read('Regular'), medium: read('Medium'), semibold: read('SemiBold'), bold: read('Bold') };
  return cached;
}

/**
 * Fallback fonts (Noto, OFL: assets/fonts/noto/README.md) for what Plex cannot draw: Arabic,
 * Hebrew, Chinese, Japanese, Korean, emoji. Each file with the code points it has a glyph for, in
 * the order they are tried; read from `index.json` once, a file's bytes only when a report needs it.
 */
interface FallbackFile {
  file: string;
  /** inclusive [start, end] code point ranges, ascending */
  ranges: [number, number][];
}

let fallbackIndex: FallbackFile[] | null = null;
const fallbackCache = new Map<string, Uint8Array>();

function fallbackFiles(): FallbackFile[] {
  if (fallbackIndex) return fallbackIndex;
  const raw = JSON.parse(readFileSync(join(FONTS_DIR, 'noto', 'index.json'), 'utf8')) as { file: string; ranges: number[] }[];
  fallbackIndex = raw.map(({ file, ranges: flat }) => {
    const ranges: [number, number][] = [];
    let end = 0;
    for (let i = 0; i < flat.length; i += 2) {
      const start = end + flat[i];
      end = start + flat[i + 1];
      ranges.push([start, end]);
    }
    return { file, ranges };
  });
  return fallbackIndex;
}

const inRanges = (ranges: [number, number][], cp: number): boolean => {
  let lo = 0;
  let hi = ranges.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (cp < ranges[mid][0]) hi = mid - 1;
    else if (cp > ranges[mid][1]) lo = mid + 1;
    else return true;
  }
  return false;
};

/**
 * The fallback font files `text` needs: for every code point the primary font has no glyph for,
 * the first file that has one (in the index order). None for text Plex covers: a Latin report
 * embeds no fallback font at all.
 */
export function fallbackFilesFor(text: string, primaryHas: (codePoint: number) => boolean): string[] {
  const needed = new Set<string>();
  const seen = new Set<number>();
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if (cp < 0x250 || seen.has(cp)) continue;
    seen.add(cp);
    if (primaryHas(cp)) continue;
    const hit = fallbackFiles().find((f) => inRanges(f.ranges, cp));
    if (hit) needed.add(hit.file);
  }
  return fallbackFiles()
    .map((f) => f.file)
    .filter((f) => needed.has(f));
}

/** A fallback font file as TrueType/OpenType bytes, read (and unwrapped from WOFF) once per process. */
export function fallbackFontBytes(file: string): Uint8Array {
  let bytes = fallbackCache.get(file);
  if (!bytes) {
    bytes = woffToSfnt(readFileSync(join(FONTS_DIR, 'noto', file)));
    fallbackCache.set(file, bytes);
  }
  return bytes;
}

interface GlyphRun {
  glyphs: unknown[];
}
interface FontkitFont {
  layout(text: string, features?: unknown): GlyphRun;
  glyphsForString(text: string): unknown[];
  hasGlyphForCodePoint(codePoint: number): boolean;
}

/** Whether an embedded font has a glyph for the code point (true when that cannot be told). */
export function hasGlyph(font: object, codePoint: number): boolean {
  const fk = (font as { embedder?: { font?: FontkitFont } }).embedder?.font;
  return typeof fk?.hasGlyphForCodePoint === 'function' ? fk.hasGlyphForCodePoint(codePoint) : true;
}

/**
 * pdf-lib reads only glyph ids and advance widths from fontkit's `layout` (it ignores the
 * positions, so kerning never reaches the page), yet `layout` runs the whole OpenType shaping
 * engine on every string: about 2/3 of a report's render time. A plain cmap lookup gives the same
 * glyphs without ligatures, which also keeps the text extractable letter by letter ("fi", not "ﬁ").
 * Only for Plex: a fallback font keeps the shaping (Arabic joins its letters, right-to-left text
 * is laid out in visual order).
 */
export function useCmapLayout(font: object): void {
  const fk = (font as { embedder?: { font?: FontkitFont } }).embedder?.font;
  if (!fk || typeof fk.glyphsForString !== 'function') return;
  fk.layout = (text: string) => ({ glyphs: fk.glyphsForString(text) });
}
