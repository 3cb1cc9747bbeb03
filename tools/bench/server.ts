import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const MAIN = resolve(__dirname, '../../../apps/api/dist/main.js');

export interface BenchServer {
  proc: ChildProcess;
  url: string;
  /** The demo organization's live API key, printed at first start. */
  key: string;
  /** The demo admin's password (admin@demo.local), printed at first start. */
  password: string;
  dir: string;
}

/**
 * The built server on a fresh embedded database (DATA_DIR in a temp folder), demo bootstrap on;
 * or, with `dir`, on a data directory prepared beforehand (e.g. by the CLI), without the demo
 * (`key` and `password` are then empty).
 */
export async function startServer(env: Record<string, string>, options: { dir?: string } = {}): Promise<BenchServer> {
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'ledgerlens-bench-'));
  const proc = spawn(process.execPath, [MAIN], {
    env: {
      ...process.env,
      DATA_DIR: dir,
      PORT: '0',
      NODE_ENV: 'development',
      DEMO_BOOTSTRAP: options.dir ? 'false' : 'true',
      DATABASE_URL: '',
      REDIS_URL: '',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  return new Promise((resolvePromise, reject) => {
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
      const key = /live API key:\s+(\S+)/.exec(out)?.[1];
      const password = /admin login:\s+\S+ \/ (\S+)/.exec(out)?.[1] ?? '';
      if (url && (key || options.dir)) resolvePromise({ proc, url, key: key ?? '', password, dir });
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    proc.on('exit', (code) => reject(new Error(`server exited (${code}): ${out}`)));
  });
}

export async function stopServer(server: BenchServer): Promise<void> {
  server.proc.removeAllListeners('exit');
  await new Promise<void>((r) => {
    server.proc.on('exit', () => r());
    server.proc.kill('SIGTERM');
  });
  rmSync(server.dir, { recursive: true, force: true });
}
