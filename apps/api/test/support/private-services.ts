import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A PostgreSQL and a Redis of a test's own, on free ports, that the test may kill and restart
 * (the machine's shared services are used by other runs at the same time and are never touched).
 */

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** The PostgreSQL server binaries of this machine (Debian layout), or null. */
export function postgresBin(): string | null {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'pg_ctl')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length ? join(root, versions[0], 'bin') : null;
}

export function redisServerBin(): string | null {
  try {
    return execFileSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' }).trim() || null;
  } catch {
    return null;
  }
}

/** PostgreSQL refuses to run as root: as root, its commands run as the `postgres` system user. */
function asPostgresUser(cmd: string, args: string[]): [string, string[]] {
  return process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args];
}

export class PrivatePostgres {
  private constructor(
    readonly port: number,
    private readonly bin: string,
    private readonly dir: string,
  ) {}

  static async start(): Promise<PrivatePostgres> {
    const bin = postgresBin();
    if (!bin) throw new Error('PostgreSQL binaries not found under /usr/lib/postgresql');
    const dir = mkdtempSync(join(tmpdir(), 'ledgerlens-chaos-pg-'));
    if (process.getuid?.() === 0) {
      const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }));
      const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }));
      chownSync(dir, uid, gid);
    }
    const [cmd, args] = asPostgresUser(join(bin, 'initdb'), [
      '-D',
      join(dir, 'data'),
      '-U',
      'postgres',
      '-A',
      'trust',
      '--no-sync',
      '-E',
      'UTF8',
    ]);
    execFileSync(cmd, args, { stdio: 'ignore' });
    const pg = new PrivatePostgres(await freePort(), bin, dir);
    pg.ctl('start');
    return pg;
  }

  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  private ctl(action: 'start' | 'stop' | 'restart', mode = 'fast'): void {
    const opts = `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=60`;
    const [cmd, args] = asPostgresUser(join(this.bin, 'pg_ctl'), [
      '-D',
      join(this.dir, 'data'),
      '-l',
      join(this.dir, 'log'),
      '-o',
      opts,
      '-w',
      '-t',
      '60',
      '-m',
      mode,
      action,
    ]);
    execFileSync(cmd, args, { stdio: 'ignore' });
  }

  /** Fast shutdown (every connection is cut) and start again on the same port and data. */
  restart(): void {
    this.ctl('restart');
  }

  stop(): void {
    try {
      this.ctl('stop', 'immediate');
    } catch {
      /* already stopped */
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

export class PrivateRedis {
  private proc: ChildProcess | null = null;

  private constructor(
    readonly port: number,
    private readonly dir: string,
  ) {}

  static async start(): Promise<PrivateRedis> {
    if (!redisServerBin()) throw new Error('redis-server not found');
    const r = new PrivateRedis(await freePort(), mkdtempSync(join(tmpdir(), 'ledgerlens-chaos-redis-')));
    await r.launch();
    return r;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Append-only file on, as a BullMQ deployment runs it: queued jobs survive a restart. */
  private launch(): Promise<void> {
    const proc = spawn(
      'redis-server',
      [
        '--port',
        String(this.port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'yes',
        '--appendfsync',
        'always',
        '--dir',
        this.dir,
      ],
      { stdio: ['ignore', 'pipe', 'ignore'] },
    );
    this.proc = proc;
    return new Promise((resolve, reject) => {
      let out = '';
      proc.stdout!.on('data', (c: Buffer) => {
        out += c.toString();
        if (out.includes('Ready to accept connections')) resolve();
      });
      proc.once('exit', (code) => reject(new Error(`redis-server exited (${code}): ${out.slice(-500)}`)));
    });
  }

  async restart(): Promise<void> {
    await this.halt();
    await this.launch();
  }

  private async halt(): Promise<void> {
    const proc = this.proc;
    if (!proc || proc.exitCode !== null) return;
    proc.removeAllListeners('exit');
    await new Promise<void>((r) => {
      proc.once('exit', () => r());
      proc.kill('SIGTERM');
    });
  }

  async stop(): Promise<void> {
    await this.halt();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
