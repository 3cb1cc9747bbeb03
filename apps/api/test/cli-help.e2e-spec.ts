import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const repo = resolve(__dirname, '../../..');
const cli = (args: string[]) => run(process.execPath, [resolve(repo, 'apps/api/dist/cli.js'), ...args], { cwd: repo });
const statements = (args: string[]) => run(process.execPath, [resolve(repo, 'tools/dist/cli/statements.js'), ...args], { cwd: repo });

/** `--help` answers for every command of both CLIs (exit 0, on stdout), from the built files as a user runs them. */
describe('CLI --help', () => {
  // every command the admin CLI dispatches on, read from its source: a new command without help fails here
  const commands = [...readFileSync(resolve(repo, 'apps/api/src/cli.ts'), 'utf8').matchAll(/^\s+case '([a-z:]+)':/gm)].map((m) => m[1]);

  it('lists every command', async () => {
    expect(commands).toEqual(expect.arrayContaining(['bootstrap', 'user:create', 'documents:add', 'migrate', 'openapi']));
    const { stdout } = await cli(['--help']);
    for (const c of commands) expect(stdout).toContain(`  ${c} `.replace(/ $/, ''));
  });

  it.each(['bootstrap', 'user:create', 'documents:add', 'migrate', 'openapi'])(
    '%s --help: synopsis, description and an example',
    async (c) => {
      const { stdout } = await cli([c, '--help']);
      expect(stdout).toMatch(new RegExp(`^Usage: npm run cli -- ${c}\\b`));
      expect(stdout).toContain('Example:');
    },
  );

  it('an unknown command is a usage error (exit 1, on stderr)', async () => {
    const err = (await cli(['nope']).catch((e: unknown) => e)) as { code: number; stderr: string };
    expect(err.code).toBe(1);
    expect(err.stderr).toContain('Unknown command: nope');
  });

  it('statements --help and statements parse --help', async () => {
    expect((await statements(['--help'])).stdout).toContain('statements analyze FILE... --funding N');
    expect((await statements(['parse', '--help'])).stdout).toContain('--no-ocr');
    expect((await statements(['analyze', '--help'])).stdout).toContain('usage: statements analyze');
  });
});
