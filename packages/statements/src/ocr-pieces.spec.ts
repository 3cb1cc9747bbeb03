/** Which parts of a page go to OCR and how they are put back (no OCR engine needed). */
import { groupLines } from './extract';
import { mergeOcrBands, ocrNeed } from './layout';
import { pgm } from './ocr';
import { PageLayout, Word } from './types';

/** A white raster with dark stripes (all but the edge columns) at the given row ranges. */
function raster(width: number, height: number, ink: Array<[number, number]>) {
  const data = new Uint8Array(width * height).fill(255);
  for (const [a, b] of ink) for (let y = a; y < b; y++) for (let x = 1; x < width - 1; x++) data[y * width + x] = 0;
  return { data, width, height };
}

function word(text: string, x0: number, base: number, font = 'Helvetica'): Word {
  return { text, x0, x1: x0 + text.length * 5, y0: base - 8, y1: base, base, size: 9, font };
}

function pageOf(lines: Array<[number, string]>): PageLayout {
  const words = lines.flatMap(([base, text]) => {
    let x = 40;
    return text.split(' ').map((t) => {
      const w = word(t, x, base);
      x = w.x1 + 3;
      return w;
    });
  });
  return { index: 0, width: 612, height: 792, lines: groupLines(words), method: 'text', confidence: 1, imageRects: [] };
}

describe('a band of a page for OCR', () => {
  it('is written as a binary PGM of its rows', () => {
    const r = raster(4, 300, [[10, 12]]);
    const img = pgm(r, 10, 12);
    const head = 'P5\n4 2\n255\n';
    expect(Buffer.from(img.subarray(0, head.length)).toString('ascii')).toBe(head);
    expect(img.length).toBe(head.length + 8);
    expect([...img.subarray(head.length)]).toEqual([255, 0, 0, 255, 255, 0, 0, 255]);
    const one = pgm(r, 0, 1);
    expect([...one.subarray(one.length - 4)]).toEqual([255, 255, 255, 255]);
  });
});

describe('what a page needs from OCR', () => {
  const good = Array.from({ length: 8 }, (_, i): [number, string] => [100 + i * 14, `Readable line number ${i} with words`]);

  it('nothing for a readable text layer', () => {
    expect(ocrNeed(pageOf(good))).toBeNull();
  });

  it('the whole page when there is no text', () => {
    expect(ocrNeed(pageOf([]))).toEqual({ kind: 'page' });
  });

  it('only the bands of unreadable lines when most of the page reads fine', () => {
    const garbled = '\uFFFD'.repeat(60);
    const p = pageOf([...good, [300, garbled], [314, garbled], [400, garbled]]);
    const need = ocrNeed(p);
    expect(need?.kind).toBe('lines');
    const bands = need!.kind === 'lines' ? need!.bands : [];
    // two adjacent lines share a band; the third has its own
    expect(bands).toHaveLength(2);
    expect(bands[0][0]).toBeLessThan(292);
    expect(bands[0][1]).toBeGreaterThan(314);
    expect(bands[0][1]).toBeLessThan(380);
    expect(bands[1][0]).toBeLessThan(392);
    expect(bands[1][1]).toBeGreaterThan(400);
    // the readable lines are not in any band
    for (const [base] of good) expect(bands.some(([a, b]) => base - 4 >= a && base - 4 <= b)).toBe(false);
  });

  it('the whole page when the readable part is too small to keep', () => {
    const garbled = '\uFFFD'.repeat(60);
    expect(
      ocrNeed(
        pageOf([
          [100, 'Page 2'],
          [300, garbled],
          [314, garbled],
        ]),
      ),
    ).toEqual({ kind: 'page' });
  });

  it('keeps the readable words and puts the OCR words in the bands', () => {
    const garbled = '\uFFFD'.repeat(80);
    const p = pageOf([...good, [300, `${garbled} ${garbled}`]]);
    const need = ocrNeed(p)!;
    const bands = need.kind === 'lines' ? need.bands : [];
    const ocr = [word('Deposit', 40, 300, 'ocr'), word('120.00', 400, 300, 'ocr'), word('stray', 40, 600, 'ocr')];
    const merged = mergeOcrBands(p.lines, bands, ocr);
    const texts = merged.lines.map((l) => l.text);
    expect(texts).toContain('Deposit 120.00');
    expect(texts.join('\n')).not.toContain('\uFFFD');
    expect(texts.join('\n')).not.toContain('stray'); // OCR words outside the bands are not used
    expect(texts.filter((t) => t.startsWith('Readable'))).toHaveLength(8);
    expect(merged.ocrWords).toBe(2);
  });
});
