/**
 * A persistent pool of parser child processes. mupdf is WebAssembly and runs synchronously: a
 * hostile file can keep it busy for hours or grow its memory by gigabytes, and neither a timer
 * in the same process nor worker_threads' resourceLimits (they do not cap WASM memory) can stop
 * it. A child process can be killed: each document gets a hard wall-clock limit and a resident
 * memory limit (RSS read from /proc while it runs); on a breach the child is killed with SIGKILL
 * and replaced, and the document fails with `too_large`. Children stay warm (mupdf loaded)
 * between documents, so isolation costs an IPC round trip, not a process start.
 */
import { ChildProcess, fork } from 'child_process';
import { EventEmitter } from 'events';
import * as fs from 'fs';
import * as path from 'path';
import { ParseOptions, ParseResult, ParseStep, StatementError, StatementErrorCode } from './types';

export interface ParserPoolOptions {
  /** child processes (documents parsed at once) */
  size: number;
  /** wall-clock limit per document */
  timeoutMs: number;
  /** resident memory limit per child process, in MB */
  maxRssMb: number;
  /** compiled child entry (default: worker.js next to this file) */
  workerScript?: string;
  /** how often a busy child's RSS is read (default 50 ms) */
  memoryPollMs?: number;
}

/** What the parent sends; the functions and the signal of ParseOptions stay in the parent. */
export type ChildParseOptions = Omit<ParseOptions, 'onStep' | 'signal'>;

export type ChildMessage =
  | { type: 'ready' }
  | { type: 'step'; id: number; step: ParseStep }
  | { type: 'result'; id: number; result: ParseResult }
  | { type: 'error'; id: number; code: StatementErrorCode | null; message: string };

export type ParentMessage = { type: 'parse'; id: number; bytes: Uint8Array; opts: ChildParseOptions };

/** The child died for a reason that is not the document's (killed from outside, crashed): worth a retry. */
export class ParserCrashedError extends Error {}

interface Task {
  id: number;
  bytes: Uint8Array;
  opts: ChildParseOptions;
  onStep?: (s: ParseStep) => void;
  signal?: AbortSignal;
  resolve: (r: ParseResult) => void;
  reject: (e: unknown) => void;
}

interface Slot {
  child: ChildProcess;
  ready: Promise<void>;
  task: Task | null;
  timer: NodeJS.Timeout | null;
  poll: NodeJS.Timeout | null;
  /** why this child is being killed (set before the kill, read in the exit handler) */
  verdict: Error | null;
  onAbort: (() => void) | null;
  loaded: boolean;
}

const PAGE_SIZE = 4096;

/** Resident set size of a process in bytes (Linux /proc), or null where unavailable. */
export async function processRss(pid: number): Promise<number | null> {
  try {
    const statm = await fs.promises.readFile(`/proc/${pid}/statm`, 'utf8');
    return Number(statm.split(' ')[1]) * PAGE_SIZE;
  } catch {
    return null;
  }
}

export class ParserPool extends EventEmitter {
  private readonly slots: Slot[] = [];
  private readonly queue: Task[] = [];
  private readonly script: string;
  private nextId = 1;
  private closed = false;
  /** children replaced after a breach or a crash (observability, tests) */
  restarts = 0;

  constructor(private readonly opts: ParserPoolOptions) {
    super();
    this.script = opts.workerScript ?? path.join(__dirname, 'worker.js');
    if (!fs.existsSync(this.script)) throw new Error(`parser worker script not found: ${this.script} (build @ledgerlens/statements first)`);
    for (let i = 0; i < Math.max(1, opts.size); i++) this.slots.push(this.spawn());
  }

  /** Resolves when every child has loaded the parser (a warm pool). */
  async ready(): Promise<void> {
    await Promise.all(this.slots.map((s) => s.ready));
  }

  /** Process ids of the children (monitoring, tests). */
  pids(): number[] {
    return this.slots.map((s) => s.child.pid!).filter(Boolean);
  }

  busy(): number {
    return this.slots.filter((s) => s.task).length;
  }

  parse(bytes: Uint8Array, options: ParseOptions = {}): Promise<ParseResult> {
    if (this.closed) return Promise.reject(new Error('parser pool is closed'));
    const { onStep, signal, ...opts } = options;
    if (signal?.aborted) return Promise.reject(signal.reason ?? new Error('aborted'));
    return new Promise<ParseResult>((resolve, reject) => {
      this.queue.push({ id: this.nextId++, bytes, opts, onStep, signal, resolve, reject });
      this.pump();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.queue.splice(0)) t.reject(new Error('parser pool is closed'));
    await Promise.all(
      this.slots.map(
        (s) =>
          new Promise<void>((done) => {
            if (s.child.exitCode !== null || s.child.signalCode !== null) return done();
            s.child.once('exit', () => done());
            s.verdict ??= new Error('parser pool is closed');
            s.child.kill('SIGKILL');
          }),
      ),
    );
  }

  private spawn(): Slot {
    const child = fork(this.script, [], {
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      // the V8 heap is bounded too; WASM memory is what the RSS poll catches
      execArgv: [`--max-old-space-size=${this.opts.maxRssMb}`],
    });
    let markReady: () => void = () => undefined;
    const slot: Slot = {
      child,
      ready: new Promise<void>((r) => (markReady = r)),
      task: null,
      timer: null,
      poll: null,
      verdict: null,
      onAbort: null,
      loaded: false,
    };
    child.on('message', (m: ChildMessage) => {
      if (m.type === 'ready') {
        slot.loaded = true;
        markReady();
        this.pump();
        return;
      }
      const task = slot.task;
      if (!task || m.id !== task.id) return;
      if (m.type === 'step') task.onStep?.(m.step);
      else if (m.type === 'result') this.finish(slot, () => task.resolve(m.result));
      else if (m.type === 'error')
        this.finish(slot, () => task.reject(m.code ? new StatementError(m.code, m.message) : new StatementError('corrupt', m.message)));
    });
    child.on('error', () => undefined); // 'exit' follows and handles it
    child.on('exit', (code, signal) => {
      markReady();
      const index = this.slots.indexOf(slot);
      const task = slot.task;
      const why = slot.verdict ?? new ParserCrashedError(`parser process exited unexpectedly (${signal ?? `code ${code}`})`);
      if (task) this.finish(slot, () => task.reject(why), false);
      if (index >= 0 && !this.closed) {
        this.restarts++;
        this.emit('restart', why);
        const replace = () => {
          if (this.closed || this.slots[index] !== slot) return;
          this.slots[index] = this.spawn();
          this.pump();
        };
        // a child that died before loading the parser (broken install) is not respawned in a tight loop
        if (slot.loaded) replace();
        else setTimeout(replace, 1000).unref();
      }
      this.pump();
    });
    return slot;
  }

  private pump(): void {
    for (const slot of this.slots) {
      if (!this.queue.length) return;
      if (slot.task || slot.verdict || !slot.child.connected) continue;
      void slot.ready.then(() => this.assign(slot)); // ready only ever resolves
    }
  }

  private assign(slot: Slot): void {
    if (slot.task || slot.verdict || !slot.child.connected) return;
    const task = this.queue.shift();
    if (!task) return;
    if (task.signal?.aborted) {
      task.reject(task.signal.reason ?? new Error('aborted'));
      return this.pump();
    }
    slot.task = task;
    const kill = (why: Error) => {
      if (slot.verdict) return;
      slot.verdict = why;
      slot.child.kill('SIGKILL');
    };
    slot.timer = setTimeout(
      () => kill(new StatementError('too_large', `processing exceeded ${this.opts.timeoutMs} ms`)),
      this.opts.timeoutMs,
    );
    const limit = this.opts.maxRssMb * 1024 * 1024;
    const pid = slot.child.pid!;
    const poll = async () => {
      const rss = await processRss(pid);
      if (slot.task !== task) return;
      if (rss !== null && rss > limit)
        return kill(new StatementError('too_large', `processing used more than ${this.opts.maxRssMb} MB of memory`));
      slot.poll = setTimeout(() => void poll(), this.opts.memoryPollMs ?? 50);
    };
    slot.poll = setTimeout(() => void poll(), this.opts.memoryPollMs ?? 50);
    if (task.signal) {
      slot.onAbort = () => kill((task.signal!.reason as Error) ?? new Error('aborted'));
      task.signal.addEventListener('abort', slot.onAbort, { once: true });
    }
    const message: ParentMessage = { type: 'parse', id: task.id, bytes: task.bytes, opts: task.opts };
    slot.child.send(message, (err) => {
      if (err) kill(new ParserCrashedError(`cannot reach the parser process: ${err.message}`));
    });
  }

  private finish(slot: Slot, settle: () => void, next = true): void {
    if (slot.timer) clearTimeout(slot.timer);
    if (slot.poll) clearTimeout(slot.poll);
    if (slot.onAbort) slot.task?.signal?.removeEventListener('abort', slot.onAbort);
    slot.timer = slot.poll = slot.onAbort = null;
    slot.task = null;
    settle();
    if (!next) return;
    // WASM memory never shrinks: a child left large by one document is replaced while idle
    // (processRss never rejects: an unreadable /proc entry is null)
    void processRss(slot.child.pid!).then((rss) => {
      if (rss !== null && rss > (this.opts.maxRssMb * 1024 * 1024) / 2 && !slot.task && !slot.verdict) {
        slot.verdict = new Error('recycled');
        slot.child.kill('SIGKILL');
      } else this.pump();
    });
  }
}
