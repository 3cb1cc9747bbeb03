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
