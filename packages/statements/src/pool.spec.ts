import { execSync, spawn } from 'child_process';
import * as os from 'os';
import * as fs from 'fs';
import * as path from 'path';
import * as zlib from 'zlib';
import { makePdf, rows } from './__fixtures__/make-pdf';
import { decodeBounded } from './open';
import { ParserCrashedError, ParserPool, processRss } from './pool';
import { parseStatementFile, StatementError } from './index';
import { multiFilterBomb, nestedXObjects, pngBomb } from '../../../tools/corpus/hostile';

const root = path.join(__dirname, '..');
const workerScript = path.join(root, 'dist', 'worker.js');

const statement = () =>
  makePdf([
    [
      { x: 40, y: 40, text: 'Pool Test Bank', size: 14 },
      { x: 40, y: 55, text: 'Statement Period: 03/01/2025 - 03/31/2025' },
      { x: 40, y: 68, text: 'Beginning Balance 10.00' },
      { x: 40, y: 81, text: 'Ending Balance 15.00' },
      ...rows(
        [
          ['Date', 'Description', 'Amount', 'Balance'],
          ['03/02', 'Deposit', '5.00', '15.00'],
        ],
        [40, 100, -470, -560],
        110,
      ),
    ],
  ]);

describe('ParserPool (child processes, hard time and memory limits)', () => {
  let pool: ParserPool;
  beforeAll(async () => {
    if (!fs.existsSync(workerScript)) execSync('npx tsc -b .', { cwd: root, stdio: 'ignore' });
    pool = new ParserPool({ size: 1, timeoutMs: 3000, maxRssMb: 400, workerScript });
    await pool.ready();
  });
  afterAll(() => pool?.close());

  it('returns what in-process parsing returns and forwards steps, in a warm child', async () => {
    const bytes = await statement();
    const steps: string[] = [];
    const pid = pool.pids()[0];
    const r = await pool.parse(bytes, { onStep: (s) => steps.push(s) });
    expect(r.transactions).toEqual((await parseStatementFile(bytes)).transactions);
    expect(steps).toEqual(expect.arrayContaining(['extracting_text', 'classifying']));
    await pool.parse(bytes);
    expect(pool.pids()).toEqual([pid]);
    await expect(pool.parse(new Uint8Array(0))).rejects.toMatchObject({ code: 'blank' });
  });

  it('kills a child stuck in a synchronous mupdf call at the time limit and serves the next document', async () => {
    const before = pool.pids()[0];
    // the page guard is lifted so that mupdf itself runs into 1e15 nested draws
    const err = await pool
      .parse(nestedXObjects(), { limits: { maxFormDraws: Number.MAX_SAFE_INTEGER, maxFormDepth: 100, pageTimeMs: 1e9, totalTimeMs: 1e9 } })
      .catch((e) => e);
    expect(err).toBeInstanceOf(StatementError);
    expect(err.message).toBe('processing exceeded 3000 ms');
    expect(pool.pids()[0]).not.toBe(before);
    expect((await pool.parse(await statement())).transactions).toHaveLength(1);
  });

  it('kills a child whose memory passes the limit', async () => {
    const small = new ParserPool({ size: 1, timeoutMs: 60_000, maxRssMb: 200, workerScript });
    try {
      await small.ready();
      // a 400-megapixel PNG, guard lifted: mupdf decodes it in WASM memory until the pool kills it
      const err = await small.parse(pngBomb(), { limits: { maxImagePixels: Number.MAX_SAFE_INTEGER } }).catch((e) => e);
      expect(err).toBeInstanceOf(StatementError);
      expect(err.message).toBe('processing used more than 200 MB of memory');
      expect(small.restarts).toBe(1);
    } finally {
      await small.close();
    }
  });

  it('reports a child killed from outside as a crash (retryable), and replaces it', async () => {
    const bytes = nestedXObjects();
    const pending = pool.parse(bytes, { limits: { maxFormDraws: Number.MAX_SAFE_INTEGER, maxFormDepth: 100 } }).catch((e) => e);
    await new Promise((r) => setTimeout(r, 300));
    process.kill(pool.pids()[0], 'SIGKILL');
    const err = await pending;
    expect(err).toBeInstanceOf(ParserCrashedError);
    await pool.ready();
    expect(await processRss(pool.pids()[0])).toBeGreaterThan(0);
    expect((await pool.parse(await statement())).transactions).toHaveLength(1);
  });
});

describe('a parser process whose parent dies', () => {
  it('dies too, even while mupdf holds it in a synchronous call', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'll-pool-orphan-'));
    const file = path.join(dir, 'nested.pdf');
    fs.writeFileSync(file, nestedXObjects());
    const lifted = { maxFormDraws: Number.MAX_SAFE_INTEGER, maxFormDepth: 100, pageTimeMs: 1e9, totalTimeMs: 1e9 };
    const script = `
      const { ParserPool } = require(${JSON.stringify(path.join(root, 'dist', 'pool.js'))});
      const pool = new ParserPool({ size: 1, timeoutMs: 600000, maxRssMb: 2048, workerScript: ${JSON.stringify(workerScript)} });
      pool.ready().then(() => {
        pool.parse(require('fs').readFileSync(${JSON.stringify(file)}), { limits: ${JSON.stringify(lifted)} }).catch(() => {});
        setTimeout(() => process.stdout.write(pool.pids()[0] + '\\n'), 500);
      });`;
    const parent = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    const childPid = await new Promise<number>((resolve) => parent.stdout!.once('data', (d: Buffer) => resolve(Number(String(d).trim()))));
    // a killed orphan may stay a zombie until its new parent reaps it: that counts as dead
    const alive = (pid: number) => {
      try {
        return fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z';
      } catch {
        return false;
      }
    };
    try {
      expect(alive(childPid)).toBe(true);
      await new Promise<void>((resolve) => {
        parent.once('exit', () => resolve());
        parent.kill('SIGKILL');
      });
      const deadline = Date.now() + 10_000;
      while (alive(childPid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(alive(childPid)).toBe(false);
    } finally {
      if (alive(childPid)) process.kill(childPid, 'SIGKILL');
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('page guard (compression bombs and nested forms, before mupdf runs)', () => {
  it('decodes filter chains with a cap at every stage', () => {
    const inner = zlib.deflateSync(Buffer.alloc(10_000, 0x41));
    const twice = zlib.deflateSync(inner);
    expect(decodeBounded(twice, ['FlateDecode', 'FlateDecode'], 20_000)!.length).toBe(10_000);
    expect(() => decodeBounded(twice, ['FlateDecode', 'FlateDecode'], 5_000)).toThrow();
    const hex = Buffer.from(inner.toString('hex') + '>');
    expect(decodeBounded(hex, ['AHx', 'Fl'], 20_000)!.length).toBe(10_000);
    expect(decodeBounded(Buffer.from([2, 65, 66, 67, 0xfe, 68, 128]), ['RunLengthDecode'], 100)!.toString()).toBe('ABCDDD');
    expect(decodeBounded(Buffer.from('87cURD]i,"Ebo80~>'), ['ASCII85Decode'], 100)!.toString()).toBe('Hello World!');
    expect(decodeBounded(Buffer.from('x'), ['DCTDecode'], 100)).toBeNull();
  });

  it('fails a 4 GiB double-flate stream and 5 levels x 1,000 nested form draws before mupdf draws them', async () => {
    await expect(parseStatementFile(multiFilterBomb())).rejects.toMatchObject({
      code: 'too_large',
      message: expect.stringMatching(/compression bomb/),
    });
    // without the guard this parse does not return (1e15 draws in one synchronous mupdf call)
    await expect(parseStatementFile(nestedXObjects())).rejects.toMatchObject({
      code: 'too_large',
      message: expect.stringMatching(/XObject draws/),
    });
  });
});
