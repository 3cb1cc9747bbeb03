import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * A newcomer's first minutes: a fresh clone of this repository (its committed HEAD), `npm ci`
 * (not timed: the README's install step), then `npm start` timed from the command to the first
 * 200 from /health on an empty embedded database (target <= 15 s), then stopped and started
 * again on the same clone and data (warm start, target <= 3 s). Exits non-zero above either
 * target, or when the first start prints nothing for 8 s (the build prints its progress; the server says it is starting before it opens the database).
 */
const FIRST_TARGET_S = 15;
const WARM_TARGET_S = 3;
const SILENCE_LIMIT_S = 8;

const repo = resolve(__dirname, '../../..');

interface Start {
  seconds: number;
  longestSilence: number;
  output: string;
}

async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.once('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => res(port));
    });
  });
}

async function timeStart(dir: string, port: number): Promise<Start> {
  const t0 = performance.now();
  const child = spawn('npm', ['start'], {
    cwd: dir,
    env: { ...process.env, PORT: String(port), DATA_DIR: join(dir, '.data'), LOG_LEVEL: 'warn', NODE_ENV: 'development' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  let lastOutput = t0;
  let longestSilence = 0;
  const onData = (chunk: Buffer) => {
    const now = performance.now();
    longestSilence = Math.max(longestSilence, (now - lastOutput) / 1000);
    lastOutput = now;
    output += chunk.toString();
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  let exited = false;
  child.on('exit', () => (exited = true));
  try {
    for (;;) {
      if (exited) throw new Error(`npm start exited before it served /health:\n${output}`);
      if ((performance.now() - t0) / 1000 > 120) throw new Error(`no healthy server after 120 s:\n${output}`);
      const ok = await fetch(`http://127.0.0.1:${port}/health`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    return { seconds: (performance.now() - t0) / 1000, longestSilence, output };
  } finally {
    if (!exited) {
      const gone = new Promise((r) => child.once('exit', r));
      process.kill(-child.pid!, 'SIGTERM');
      await gone;
    }
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'ledgerlens-first-start-'));
  try {
    const run = (cmd: string, args: string[], cwd = dir) => {
      const res = spawnSync(cmd, args, { cwd, stdio: ['ignore', 'ignore', 'inherit'] });
      if (res.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed`);
    };
    run('git', ['clone', '--quiet', repo, dir], repo);
    process.stdout.write(`first-start: fresh clone in ${dir}; npm ci (not timed) ...\n`);
    run('npm', ['ci', '--no-audit', '--no-fund', '--prefer-offline']);
    const port = await freePort();
    const first = await timeStart(dir, port);
    const warm = await timeStart(dir, port);
    const progress = first.output.split('\n').find((l) => l.startsWith('building the server'));
    const firstOk = first.seconds <= FIRST_TARGET_S;
    const warmOk = warm.seconds <= WARM_TARGET_S;
    const quietOk = first.longestSilence <= SILENCE_LIMIT_S;
    process.stdout.write(
      `first-start: first start ${first.seconds.toFixed(1)} s to a healthy server (target <= ${FIRST_TARGET_S} s), ` +
        `longest silence ${first.longestSilence.toFixed(1)} s (limit ${SILENCE_LIMIT_S} s), progress line: ${progress ? JSON.stringify(progress) : 'none'}; ` +
        `warm start ${warm.seconds.toFixed(1)} s (target <= ${WARM_TARGET_S} s); load ${loadavg()[0].toFixed(1)}: ` +
        `${firstOk && warmOk && quietOk && progress ? 'PASS' : 'FAIL'}\n`,
    );
    if (!firstOk || !warmOk || !quietOk || !progress) process.exit(1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
