/** The only place that loads mupdf (AGPL, ESM with top-level await): keep it behind this port. */
export type Mupdf = typeof import('mupdf');

let loading: Promise<Mupdf> | null = null;
let loaded: Mupdf | null = null;

/** Recent mupdf warnings (kept short; mupdf would otherwise print them to stderr). */
export const mupdfMessages: string[] = [];

export function loadMupdf(): Promise<Mupdf> {
  if (!loading) {
    loading = import('mupdf').then((m) => {
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

/** Releases cached fonts/images after a document (keeps a long-running worker's memory flat). */
export function releaseMupdfCaches(): void {
  try {
    loaded?.emptyStore();
  } catch {
    /* ignore */
  }
}
