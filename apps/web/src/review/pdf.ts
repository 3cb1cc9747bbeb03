import { GlobalWorkerOptions, getDocument, type PDFDocumentProxy } from 'pdfjs-dist';

/**
 * pdf.js, loaded only by the document review page (`import('./pdf')`), so the first screen of the
 * app does not carry it. Its worker is a hashed module file under /app/assets, built by Vite from
 * `new Worker(new URL(...))`: the server's Content-Security-Policy (`script-src 'self'`, which
 * `worker-src` falls back to) allows it as it is; no blob: worker, no eval.
 */
let port: Worker | null = null;

/** Opens a PDF from its bytes; `close` ends the loading task and frees the document in the worker. */
export async function openPdf(bytes: Uint8Array): Promise<{ pdf: PDFDocumentProxy; close: () => Promise<void> }> {
  if (!port) {
    port = new Worker(new URL('pdfjs-dist/build/pdf.worker.min.mjs', import.meta.url), { type: 'module' });
    GlobalWorkerOptions.workerPort = port;
  }
  const task = getDocument({ data: bytes, enableXfa: false });
  return { pdf: await task.promise, close: () => task.destroy() };
}

export type { PDFDocumentProxy };
