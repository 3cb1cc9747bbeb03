import { execFileSync } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { BATCHED_DESTINATION, batchedDestination, LOG_BATCH_BYTES, LOG_FLUSH_MS } from './logger';

/** Resolves once `file` holds `lines` lines, or rejects after `ms`. */
async function linesIn(file: string, lines: number, ms: number): Promise<string[]> {
  const deadline = Date.now() + ms;
  for (;;) {
    const got = readFileSync(file, 'utf8').split('\n').filter(Boolean);
    if (got.length >= lines) return got;
    if (Date.now() > deadline) throw new Error(`${got.length} of ${lines} lines after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('batchedDestination (the server log)', () => {
  let dir: string;
  let file: string;
  let fd: number;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'll-log-'));
    file = join(dir, 'out.log');
    fd = openSync(file, 'w');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** Ends the destination (it closes the file) once its writes are done. */
  const end = (dest: ReturnType<typeof batchedDestination>) =>
    new Promise<void>((resolve) => {
      const stream = dest as unknown as NodeJS.EventEmitter & { end(): void };
      stream.once('close', () => resolve());
      stream.end();
    });

  it('writes a lone short line within the flush interval when nothing else comes', async () => {
    const dest = batchedDestination(fd);
    const log = pino({ base: null }, dest);
    log.info({ n: 1 }, 'request completed');
    // far below a batch: only the flush timer writes it
    const [line] = await linesIn(file, 1, LOG_FLUSH_MS * 20);
    expect(JSON.parse(line)).toMatchObject({ n: 1, msg: 'request completed' });
    await end(dest);
  });

  it('writes every line of a burst larger than a batch, in order', async () => {
    const dest = batchedDestination(fd);
    const log = pino({ base: null }, dest);
    const count = Math.ceil((LOG_BATCH_BYTES * 3) / 60);
    for (let n = 0; n < count; n++) log.info({ n }, 'request completed');
    const lines = await linesIn(file, count, LOG_FLUSH_MS * 20);
    expect(lines.map((l) => (JSON.parse(l) as { n: number }).n)).toEqual(Array.from({ length: count }, (_, n) => n));
    await end(dest);
  });

  it('loses no buffered line when the process exits', () => {
    // a child process with the same destination options logs one line and exits at once
    const script = `const pino = require(${JSON.stringify(require.resolve('pino'))});
      const log = pino({ base: null }, pino.destination({ dest: 1, ...${JSON.stringify(BATCHED_DESTINATION)} }));
      log.info({ last: true }, 'shutting down');
      process.exit(0);`;
    const out = execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    expect(JSON.parse(out.trim())).toMatchObject({ last: true, msg: 'shutting down' });
  });
});
