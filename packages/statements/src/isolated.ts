/**
 * Runs parseStatementFile in a worker thread with a hard wall-clock timeout and a heap cap, so a
 * hostile file can neither hang nor crash the calling process (mupdf runs synchronously in wasm).
 */
import * as fs from 'fs';
import * as path from 'path';
import { Worker } from 'worker_threads';
import { ParseOptions, ParseResult, StatementError, StatementErrorCode } from './types';

export interface IsolatedParseOptions extends ParseOptions {
  /** wall-clock limit for the whole parse (default 180 s) */
  timeoutMs?: number;
  /** V8 heap limit of the worker (default 1024 MB) */
  maxHeapMb?: number;
  /** path of the compiled worker script (default: dist/worker.js next to this file) */
  workerScript?: string;
}

export function parseStatementFileIsolated(bytes: Uint8Array, opts: IsolatedParseOptions = {}): Promise<ParseResult> {
  const { onStep, signal, timeoutMs = 180_000, maxHeapMb = 1024, workerScript, ...rest } = opts;
  const script = workerScript ?? path.join(__dirname, 'worker.js');
  if (!fs.existsSync(script)) return Promise.reject(new Error(`worker script not found: ${script} (build @ledgerlens/statements first)`));
  if (signal?.aborted) return Promise.reject(signal.reason ?? new Error('aborted'));
  return new Promise<ParseResult>((resolve, reject) => {
    let settled = false;
    const worker = new Worker(script, { workerData: { bytes, opts: rest }, resourceLimits: { maxOldGenerationSizeMb: maxHeapMb } });
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      void worker.terminate();
      fn();
    };
    const timer = setTimeout(() => finish(() => reject(new StatementError('too_large', `processing exceeded ${timeoutMs} ms`))), timeoutMs);
    const onAbort = () => finish(() => reject(signal?.reason ?? new Error('aborted')));
    signal?.addEventListener('abort', onAbort, { once: true });
    worker.on('message', (m: { type: string; step?: any; result?: ParseResult; code?: StatementErrorCode | null; message?: string }) => {
      if (m.type === 'step') onStep?.(m.step);
      else if (m.type === 'result') finish(() => resolve(m.result!));
      else if (m.type === 'error')
        finish(() =>
          reject(m.code ? new StatementError(m.code, m.message ?? '') : new StatementError('corrupt', m.message ?? 'worker failed')),
        );
    });
    worker.on('error', (e: Error & { code?: string }) =>
      finish(() =>
        reject(new StatementError(e.code === 'ERR_WORKER_OUT_OF_MEMORY' ? 'too_large' : 'corrupt', `worker failed: ${e.message}`)),
      ),
    );
    worker.on('exit', (code) => finish(() => reject(new StatementError('corrupt', `worker exited with code ${code}`))));
  });
}
