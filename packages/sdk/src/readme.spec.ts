import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { API_GUIDE } from '../../../apps/api/src/openapi-docs';

const repo = resolve(__dirname, '../../..');

/** The ```ts blocks of a Markdown text. */
function snippets(markdown: string): string[] {
  return [...markdown.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]);
}

/** The SDK section of the main README (up to the next heading). */
function sdkSection(readme: string): string {
  const start = readme.indexOf('### From TypeScript: the SDK');
  const end = readme.indexOf('\n#', start + 5);
  return readme.slice(start, end);
}

const SOURCES: [string, string[]][] = [
  ['packages/sdk/README.md', snippets(readFileSync(join(repo, 'packages/sdk/README.md'), 'utf8'))],
  ['packages/webhooks/README.md', snippets(readFileSync(join(repo, 'packages/webhooks/README.md'), 'utf8'))],
  ['README.md (SDK section)', snippets(sdkSection(readFileSync(join(repo, 'README.md'), 'utf8')))],
  ['/docs guide', snippets(API_GUIDE.replace(/\\`/g, '`'))],
];

/**
 * What the snippets use without defining: a client, ids, a request's raw body and headers, the
 * receiver's own helpers, and the small part of Express and Fastify they call.
 */
const GLOBALS = `
declare const ll: import('@ledgerlens/sdk').Ledgerlens;
declare const id: number;
declare const dealId: number;
declare const documentId: number;
declare const signal: AbortSignal;
declare const baseUrl: string;
declare const email: string;
declare const password: string;
declare const clientId: string;
declare const clientSecret: string;
declare const rawBody: string;
declare const req: { headers: Record<string, string | string[] | undefined> };
declare const db: { query(sql: string, params: unknown[]): Promise<{ rowCount: number | null }> };
declare function alreadyProcessed(eventId: string): Promise<boolean>;
declare function enqueueForProcessing(event: unknown): Promise<void>;
declare function handleOnce(event: import('@ledgerlens/webhooks').LedgerlensEvent): Promise<void>;
declare function handle(event: import('@ledgerlens/webhooks').LedgerlensEvent): Promise<void>;
declare module 'express' {
  interface Req { body: Buffer; headers: Record<string, string | string[] | undefined> }
  interface Res { status(code: number): Res; send(body?: unknown): Res; sendStatus(code: number): Res }
  type Handler = (req: Req, res: Res) => unknown;
  interface App { post(path: string, ...handlers: Handler[]): void }
  interface Express { (): App; raw(options: { type: string }): Handler }
  const express: Express;
  export default express;
}
declare module 'fastify' {
  interface Reply { code(status: number): Reply; send(body?: unknown): Reply }
  interface Request { body: unknown; headers: Record<string, string | string[] | undefined> }
  interface Scope {
    addContentTypeParser(type: string, options: { parseAs: 'buffer' }, parser: (req: Request, body: Buffer, done: (err: Error | null, body?: unknown) => void) => void): void;
    post(path: string, handler: (req: Request, reply: Reply) => unknown): void;
  }
  interface App { register(plugin: (scope: Scope) => Promise<void>): void }
  export default function Fastify(): App;
}
`;

/**
 * Every TypeScript snippet of the READMEs and of the /docs guide compiles (strict, nodenext, the default
 * libraries, DOM included, as in a fresh project; the
 * Node.js types of this workspace) against the SDK and webhooks sources.
 */
describe('README and /docs snippets', () => {
  it('finds the snippets', () => {
    for (const [name, list] of SOURCES) expect([name, list.length > 0]).toEqual([name, true]);
  });

  it('type-check', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sdk-snippets-'));
    try {
      const files = [join(dir, 'globals.d.ts')];
      writeFileSync(files[0], GLOBALS);
      const origin = new Map<string, string>();
      SOURCES.forEach(([name, list]) =>
        list.forEach((code, i) => {
          const file = join(dir, `snippet-${files.length}.mts`);
          writeFileSync(file, `${code}\nexport {};\n`);
          origin.set(file, `${name} snippet ${i + 1}`);
          files.push(file);
        }),
      );
      const program = ts.createProgram(files, {
        strict: true,
        noEmit: true,
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
        types: ['node'],
        typeRoots: [join(repo, 'node_modules/@types')],
        skipLibCheck: true,
        esModuleInterop: true,
        paths: {
          '@ledgerlens/sdk': [join(repo, 'packages/sdk/src/index.ts')],
          '@ledgerlens/webhooks': [join(repo, 'packages/webhooks/src/index.ts')],
        },
      });
      const problems = ts
        .getPreEmitDiagnostics(program)
        .filter((d) => d.file && origin.has(d.file.fileName))
        .map((d) => {
          const { line } = d.file!.getLineAndCharacterOfPosition(d.start ?? 0);
          return `${origin.get(d.file!.fileName)}, line ${line + 1}: TS${d.code} ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`;
        });
      expect(problems).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('the resources table of packages/sdk/README.md', () => {
  const script = join(repo, 'packages/sdk/scripts/resources-table.mjs');
  const check = (readme: string) =>
    new Promise<number>((done) => {
      const child = spawn(process.execPath, [script, '--check', '--readme', readme], { stdio: 'ignore' });
      child.on('exit', (code) => done(code ?? -1));
    });

  it('is what packages/sdk/scripts/resources-table.mjs generates from the code', async () => {
    expect(await check(join(repo, 'packages/sdk/README.md'))).toBe(0);
  }, 60_000);

  it('is refused when stale (a method missing from it)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'readme-'));
    try {
      const stale = join(dir, 'README.md');
      const text = readFileSync(join(repo, 'packages/sdk/README.md'), 'utf8');
      writeFileSync(stale, text.replace(/^\| `deals` \| `waitUntilReady` .*\n/m, ''));
      expect(readFileSync(stale, 'utf8')).not.toBe(text);
      expect(await check(stale)).toBe(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
