import './platform/startup/compile-cache';
import 'reflect-metadata';
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { createApp } from './app.factory';
import { AppModule } from './app.module';
import { ConfigError, loadConfig } from './platform/config/config';
import { DataDirLockedError } from './platform/database/data-dir-lock';
import { ApiError } from './platform/errors/api-error';
import { OrmHandle } from './platform/database/orm';
import { ProvisioningService } from './modules/auth/provisioning.service';
import { CreateDocumentsCommand } from './modules/pipeline/services/create-documents.command';
import { parseCurrency, parseDocumentType } from './modules/pipeline/services/documents.service';
import { buildOpenApiDocument } from './openapi';
import { heartbeatAge } from './platform/health/heartbeat';

/** Each command's synopsis and description: `--help` prints them (all, or one with `<command> --help`). */
const COMMANDS: Record<string, { synopsis: string; description: string; example: string }> = {
  bootstrap: {
    synopsis: 'bootstrap --org-name NAME --email EMAIL (--password-file FILE | --password PASSWORD) [--name NAME] [--json]',
    description:
      'Create an organization with an admin user, a live and a test API key and an OAuth client. ' +
      'Prints the keys and the client secret once: store them. The password comes from --password-file ' +
      '(a file, or - for standard input), the LEDGERLENS_PASSWORD variable, or --password (visible to ' +
      'other users of the machine in the process list: avoid on shared hosts).',
    example:
      "npm run cli -- bootstrap --org-name 'Acme Funding' --email admin@acme.test --password-file /run/secrets/admin_password --json",
  },
  'user:create': {
    synopsis:
      'user:create --org-id ID --email EMAIL (--password-file FILE | --password PASSWORD) --role admin|manager|underwriter|reviewer [--name NAME] [--json]',
    description: 'Create a user of an existing organization, with a live API key. The password as for bootstrap.',
    example: 'npm run cli -- user:create --org-id 1 --email uw@acme.test --password-file - --role underwriter < password.txt',
  },
  'documents:add': {
    synopsis: 'documents:add --org-id ID --deal-id ID [--test] [--type TYPE] [--label LABEL] [--currency CODE] FILE... [--json]',
    description:
      'Add files to a deal (the same command as an upload: checked, stored and queued); the server or a worker ' +
      'processes them. --test adds them in test mode. Exits 1 when a file is rejected.',
    example: 'npm run cli -- documents:add --org-id 1 --deal-id 42 --type bank_statement statements/*.pdf',
  },
  migrate: {
    synopsis: 'migrate [--json]',
    description: 'Apply pending database migrations (DATABASE_URL, or the embedded database in DATA_DIR).',
    example: 'DATABASE_URL=postgres://ledgerlens@db/ledgerlens npm run cli -- migrate',
  },
  openapi: {
    synopsis: 'openapi --write | --check [--file openapi/openapi.json]',
    description: 'Write the OpenAPI document the server emits, or fail (exit 1) if the committed one differs.',
    example: 'npm run cli -- openapi --check',
  },
  heartbeat: {
    synopsis: 'heartbeat [--max-age SECONDS]',
    description:
      'Health check of a worker (no HTTP port): fails (exit 1) when HEARTBEAT_FILE is missing or older than --max-age ' +
      '(default three HEARTBEAT_SECONDS). Opens no connection.',
    example: 'node apps/api/dist/cli.js heartbeat --max-age 30',
  },
};

function usage(command?: string): string {
  if (command && COMMANDS[command]) {
    const c = COMMANDS[command];
    return `Usage: npm run cli -- ${c.synopsis}\n\n${c.description}\n\nExample:\n  ${c.example}\n`;
  }
  const list = Object.values(COMMANDS)
    .map((c) => `  ${c.synopsis}\n      ${c.description}`)
    .join('\n');
  return `Usage: npm run cli -- <command> [options]\n\nCommands:\n${list}\n\nRun \`npm run cli -- <command> --help\` for one command with an example.\n`;
}

const HELP = new Set(['--help', '-h', 'help']);

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || HELP.has(command)) {
    process.stdout.write(usage(rest.find((a) => !HELP.has(a))));
    return command === undefined ? 1 : 0;
  }
  if (rest.some((a) => a === '--help' || a === '-h')) {
    if (!COMMANDS[command]) throw new UsageError(`Unknown command: ${command}`);
    process.stdout.write(usage(command));
    return 0;
  }
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: command === 'documents:add',
    options: {
      'deal-id': { type: 'string' },
      test: { type: 'boolean', default: false },
      type: { type: 'string' },
      label: { type: 'string' },
      currency: { type: 'string' },
      'org-name': { type: 'string' },
      'org-id': { type: 'string' },
      email: { type: 'string' },
      password: { type: 'string' },
      'password-file': { type: 'string' },
      role: { type: 'string' },
      name: { type: 'string' },
      json: { type: 'boolean', default: false },
      write: { type: 'boolean', default: false },
      check: { type: 'boolean', default: false },
      file: { type: 'string', default: 'openapi/openapi.json' },
      'max-age': { type: 'string' },
    },
    strict: true,
  });
  const need = (name: keyof typeof values): string => {
    const v = values[name];
    if (typeof v !== 'string' || !v) throw new UsageError(`--${name} is required`);
    return v;
  };

  switch (command) {
    case 'bootstrap':
    case 'user:create': {
      const orgName = command === 'bootstrap' ? need('org-name') : '';
      const orgId = command === 'user:create' ? Number(need('org-id')) : 0;
      const email = need('email');
      const password = passwordFrom(values.password, values['password-file'], process.env.LEDGERLENS_PASSWORD);
      const role = command === 'user:create' ? need('role') : 'admin';
      const running = await createApp(cliConfig(), { logTo: 'stderr' });
      try {
        const provisioning = running.app.get(ProvisioningService);
        const result =
          command === 'bootstrap'
            ? await provisioning.bootstrap({ orgName, email, password, name: values.name })
            : await provisioning.createUser({ organizationId: orgId, email, password, role, name: values.name });
        print(result, values.json);
      } finally {
        await running.close();
      }
      return 0;
    }
    case 'documents:add': {
      const organizationId = Number(need('org-id'));
      const dealId = Number(need('deal-id'));
      if (!positionals.length) throw new UsageError('name at least one file');
      const typeHint = values.type ? parseDocumentType(values.type, 'body') : null;
      const currency = parseCurrency(values.currency);
      const files = positionals.map((path) => ({
        filename: basename(path),
        bytes: readFileSync(path),
        label: values.label ?? null,
        typeHint,
        currency,
      }));
      const running = await createApp(cliConfig(), { logTo: 'stderr' });
      try {
        const caller = { organizationId, livemode: !values.test, actor: 'cli' };
        const { documents, rejected } = await running.app.get(CreateDocumentsCommand).run(caller, dealId, files);
        print(
          {
            deal_id: dealId,
            documents: documents.map((d) => ({ id: d.id, filename: d.filename, status: d.status })),
            rejected: rejected.map((f) => ({ filename: f.filename, code: f.error!.code, detail: f.error!.detail })),
          },
          values.json,
        );
        return rejected.length ? 1 : 0;
      } finally {
        await running.close();
      }
    }
    case 'heartbeat': {
      const { heartbeat } = loadConfig();
      if (!heartbeat.file) throw new UsageError('HEARTBEAT_FILE is not set: this process writes no heartbeat');
      const maxAge = values['max-age'] ? Number(values['max-age']) : heartbeat.seconds * 3;
      const age = await heartbeatAge(heartbeat.file);
      if (age === null || age > maxAge) {
        process.stderr.write(
          `unhealthy: ${age === null ? 'no heartbeat yet' : `last heartbeat ${Math.round(age)} s ago`} (limit ${maxAge} s)\n`,
        );
        return 1;
      }
      process.stdout.write(`healthy: last heartbeat ${Math.round(age)} s ago\n`);
      return 0;
    }
    case 'migrate': {
      const running = await createApp(cliConfig(), { logTo: 'stderr' });
      await running.close();
      print({ status: 'ok', message: 'Migrations applied' }, values.json);
      return 0;
    }
    case 'openapi': {
      const file = resolve(values.file!);
      const emitted = JSON.stringify(await emitOpenApi(), null, 2) + '\n';
      if (values.write) {
        writeFileSync(file, emitted);
        process.stdout.write(`Wrote ${file}\n`);
        return 0;
      }
      if (values.check) {
        let committed = '';
        try {
          committed = readFileSync(file, 'utf8');
        } catch {
          /* missing file: reported below */
        }
        if (committed !== emitted) {
          process.stderr.write(`${file} differs from what the server emits: run \`npm run openapi\` and commit the result.\n`);
          return 1;
        }
        process.stdout.write(`${file} is up to date\n`);
        return 0;
      }
      throw new UsageError('openapi needs --write or --check');
    }
    default:
      throw new UsageError(command ? `Unknown command: ${command}` : 'No command given');
  }
}

/** Emits the spec from the controllers' decorators without opening a database (Nest preview mode). */
export async function emitOpenApi() {
  const config = loadConfig({ NODE_ENV: 'test', DEMO_BOOTSTRAP: 'false' });
  const orm = { orm: {}, engine: 'pglite', close: async () => undefined } as unknown as OrmHandle;
  const app = await NestFactory.create(AppModule.forRoot({ config, orm, redis: null }), new FastifyAdapter(), {
    preview: true,
    logger: false,
    abortOnError: false,
  });
  return buildOpenApiDocument(app);
}

/** The CLI logs only warnings (to stderr) unless LOG_LEVEL says otherwise. */
/** Admin commands process no documents: no parser processes, no job consumers (role `api`). */
function cliConfig() {
  const config = loadConfig({ LOG_LEVEL: 'warn', ...process.env }, { demoBootstrap: false, role: 'api' });
  // a one-off command next to a running server must not take its METRICS_PORT
  return { ...config, metrics: { ...config.metrics, port: null } };
}

function print(result: unknown, json: boolean | undefined): void {
  if (json) {
    process.stdout.write(JSON.stringify(result, null, 2) + '\n');
    return;
  }
  const flat = (obj: unknown, prefix = ''): string[] =>
    Object.entries(obj as Record<string, unknown>).flatMap(([k, v]) =>
      v && typeof v === 'object' ? flat(v, `${prefix}${k}.`) : [`${prefix}${k}: ${String(v)}`],
    );
  process.stdout.write(flat(result).join('\n') + '\n');
}

class UsageError extends Error {}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      if (err instanceof UsageError) process.stderr.write(`${err.message}\n\n${usage()}`);
      else if (err instanceof ConfigError || err instanceof DataDirLockedError) process.stderr.write(`${err.message}\n`);
      else if (err instanceof ApiError) process.stderr.write(`${err.code}: ${err.detail}\n`);
      else if ((err as { code?: string })?.code?.startsWith('ERR_PARSE_ARGS'))
        process.stderr.write(`${(err as Error).message}\n\n${usage(process.argv[2])}`);
      else process.stderr.write(`${(err as Error)?.stack ?? String(err)}\n`);
      process.exit(err instanceof ConfigError || err instanceof DataDirLockedError ? 3 : 1);
    },
  );
}

/** One source of the password: --password-file (a file, or - for standard input), LEDGERLENS_PASSWORD, or --password. */
function passwordFrom(flag: string | undefined, file: string | undefined, env: string | undefined): string {
  const given = [flag, file, env].filter((v) => v !== undefined && v !== '').length;
  if (given === 0) throw new UsageError('--password-file, LEDGERLENS_PASSWORD or --password is required');
  if (given > 1) throw new UsageError('give the password one way: --password-file, LEDGERLENS_PASSWORD or --password');
  if (file) {
    let text: string;
    try {
      text = readFileSync(file === '-' ? 0 : file, 'utf8');
    } catch (err) {
      throw new UsageError(`--password-file: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
    }
    const password = text.replace(/\r?\n$/, '');
    if (!password) throw new UsageError(`--password-file: ${file} is empty`);
    return password;
  }
  return (flag ?? env)!;
}
