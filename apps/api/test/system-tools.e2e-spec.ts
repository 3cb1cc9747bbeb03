import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { lookUp, missingLine } from './support/system-tools';

/**
 * A fresh machine without Debian's chromium or openssl: the suites that drive them are skipped
 * with one line naming the package, and LEDGERLENS_REQUIRE_SYSTEM_TOOLS=1 (CI) fails instead.
 */
describe('system programs the suites need', () => {
  let bin: string;
  beforeAll(() => {
    bin = mkdtempSync(join(tmpdir(), 'ledgerlens-path-'));
  });
  afterAll(() => rmSync(bin, { recursive: true, force: true }));

  it('finds a program on PATH and reports its absence', () => {
    expect(lookUp('chromium', bin)).toBeNull();
    writeFileSync(join(bin, 'chromium'), '#!/bin/sh\nexit 0\n');
    chmodSync(join(bin, 'chromium'), 0o755);
    expect(lookUp('chromium', bin)).toBe(join(bin, 'chromium'));
    expect(missingLine('chromium')).toBe(
      'skipping the share-page browser tests: chromium is not installed (Debian: apt-get install chromium, or npm run setup:system as root)',
    );
  });

  /** jest itself, run on one small suite with a PATH that has node and the shell tools but no openssl. */
  function runTlsSuite(env: Record<string, string>): { code: number; out: string } {
    const path = mkdtempSync(join(tmpdir(), 'ledgerlens-path-'));
    try {
      for (const tool of ['sh', 'env', 'node']) {
        const found = tool === 'node' ? process.execPath : lookUp(tool);
        if (found) symlinkSync(found, join(path, tool));
      }
      const root = resolve(__dirname, '../../..');
      const res = spawnSync(
        process.execPath,
        [join(root, 'node_modules/jest/bin/jest.js'), '--ci', '--runTestsByPath', join(__dirname, 'tls.e2e-spec.ts')],
        { cwd: root, env: { ...env, PATH: path, HOME: tmpdir() }, encoding: 'utf8' },
      );
      return { code: res.status ?? -1, out: `${res.stdout}${res.stderr}` };
    } finally {
      rmSync(path, { recursive: true, force: true });
    }
  }

  it('skips a suite whose program is missing with one line naming the package, and fails when CI requires it', () => {
    const skipped = runTlsSuite({ NODE_OPTIONS: '--experimental-vm-modules' });
    expect(skipped.out).toContain('skipping the native TLS tests: openssl is not installed (Debian: apt-get install openssl');
    expect(skipped.out.match(/skipping the native TLS tests/g)).toHaveLength(1);
    expect(skipped.out).toMatch(/Tests:\s+\d+ skipped, \d+ total/);
    expect(skipped.code).toBe(0);
    const required = runTlsSuite({ NODE_OPTIONS: '--experimental-vm-modules', LEDGERLENS_REQUIRE_SYSTEM_TOOLS: '1' });
    expect(required.code).not.toBe(0);
    expect(required.out).toMatch(/LEDGERLENS_REQUIRE_SYSTEM_TOOLS=1 and missing: .*openssl/);
  }, 120_000);
});
