#!/usr/bin/env node
// Releases @ledgerlens/sdk and @ledgerlens/webhooks together (one version for both):
//   node tools/release/release.mjs <patch|minor|major|X.Y.Z> [--publish] [--skip-checks] [--root DIR] [--date YYYY-MM-DD]
// 1. bumps `version` in packages/{sdk,webhooks}/package.json and SDK_VERSION in packages/sdk/src/version.ts;
// 2. turns each CHANGELOG.md's `## Unreleased` into `## X.Y.Z (date)` under a new empty `## Unreleased`;
// 3. runs the checks (unless --skip-checks): the contract's generated files are current
//    (`npm run sdk:check`), both packages build, and `npm pack --dry-run` of each lists only the
//    build, the README, the licence and the changelog;
// 4. publishes (`npm publish`, public, with provenance from CI) only with --publish.
// Without --publish nothing leaves this machine: commit the bumped files and tag `vX.Y.Z` yourself.
// --root runs it on another checkout (the release test runs it on a copy).
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const flag = (name) => args.includes(name);
const option = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const root = resolve(option('--root') ?? join(dirname(fileURLToPath(import.meta.url)), '../..'));
const bump = args.find((a, i) => !a.startsWith('--') && !['--root', '--date'].includes(args[i - 1]));
const date = option('--date') ?? new Date().toISOString().slice(0, 10);
const PACKAGES = ['packages/sdk', 'packages/webhooks'];

function fail(message) {
  console.error(`release: ${message}`);
  process.exit(1);
}

if (!bump) fail('usage: release.mjs <patch|minor|major|X.Y.Z> [--publish] [--skip-checks] [--root DIR] [--date YYYY-MM-DD]');
if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) fail(`--date ${date} is not YYYY-MM-DD`);

const manifests = PACKAGES.map((dir) => ({
  dir,
  file: join(root, dir, 'package.json'),
  json: JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')),
}));
const current = manifests[0].json.version;
if (manifests.some((m) => m.json.version !== current))
  fail(`the packages are at different versions (${manifests.map((m) => m.json.version).join(', ')})`);

/** The next version after `version` for `kind` (or `kind` itself when it is a version). */
function nextVersion(version, kind) {
  if (/^\d+\.\d+\.\d+$/.test(kind)) return kind;
  const [major, minor, patch] = version.split('.').map(Number);
  if (kind === 'major') return `${major + 1}.0.0`;
  if (kind === 'minor') return `${major}.${minor + 1}.0`;
  if (kind === 'patch') return `${major}.${minor}.${patch + 1}`;
  return fail(`unknown bump ${kind}: patch, minor, major or X.Y.Z`);
}

const next = nextVersion(current, bump);
const cmp = (a, b) =>
  a
    .split('.')
    .map(Number)
    .reduce((r, x, i) => r || x - b.split('.').map(Number)[i], 0);
if (cmp(next, current) <= 0) fail(`${next} is not after ${current}`);

// every changelog must say what the release holds
const changelogs = PACKAGES.map((dir) => {
  const file = join(root, dir, 'CHANGELOG.md');
  const text = readFileSync(file, 'utf8');
  const match = /^## Unreleased\n([\s\S]*?)(?=^## |(?![\s\S]))/m.exec(text);
  if (!match || match[1].trim() === '') fail(`${dir}/CHANGELOG.md has no entries under "## Unreleased"`);
  return { file, text: text.replace(/^## Unreleased\n/m, `## Unreleased\n\n## ${next} (${date})\n`) };
});

for (const m of manifests) writeFileSync(m.file, JSON.stringify({ ...m.json, version: next }, null, 2) + '\n');
for (const c of changelogs) writeFileSync(c.file, c.text);
const versionFile = join(root, 'packages/sdk/src/version.ts');
writeFileSync(versionFile, readFileSync(versionFile, 'utf8').replace(/SDK_VERSION = '[^']*'/, `SDK_VERSION = '${next}'`));
console.log(`release: ${current} -> ${next} (package.json, CHANGELOG.md of ${PACKAGES.join(', ')}; SDK_VERSION)`);

const run = (cmd, cmdArgs, cwd = root) => execFileSync(cmd, cmdArgs, { cwd, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
const ALLOWED = /^(dist\/.+\.(js|d\.ts|js\.map|json)|README\.md|LICENSE|CHANGELOG\.md|package\.json)$/;

if (!flag('--skip-checks')) {
  run('npm', ['run', '-s', 'sdk:check']);
  for (const { dir } of manifests) {
    run('npm', ['run', '-s', 'build'], join(root, dir));
    const [listing] = JSON.parse(run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], join(root, dir)));
    const wrong = listing.files.map((f) => f.path).filter((p) => !ALLOWED.test(p) || /\.spec\.|__fixtures__/.test(p));
    if (wrong.length) fail(`${dir} would ship ${wrong.join(', ')}`);
    console.log(`release: ${dir}: ${listing.files.length} files, ${listing.size} bytes packed`);
  }
}

if (flag('--publish')) {
  for (const { dir } of manifests) run('npm', ['publish'], join(root, dir));
  console.log(`release: published ${next}; tag it: git tag v${next}`);
} else {
  console.log(`release: not published (pass --publish). Commit the bumped files and tag v${next}.`);
}
