/**
 * Font files: WOFF 1.0 unpacked to the TrueType/OpenType file it wraps. The API embeds its report
 * fonts from WOFF files (apps/api/assets/fonts); the tamper tests build statements with an embedded
 * subset font from the same files. mupdf and fontkit read the plain file faster (or only it).
 */
import { inflateSync } from 'node:zlib';

/**
 * WOFF 1.0 to a plain TrueType/OpenType file (anything else is returned as it is). The API does it
 * once per process: fontkit would otherwise inflate the compressed tables in JavaScript on every
 * report (most of the render time); here node's zlib does it once.
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
