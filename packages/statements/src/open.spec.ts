import { imageDimensions, openDocument } from './open';
import { StatementError } from './types';

interface TiffPage {
  width: number;
  height: number;
  /** 3 = SHORT, 4 = LONG */
  type?: 3 | 4;
}

/**
 * A baseline TIFF: 8-bit grayscale, uncompressed, one strip per page (all zero bytes: white
 * enough), pages chained through their IFDs. `stripBytes` false leaves the pixel data out (a
 * header that promises more than the file holds, as a bomb does).
 */
function tiff(pages: TiffPage[], { littleEndian = true, stripBytes = true } = {}): Uint8Array {
  const entriesPerIfd = 8;
  const ifdSize = 2 + entriesPerIfd * 12 + 4;
  const pixelBytes = pages.map((p) => (stripBytes ? p.width * p.height : 0));
  const size = 8 + pages.length * ifdSize + pixelBytes.reduce((a, b) => a + b, 0);
  const b = Buffer.alloc(size);
  const u16 = (at: number, v: number) => (littleEndian ? b.writeUInt16LE(v, at) : b.writeUInt16BE(v, at));
  const u32 = (at: number, v: number) => (littleEndian ? b.writeUInt32LE(v, at) : b.writeUInt32BE(v, at));
  b.write(littleEndian ? 'II' : 'MM', 0, 'latin1');
  u16(2, 42);
  u32(4, 8);
  let data = 8 + pages.length * ifdSize;
  pages.forEach((page, n) => {
    const ifd = 8 + n * ifdSize;
    u16(ifd, entriesPerIfd);
    const entry = (i: number, tag: number, type: number, value: number) => {
      const at = ifd + 2 + i * 12;
      u16(at, tag);
      u16(at + 2, type);
      u32(at + 4, 1);
      if (type === 3) u16(at + 8, value);
      else u32(at + 8, value);
    };
    const type = page.type ?? 4;
    entry(0, 256, type, page.width); // ImageWidth
    entry(1, 257, type, page.height); // ImageLength
    entry(2, 258, 3, 8); // BitsPerSample
    entry(3, 259, 3, 1); // Compression: none
    entry(4, 262, 3, 1); // PhotometricInterpretation: BlackIsZero
    entry(5, 273, 4, data); // StripOffsets
    entry(6, 278, 4, page.height); // RowsPerStrip
    entry(7, 279, 4, page.width * page.height); // StripByteCounts
    u32(ifd + 2 + entriesPerIfd * 12, n + 1 < pages.length ? 8 + (n + 1) * ifdSize : 0);
    if (stripBytes) b.fill(0xff, data, data + pixelBytes[n]);
    data += pixelBytes[n];
  });
  return new Uint8Array(b);
}

async function errorOf(p: Promise<unknown>): Promise<StatementError | null> {
  try {
    await p;
    return null;
  } catch (e) {
    if (!(e instanceof StatementError)) throw e;
    return e;
  }
}

describe('imageDimensions', () => {
  it('reads a TIFF in either byte order, with SHORT or LONG sizes', () => {
    expect(imageDimensions(tiff([{ width: 300, height: 200, type: 3 }]))).toEqual({ width: 300, height: 200 });
    expect(imageDimensions(tiff([{ width: 300, height: 200, type: 4 }], { littleEndian: false }))).toEqual({ width: 300, height: 200 });
    expect(imageDimensions(tiff([{ width: 20_000, height: 20_000, type: 3 }], { littleEndian: false, stripBytes: false }))).toEqual({
      width: 20_000,
      height: 20_000,
    });
    expect(imageDimensions(tiff([{ width: 70_000, height: 50_000 }], { stripBytes: false }))).toEqual({ width: 70_000, height: 50_000 });
  });

  it('takes the largest page of a multi-page TIFF', () => {
    const pages = [
      { width: 10, height: 10 },
      { width: 20_000, height: 20_000 },
      { width: 30, height: 30 },
    ];
    expect(imageDimensions(tiff(pages, { stripBytes: false }))).toEqual({ width: 20_000, height: 20_000 });
  });

  it('says null for a TIFF header it cannot read: IFD outside the file, a loop, a missing size', () => {
    const outside = Buffer.from(tiff([{ width: 10, height: 10 }]));
    outside.writeUInt32LE(outside.length + 100, 4);
    expect(imageDimensions(outside)).toBeNull();
    const loop = Buffer.from(tiff([{ width: 10, height: 10 }]));
    loop.writeUInt32LE(8, 8 + 2 + 8 * 12); // the next IFD is itself
    expect(imageDimensions(loop)).toBeNull();
    const noWidth = Buffer.from(tiff([{ width: 10, height: 10 }]));
    noWidth.writeUInt16LE(999, 8 + 2); // ImageWidth's tag renamed
    expect(imageDimensions(noWidth)).toBeNull();
    expect(imageDimensions(Buffer.from('II*\x00\x08\x00', 'latin1'))).toBeNull();
  });

  it('still reads PNG and JPEG, and refuses a PNG without its IHDR', () => {
    const png = Buffer.alloc(24);
    png.writeUInt32BE(0x89504e47, 0);
    png.write('IHDR', 12, 'latin1');
    png.writeUInt32BE(640, 16);
    png.writeUInt32BE(480, 20);
    expect(imageDimensions(png)).toEqual({ width: 640, height: 480 });
    png.write('IDAT', 12, 'latin1');
    expect(imageDimensions(png)).toBeNull();
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xc0, 0x00, 0x11, 0x08, 0x01, 0xe0, 0x02, 0x80, 0x03, 0, 0, 0, 0, 0, 0, 0, 0]);
    expect(imageDimensions(jpeg)).toEqual({ width: 640, height: 480 });
  });
});

describe('openDocument: the pixel limit for every image format', () => {
  it('refuses a 20,000 x 20,000 TIFF from its header, without decoding it', async () => {
    for (const littleEndian of [true, false]) {
      const started = Date.now();
      const err = await errorOf(openDocument(tiff([{ width: 20_000, height: 20_000 }], { littleEndian, stripBytes: false })));
      expect(err?.code).toBe('too_large');
      expect(err?.message).toBe('image is 20000 x 20000 pixels, limit 60000000');
      expect(Date.now() - started).toBeLessThan(1000);
    }
  });

  it('refuses a multi-page TIFF whose later page is over the limit', async () => {
    const bytes = tiff(
      [
        { width: 10, height: 10 },
        { width: 9000, height: 9000 },
      ],
      { stripBytes: false },
    );
    expect((await errorOf(openDocument(bytes)))?.code).toBe('too_large');
  });

  it('refuses an image whose header it cannot read (corrupt), and opens a small TIFF', async () => {
    const unreadable = Buffer.from(tiff([{ width: 10, height: 10 }]));
    unreadable.writeUInt32LE(0xfffffff0, 4);
    const err = await errorOf(openDocument(new Uint8Array(unreadable)));
    expect([err?.code, err?.message]).toEqual(['corrupt', 'cannot read the pixel size of the TIFF image from its header']);
    const ok = await openDocument(tiff([{ width: 120, height: 80, type: 3 }]));
    try {
      expect(ok.info).toMatchObject({ mimeType: 'image/tiff', pageCount: 1, isPdf: false });
    } finally {
      ok.close();
    }
  });
});
