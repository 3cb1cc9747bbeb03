/**
 * Entry of the parser workers (compiled to dist/worker.js): a child process of ParserPool (many
 * documents, one at a time, over IPC).
 */
import { isMainThread, Worker } from 'worker_threads';
import { parseStatementFile } from './index';
import { loadMupdf, releaseMupdfCaches } from './mupdf';
import type { ChildMessage, ParentMessage } from './pool';
import { StatementError } from './types';

const errorMessage = (e: unknown) => ({ code: e instanceof StatementError ? e.code : null, message: String((e as Error)?.message ?? e) });

if (isMainThread && typeof process.send === 'function') {
  const send = (m: ChildMessage) => process.send!(m);
  // the parent holds the IPC channel: when it goes (exit, kill -9) this process goes too
  process.on('disconnect', () => process.exit(0));
  // ...even while mupdf holds this thread in a synchronous call: a watchdog thread sees the
  // parent gone (this process re-parented) and kills the process
  new Worker(
    `const { workerData } = require('worker_threads'); setInterval(() => { if (process.ppid !== workerData) process.kill(process.pid, 'SIGKILL'); }, 500);`,
    { eval: true, workerData: process.ppid },
  ).unref();
  process.on('message', (m: ParentMessage) => {
    if (m?.type !== 'parse') return;
    parseStatementFile(m.bytes, { ...m.opts, onStep: (step) => send({ type: 'step', id: m.id, step }) })
      .then((result) => send({ type: 'result', id: m.id, result }))
      .catch((e: unknown) => send({ type: 'error', id: m.id, ...errorMessage(e) }))
      .finally(() => releaseMupdfCaches());
  });
  // Not handled on purpose: a parser that cannot load ends this child (unhandled rejection), which
  // the pool sees as a death before 'ready' and respawns after a pause (pool.ts).
  void loadMupdf().then(() => send({ type: 'ready' }));
}
