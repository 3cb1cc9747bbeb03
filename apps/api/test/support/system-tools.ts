import { execFileSync } from 'node:child_process';

/**
 * System programs some suites drive, and the Debian package each comes from. `npm test` on a
 * machine without one skips those suites and says so in one line; `.ci/run` installs them all
 * and sets LEDGERLENS_REQUIRE_SYSTEM_TOOLS=1, which turns a missing one into a failed run.
 */
export const SYSTEM_TOOLS = {
  chromium: { apt: 'chromium', usedBy: 'the share-page browser tests' },
  caddy: { apt: 'caddy', usedBy: 'the scale topology (npm run test:scale)' },
  openssl: { apt: 'openssl', usedBy: 'the native TLS tests' },
} as const;

export type SystemTool = keyof typeof SYSTEM_TOOLS;

const found = new Map<SystemTool, string | null>();

/** The program's absolute path on the given PATH, or null. */
export function lookUp(name: string, path = process.env.PATH ?? ''): string | null {
  try {
    return execFileSync('/bin/sh', ['-c', `command -v ${name}`], { encoding: 'utf8', env: { PATH: path } }).trim() || null;
  } catch {
    return null;
  }
}

/** The program's absolute path on PATH, or null (looked up once per process). */
export function systemTool(name: SystemTool): string | null {
  if (!found.has(name)) found.set(name, lookUp(name));
  return found.get(name) ?? null;
}

export const systemToolsRequired = (): boolean => process.env.LEDGERLENS_REQUIRE_SYSTEM_TOOLS === '1';

/** The one line printed for a missing program. */
export function missingLine(name: SystemTool): string {
  const tool = SYSTEM_TOOLS[name];
  return `skipping ${tool.usedBy}: ${name} is not installed (Debian: apt-get install ${tool.apt}, or npm run setup:system as root)`;
}

/**
 * `describe` when the program is there, `describe.skip` when it is not (a failure instead when
 * LEDGERLENS_REQUIRE_SYSTEM_TOOLS=1). The line naming what is missing is printed once per run by
 * the global setup (see reportMissingSystemTools), not once per suite.
 */
export function describeWith(name: SystemTool): jest.Describe {
  if (systemTool(name) || systemToolsRequired()) return describe;
  return describe.skip;
}

/** Called by the global setup: one line per missing program, or an error when they are required. */
export function reportMissingSystemTools(names: SystemTool[] = Object.keys(SYSTEM_TOOLS) as SystemTool[]): void {
  const missing = names.filter((n) => !systemTool(n));
  if (missing.length === 0) return;
  if (systemToolsRequired()) {
    throw new Error(
      `LEDGERLENS_REQUIRE_SYSTEM_TOOLS=1 and missing: ${missing.join(', ')} (apt-get install ${missing.map((n) => SYSTEM_TOOLS[n].apt).join(' ')})`,
    );
  }
  for (const name of missing) process.stderr.write(`${missingLine(name)}\n`);
}
