/**
 * Breaking-change check of the API contract: openapi/openapi.json as committed at HEAD is compared
 * with the version at the commit named in openapi/compat.json (`since`: the contract integrators
 * were given last), and the working tree with HEAD. A breaking difference (a removed operation, a new required
 * parameter, a response field no longer required, a narrowed type, ...: api-smart-diff's rules)
 * fails unless openapi/compat.json lists it as intended, with a reason.
 *
 *   npm run openapi:breaking            # exit 1 on an unlisted breaking change
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { apiCompare } from 'api-smart-diff';

export interface IntendedChange {
  /** Prefix of the difference's location in the document, e.g. ["paths", "/v1/deals/stats", "get"]. */
  path: (string | number)[];
  /** Why the break is accepted (shown in the report). */
  reason: string;
}

export interface CompatConfig {
  /** Commit whose contract is the baseline (move it forward when a release accepts the breaks listed). */
  since: string;
  intended: IntendedChange[];
}

export interface BreakingChange {
  path: (string | number)[];
  action: string;
  description: string;
  intended: IntendedChange | null;
}

/** The breaking differences from `before` to `after`, each with the listing that accepts it (or null). */
export function breakingChanges(before: object, after: object, intended: IntendedChange[] = []): BreakingChange[] {
  const { diffs } = apiCompare(before, after);
  // Only operations count: a component schema is seen through the requests and responses that
  // use it (api-smart-diff resolves the $refs there, knowing the direction), while at the
  // component level a new required field is "breaking" even when only responses carry it.
  return diffs
    .filter((d) => d.type === 'breaking' && d.path?.[0] === 'paths')
    .map((d) => {
      const path = (d.path ?? []) as (string | number)[];
      const match = intended.find((i) => i.path.length <= path.length && i.path.every((p, k) => String(p) === String(path[k]))) ?? null;
      return { path, action: String(d.action), description: String(d.description ?? ''), intended: match };
    });
}

function git(args: string[], cwd: string): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, stdio: ['ignore', 'pipe', 'pipe'] });
}

function main(): number {
  const root = resolve(__dirname, '../../..'); // tools/dist/contract
  const file = 'openapi/openapi.json';
  const config = JSON.parse(readFileSync(resolve(root, 'openapi/compat.json'), 'utf8')) as CompatConfig;
  const at = (rev: string): object => JSON.parse(git(['show', `${rev}:${file}`], root));
  try {
    git(['cat-file', '-e', `${config.since}^{commit}`], root);
  } catch {
    console.error(`openapi:breaking: commit ${config.since} (openapi/compat.json "since") is not in this clone; fetch the full history`);
    return 1;
  }
  // the contract at `since` against the last commit: what an integrator of that version meets now
  const pairs: { label: string; before: () => object; after: () => object }[] = [];
  if (git(['rev-parse', `${config.since}^{commit}`], root).trim() !== git(['rev-parse', 'HEAD'], root).trim()) {
    pairs.push({ label: `${config.since.slice(0, 10)} -> HEAD`, before: () => at(config.since), after: () => at('HEAD') });
  }
  // and the working tree against the last commit, while you change the API
  const working = readFileSync(resolve(root, file), 'utf8');
  if (working !== git(['show', `HEAD:${file}`], root)) {
    pairs.push({ label: 'HEAD -> working tree', before: () => at('HEAD'), after: () => JSON.parse(working) });
  }
  let unlisted = 0;
  let listed = 0;
  for (const pair of pairs) {
    const changes = breakingChanges(pair.before(), pair.after(), config.intended);
    const line = (c: BreakingChange) =>
      `    ${c.intended ? 'intended' : 'BREAKING'}  ${c.description || c.action} at ${JSON.stringify(c.path)}`;
    console.log(`${pair.label}: ${changes.length ? `${changes.length} breaking` : 'compatible'}`);
    for (const c of changes) {
      console.log(line(c));
      if (c.intended) {
        listed++;
        console.log(`              reason: ${c.intended.reason}`);
      } else unlisted++;
    }
  }
  console.log(`\n${file}: ${pairs.length} comparison(s), ${unlisted} unlisted breaking change(s), ${listed} listed as intended`);
  if (unlisted)
    console.log(
      'List an intended break in openapi/compat.json ("intended": [{ "path": [...], "reason": "..." }]) or restore compatibility.',
    );
  return unlisted ? 1 : 0;
}

if (require.main === module) process.exit(main());
