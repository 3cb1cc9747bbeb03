/** Worker-thread entry used by parseStatementFileIsolated (compiled to dist/worker.js). */
import { isMainThread, parentPort, workerData } from 'worker_threads';
import { parseStatementFile } from './index';
import { shutdownOcr } from './ocr';
import { StatementError } from './types';

if (!isMainThread && parentPort) {
  const port = parentPort;
  const { bytes, opts } = workerData as { bytes: Uint8Array; opts: Record<string, unknown> };
  (async () => {
    try {
      const result = await parseStatementFile(bytes, { ...opts, onStep: (step) => port.postMessage({ type: 'step', step }) });
      port.postMessage({ type: 'result', result });
    } catch (e) {
      port.postMessage({ type: 'error', code: e instanceof StatementError ? e.code : null, message: String((e as Error)?.message ?? e) });
    } finally {
      await shutdownOcr();
    }
  })();
}
