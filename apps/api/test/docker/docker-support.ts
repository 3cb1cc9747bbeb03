import { spawn, spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';

/**
 * What the docker suites (`npm run test:docker`) share: one private Docker engine, that of
 * tools/docker/engine.sh (own data root, host networking only, so every request stays on
 * 127.0.0.1), started once per process and left running for the next suite (CI stops it at the
 * end). Where no engine can start (no dockerd, not root, a kernel without what containers need),
 * the suites are skipped with one line saying why; LEDGERLENS_REQUIRE_DOCKER=1 makes that a failure.
 */
export const ROOT = resolve(__dirname, '../../../..');
export const DEVSET = resolve(ROOT, '..', 'shared', 'statements-devset');
export const MB = 1024 * 1024;

const engine = spawnSync('bash', [join(ROOT, 'tools/docker/engine.sh'), 'start'], { encoding: 'utf8' });
export const dockerHost = /DOCKER_HOST=(\S+)/.exec(engine.stdout ?? '')?.[1] ?? '';
if (!dockerHost) {
  const why = (engine.stderr || engine.stdout || 'tools/docker/engine.sh failed').trim().split('\n').pop();
  if (process.env.LEDGERLENS_REQUIRE_DOCKER === '1')
    throw new Error(`LEDGERLENS_REQUIRE_DOCKER=1 and no Docker engine could start: ${why}`);
  process.stderr.write(`skipping the docker suite: no Docker engine could start here (${why})\n`);
}
export const withEngine = dockerHost ? describe : describe.skip;

export interface Run {
  code: number;
  out: string;
}

const dockerEnv = (env: Record<string, string>) => ({ ...process.env, DOCKER_HOST: dockerHost, DOCKER_BUILDKIT: '0', ...env });

export function run(cmd: string, args: string[], env: Record<string, string> = {}, input?: string): Run {
  const res = spawnSync(cmd, args, { cwd: ROOT, env: dockerEnv(env), encoding: 'utf8', input, maxBuffer: 256 * MB });
  return { code: res.status ?? -1, out: `${res.stdout ?? ''}${res.stderr ?? ''}` };
}

export function must(cmd: string, args: string[], env: Record<string, string> = {}, input?: string): string {
  const res = run(cmd, args, env, input);
  if (res.code !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${res.code}:\n${res.out.slice(-4000)}`);
  return res.out;
}

/** A long command (a build, compose up), its output streamed into a string; rejects on a non-zero exit. */
export function runLong(cmd: string, args: string[], env: Record<string, string> = {}): Promise<string> {
  return new Promise((res, rej) => {
    const child = spawn(cmd, args, { cwd: ROOT, env: dockerEnv(env) });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    child.on('error', rej);
    child.on('exit', (code) => (code === 0 ? res(out) : rej(new Error(`${cmd} ${args.join(' ')} exited ${code}:\n${out.slice(-4000)}`))));
  });
}

export async function waitFor<T>(what: string, probe: () => Promise<T | null | undefined> | T | null | undefined, ms: number): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
