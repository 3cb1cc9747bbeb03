/**
 * Records the examples of the API reference from a real run: bootstraps a funder ("Sunrise
 * Funding": an admin and an underwriter) with the CLI on a fresh embedded database, starts the
 * built server, local fake CRMs (HubSpot, Pipedrive, Salesforce, a custom endpoint) and a local
 * webhook receiver, all on 127.0.0.1, then walks an underwriting team's day through real HTTP:
 * a deal for a bakery, its bank statements, the report and its exports, the recommendation,
 * corrections, rulesets, assignments, comments and notifications, share links, bulk ingest, CRM
 * sync, webhooks and keys. It keeps, per operation, the request body and the answer it got.
 *
 * The file is stable across runs: secrets and random ids are replaced by fixed placeholders,
 * local addresses by public-looking ones, and the run's timestamps are moved onto a fixed clock
 * (see `Scrubber`). Long arrays are cut to three items (a box of four numbers is kept whole), CSVs to three rows. Writes
 * apps/api/src/openapi-examples.json, which the document builder merges into openapi.json.
 *
 *   npm run docs:examples   (then `npm run openapi` and commit both files)
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { LAYOUTS } from '../corpus/layouts';
import { makeStatement } from '../corpus/corpus';
import { startServer, stopServer } from '../bench/server';
import { startFakeCustomCrm, startFakeHubspot, startFakePipedrive, startFakeSalesforce } from '../fakes/crm';

/** One more answer of the same operation (another status or media type), e.g. the 202 of an async form. */
export interface RecordedResponse {
  status: number;
  media?: string;
  response?: unknown;
}

export interface RecordedExample extends RecordedResponse {
  method: string;
  path: string;
  request?: unknown;
  more?: RecordedResponse[];
}

const DIST = resolve(__dirname, '../../../apps/api/dist');
const SECRET_FIELDS = new Set(['key', 'api_key', 'test_api_key', 'token', 'access_token', 'secret', 'client_secret']);
const PUBLIC_RECEIVER = 'https://hooks.sunrise-funding.example';
const PUBLIC_API = 'https://api.sunrise-funding.example';
/** Fields whose recorded value changes from run to run by nature, shown as a fixed sample. */
const SAMPLE_VALUES: Record<string, unknown> = {
  'webhook-signature': 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDDd9vB3o=',
  'webhook-timestamp': '1795701950',
  'X-Service-Signature': 'sha256=2b8e1c6f0a9d4e7b3c5a1f8e6d2b9c0a7e4f1d3b5c8a6e9f0d2c4b7a1e3f5d8c',
  date: 'Thu, 26 Nov 2026 14:05:50 GMT',
  duration_ms: 412,
  response_time_ms: 38,
  time_ms: 38,
};
/** `date` is also a field of transactions: only the HTTP header form is a sample. */
const HTTP_DATE = /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} /;
/** The fixed clock the run's timestamps are moved onto. */
const BASE_TIME = Date.parse('2026-11-26T14:05:00.000Z');

/**
 * Makes a run's answers reproducible and safe to publish: registered values (keys, tokens,
 * credentials of the fakes, local origins) become fixed placeholders; other random ids
 * (`evt_...`, `whd_...`, `shr_...`, UUIDs) become stable ids by order of appearance; timestamps
 * of the run become a fixed clock (instant k of the clock is the time between the k-th and the
 * next recorded call; far ones keep their distance in whole hours); signatures, measured durations
 * and HTTP dates become fixed sample values.
 */
export class Scrubber {
  private readonly literals = new Map<string, string>();
  private readonly ids = new Map<string, string>();
  private readonly startedAt = Date.now();
  private readonly marks: number[] = [];

  /** A recorded call starts now: the clock of the examples ticks one second. */
  tick(): void {
    this.marks.push(Date.now());
  }

  /** An API key: its prefix and masked form (`key_prefix`, `key_masked`) follow its placeholder. */
  key(value: string, placeholder: string): void {
    this.replace(value, placeholder);
    this.replace(value.slice(0, 12), placeholder.slice(0, 12));
    this.replace(`${value.slice(0, 12)}...${value.slice(-4)}`, `${placeholder.slice(0, 12)}...${placeholder.slice(-4)}`);
  }

  /** `value` is shown as `placeholder` wherever it appears. */
  replace(value: string, placeholder: string): void {
    if (value && value !== placeholder) this.literals.set(value, placeholder);
  }

  /** A secret found in a field named like one: a fixed placeholder keeping its recognisable prefix. */
  secret(value: string): string {
    const known = this.literals.get(value);
    if (known) return known;
    const prefix = /^(ll_live_|ll_test_|[A-Za-z]{2,6}_|pat-na1-)/.exec(value)?.[1] ?? '';
    const placeholder = prefix + this.fake(`secret:${this.literals.size}`, value.length - prefix.length, value);
    if (prefix.startsWith('ll_')) this.key(value, placeholder);
    else this.literals.set(value, placeholder);
    return placeholder;
  }

  /** Secrets by field name; three items per array in answers (`cut`), requests are kept whole. */
  tidy(value: unknown, field = '', cut = true): unknown {
    if (typeof value === 'string' && SECRET_FIELDS.has(field) && value.length >= 16) return this.secret(value);
    if (field in SAMPLE_VALUES && typeof value === typeof SAMPLE_VALUES[field] && (field !== 'date' || HTTP_DATE.test(String(value))))
      return SAMPLE_VALUES[field];
    if (Array.isArray(value)) {
      // a tuple of numbers (a box [x0, y0, x1, y1]) is one value, kept whole
      const tuple = value.length <= 4 && value.every((v) => typeof v === 'number');
      return (cut && !tuple ? value.slice(0, 3) : value).map((v) => this.tidy(v, '', cut));
    }
    if (value && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, this.tidy(v, k, cut)]));
    }
    return value;
  }

  /** The whole recorded file, made stable. */
  finish(text: string): string {
    const literals = [...this.literals.entries()].sort(([a], [b]) => b.length - a.length);
    for (const [value, placeholder] of literals) text = text.split(value).join(placeholder);
    text = text.replace(
      /\b([a-z]{2,6}_)(?=[A-Za-z0-9]*\d)([A-Za-z0-9]{12,})\b/g,
      (_all, prefix: string, body: string) => prefix + this.stableId(prefix + body, body),
    );
    text = text.replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g, (uuid) => {
      const hex = this.stableId(uuid, uuid.replace(/-/g, ''));
      return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
    });
    return this.moveClock(text);
  }

  private stableId(key: string, like: string): string {
    let id = this.ids.get(key);
    if (!id) {
      id = this.fake(`id:${this.ids.size}`, like.length, like);
      this.ids.set(key, id);
    }
    return id;
  }

  /** Deterministic characters of the same alphabet as `like` (hex stays hex). */
  private fake(seed: string, length: number, like: string): string {
    const hex = /^[0-9a-f]*$/.test(like.slice(-length));
    const alphabet = hex ? '0123456789abcdef' : 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';
    let out = '';
    for (let i = 0; out.length < length; i++) {
      for (const byte of createHash('sha256').update(`${seed}:${i}`).digest()) out += alphabet[byte % alphabet.length];
    }
    return out.slice(0, length);
  }

  private moveClock(text: string): string {
    const ISO = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,6})?Z\b/g;
    const endedAt = Date.now();
    const near = (t: number) => t >= this.startedAt - 10 * 60_000 && t <= endedAt + 10 * 60_000;
    const hour = 3_600_000;
    return text.replace(ISO, (s) => {
      const t = Date.parse(s);
      const moved = near(t)
        ? BASE_TIME + this.marks.filter((m) => m <= t).length * 1000
        : t > endedAt
          ? BASE_TIME + Math.round((t - this.startedAt) / hour) * hour
          : t;
      if (!near(t) && t <= endedAt) return s;
      const iso = new Date(moved).toISOString();
      return s.includes('.') ? iso : iso.replace('.000Z', 'Z');
    });
  }
}

const ADMIN = { email: 'dana@sunrise-funding.example', password: 'correct horse battery staple', name: 'Dana Whitfield' };
const UNDERWRITER = { email: 'jordan@sunrise-funding.example', password: 'a second long passphrase', name: 'Jordan Reyes' };

/** The admin CLI on the run's data directory (the server is not running yet: PGlite allows one process). */
function cli(dir: string, args: string[]): any {
  const out = execFileSync(process.execPath, [join(DIST, 'cli.js'), ...args, '--json'], {
    env: { ...process.env, DATA_DIR: dir, DATABASE_URL: '', REDIS_URL: '', DEMO_BOOTSTRAP: 'false', LOG_LEVEL: 'warn' },
    encoding: 'utf8',
  });
  return JSON.parse(out.slice(out.indexOf('{')));
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const { port } = probe.address() as AddressInfo;
  await new Promise((r) => probe.close(r));
  return port;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A sample of a non-JSON answer, as the reference shows it. */
function sample(media: string, bytes: Buffer): string {
  if (media === 'text/csv') {
    const lines = bytes
      .toString('utf8')
      .replace(/^\uFEFF/, '')
      .split(/\r?\n/);
    return lines.slice(0, 4).join('\n') + '\n';
  }
  if (media === 'text/html' || media === 'text/event-stream') return bytes.toString('utf8');
  const head = bytes.subarray(0, 16).toString('latin1').split('\n')[0];
  return `${head.startsWith('%PDF') ? head : media}… (binary, ${media})`;
}

interface CallOptions {
  body?: unknown;
  form?: FormData;
  /** An application/x-www-form-urlencoded body. */
  urlencoded?: Record<string, string>;
  headers?: Record<string, string>;
  /** The credential (default: the admin's live key); false for none. */
  key?: string | false;
  /** Record this answer as another response of an operation already recorded. */
  more?: boolean;
  /** For event streams: stop reading after this many events. */
  events?: number;
}

async function main(): Promise<void> {
  const scrub = new Scrubber();
  // a local receiver stands for the funder's webhook endpoint (shown as PUBLIC_RECEIVER)
  // (answers 503 while `receiverDown`, to record a failed delivery and its redelivery)
  let receiverDown = false;
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(receiverDown ? 503 : 200, { 'Content-Type': 'application/json' });
      res.end(receiverDown ? '{"error":"maintenance"}' : '{"received":true}');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const receiverOrigin = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  scrub.replace(receiverOrigin, PUBLIC_RECEIVER);
  const [sf, hs, pd, custom] = await Promise.all([startFakeSalesforce(), startFakeHubspot(), startFakePipedrive(), startFakeCustomCrm()]);
  scrub.replace(sf.url, 'https://sunrise-funding.my.salesforce.com');
  scrub.replace(hs.url, 'https://api.hubapi.com');
  scrub.replace(pd.url, 'https://sunrise-funding.pipedrive.com/api');
  scrub.replace(custom.url, 'https://crm.sunrise-funding.example/api');
  scrub.replace(hs.token, 'pat-na1-6b0f2c1d-9e8a-4f7b-a3c5-2d1e0f9b8a7c');
  scrub.replace(hs.clientSecret, 'hs-app-secret-8f2b6d4e1a9c');
  scrub.replace(pd.apiToken, '3f9c2e7a1b8d4c6e0a5f9b2d7c1e8a4f6b3d0c9e');
  scrub.replace(custom.apiKey, 'ck_51d0a7c3e9b24f6d8a1c5e7b9d3f2a40');
  scrub.replace(sf.credentials.client_id, '3MVG9sunrise0a1b2c3d4e5f');
  scrub.replace(sf.credentials.client_secret, '9B1D3F5A7C9E1A3C5E7A9C1E3A5C7E9A');
  scrub.replace(sf.credentials.refresh_token, '5Aep861sunrise9FfJ2aQxR0nYtU4wLz7K3c');

  const dir = mkdtempSync(join(tmpdir(), 'ledgerlens-examples-'));
  const boot = cli(dir, [
    'bootstrap',
    '--org-name',
    'Sunrise Funding',
    '--email',
    ADMIN.email,
    '--password',
    ADMIN.password,
    '--name',
    ADMIN.name,
  ]);
  const orgId = String(boot.organization.id);
  const uw = cli(dir, [
    'user:create',
    '--org-id',
    orgId,
    '--email',
    UNDERWRITER.email,
    '--password',
    UNDERWRITER.password,
    '--role',
    'underwriter',
    '--name',
    UNDERWRITER.name,
  ]);
  const adminKey = boot.api_key as string;
  const uwKey = uw.api_key as string;
  scrub.key(adminKey, 'll_live_3kF9xQ2mV7pL8sT1wZ4cB6nD0hJ5yR');
  scrub.key(boot.test_api_key, 'll_test_8pW2eK5rN1vC7xM3qL9tZ4bH6jF0sD');
  scrub.key(uwKey, 'll_live_7hN2cR5vX8kM1pQ4tB9wF3zD6gJ0sL');
  scrub.replace(boot.oauth_client.client_id, 'llc_4f9a2c7e1b8d');
  scrub.replace(boot.oauth_client.client_secret, 'llcs_Xq8vR2nK5pW7zT1mC9bL3dF6hJ0sY4aE');

  // a fixed port rather than 0, so that links the server makes (share URLs) name it and can be rewritten
  const port = await freePort();
  const server = await startServer({ OUTBOUND_ALLOWLIST: '127.0.0.1/32', PORT: String(port), LOG_LEVEL: 'warn' }, { dir });
  scrub.replace(server.url, PUBLIC_API);
  const examples: Record<string, RecordedExample> = {};

  const call = async (operationId: string, method: string, template: string, path: string, options: CallOptions = {}) => {
    const headers: Record<string, string> = { ...options.headers };
    const key = options.key ?? adminKey;
    if (key) headers['X-API-Key'] = key;
    let body: string | FormData | undefined = options.form;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['Content-Type'] = 'application/json';
    }
    if (options.urlencoded) {
      body = new URLSearchParams(options.urlencoded).toString();
      headers['Content-Type'] = 'application/x-www-form-urlencoded';
    }
    scrub.tick();
    if (process.env.EXAMPLES_TRACE) process.stderr.write(`${operationId} ${method} ${path}\n`);
    const abort = new AbortController();
    const res = await fetch(server.url + path, { method, headers, body, signal: abort.signal });
    const media = (res.headers.get('content-type') ?? '').split(';')[0].trim();
    let data: unknown;
    if (media === 'application/json') data = await res.json();
    else if (media === 'text/event-stream') data = await readEvents(res, options.events ?? 3, abort);
    else if (res.status !== 204) data = sample(media, Buffer.from(await res.arrayBuffer()));
    if (res.status >= 400) throw new Error(`${operationId}: ${method} ${path} -> ${res.status} ${JSON.stringify(data)}`);
    const answer: RecordedResponse = {
      status: res.status,
      ...(data !== undefined ? { media, response: scrub.tidy(data) } : {}),
    };
    if (options.more) {
      const first = examples[operationId];
      if (!first) throw new Error(`${operationId}: record the main example first`);
      (first.more ??= []).push(answer);
    } else {
      const request = options.body ?? options.urlencoded;
      examples[operationId] = {
        method,
        path: template,
        ...answer,
        ...(request !== undefined ? { request: scrub.tidy(request, '', false) } : {}),
      };
    }
    return data as any;
  };
  /** Polls use the admin's session: sessions do not count against the monthly quota, so `used` in the usage example is the same on every run. */
  let session = '';
  /** A call that is not an example (set-up). */
  const raw = async (method: string, path: string, body?: unknown, key = adminKey, headers: Record<string, string> = {}): Promise<any> => {
    const form = body instanceof FormData;
    const res = await fetch(server.url + path, {
      method,
      headers: {
        ...(key.startsWith('ll_') ? { 'X-API-Key': key } : { Authorization: `Bearer ${key}` }),
        ...headers,
        ...(form || body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      body: form ? body : body === undefined ? undefined : JSON.stringify(body),
    });
    const data = (res.headers.get('content-type') ?? '').includes('json') ? await res.json() : undefined;
    if (res.status >= 400) throw new Error(`set-up ${method} ${path} -> ${res.status} ${JSON.stringify(data)}`);
    return data;
  };
  const until = async <T>(what: string, probe: () => Promise<T>, done: (v: T) => boolean): Promise<T> => {
    for (let i = 0; i < 1200; i++) {
      const v = await probe();
      if (done(v)) return v;
      await sleep(100);
    }
    throw new Error(`timed out waiting for ${what}`);
  };
  const waitReady = (dealId: number) =>
    until(
      `deal ${dealId}`,
      () => raw('GET', `/v1/deals/${dealId}`, undefined, session),
      (d: { status: string }) => d.status === 'ready' || d.status === 'failed',
    );
  try {
    const layout = (name: string) => LAYOUTS.find((l) => l.name === name)!;
    const march = await makeStatement(layout('signed_single_column'), 101, 60);
    const april = await makeStatement(layout('sectioned_unsigned'), 102, 55);
    const pdf = (bytes: Uint8Array, name: string) => new File([bytes as Uint8Array<ArrayBuffer>], name, { type: 'application/pdf' });

    // ---------------------------------------------------------------- authentication
    session = (
      await call('loginV1', 'POST', '/v1/auth/login', '/v1/auth/login', {
        body: { email: ADMIN.email, password: ADMIN.password },
        key: false,
      })
    ).token;
    await call('login', 'POST', '/auth/login', '/auth/login', { body: { email: ADMIN.email, password: ADMIN.password }, key: false });
    // the web app's browser session: the token goes into the cookie, the answer carries the CSRF token
    await call('signIn', 'POST', '/v1/auth/session', '/v1/auth/session', {
      body: { email: ADMIN.email, password: ADMIN.password },
      key: false,
    });
    await call('getSession', 'GET', '/v1/auth/session', '/v1/auth/session', {
      key: false,
      headers: { Authorization: `Bearer ${session}` },
    });
    const client = {
      grant_type: 'client_credentials',
      client_id: boot.oauth_client.client_id,
      client_secret: boot.oauth_client.client_secret,
    };
    await call('oauthTokenV1', 'POST', '/v1/oauth/token', '/v1/oauth/token', { body: client, key: false });
    await call('oauthToken', 'POST', '/oauth/token', '/oauth/token', { urlencoded: client, key: false });

    // ---------------------------------------------------------------- deals and documents
    const deal = await call('createDeal', 'POST', '/v1/deals', '/v1/deals', {
      body: {
        business_name: 'Sunrise Bakery LLC',
        dba_name: 'Sunrise Bakery',
        entity_type: 'llc',
        industry: 'Food service',
        ein: '841234567',
        owner_name: 'Maria Lopez',
        funding_amount_requested: 75000,
        external_reference: 'CRM-10442',
      },
      headers: { 'Idempotency-Key': '6f1c2b9e-4a7d-4f2e-9c51-0b8e2d7a3f10' },
    });
    const id = deal.id as number;
    await call('createDealsBatch', 'POST', '/v1/deals/batch', '/v1/deals/batch', {
      body: [
        { business_name: 'Harbor Auto Repair Inc', funding_amount_requested: 40000 },
        { business_name: 'Green Leaf Landscaping LLC', funding_amount_requested: 25000 },
      ],
    });
    const uploaded = await call('uploadDocument', 'POST', '/v1/deals/{deal_id}/documents', `/v1/deals/${id}/documents`, {
      form: (() => {
        const f = new FormData();
        f.append('file', pdf(march.bytes, 'sunrise-march.pdf'));
        f.append('label', 'Operating account');
        return f;
      })(),
      headers: { 'Idempotency-Key': '0d9a1e57-2c44-4b1f-8e0a-6a3b9c7d5e21' },
    });
    const bulkDeal = (await raw('POST', '/v1/deals', { business_name: 'Northside Florist LLC', funding_amount_requested: 20000 }))
      .id as number;
    await call('uploadDocumentsBulk', 'POST', '/v1/deals/{deal_id}/documents/bulk', `/v1/deals/${id}/documents/bulk`, {
      form: (() => {
        const f = new FormData();
        f.append('files', pdf(april.bytes, 'sunrise-april.pdf'));
        return f;
      })(),
    });
    await call('bulkUpload', 'POST', '/v1/bulk-upload', '/v1/bulk-upload', {
      form: (() => {
        const f = new FormData();
        f.append('deal_id', String(bulkDeal));
        f.append('files', pdf(march.bytes, 'florist-march.pdf'));
        return f;
      })(),
    });
    await call('getDocumentStatus', 'GET', '/v1/documents/{document_id}/status', `/v1/documents/${uploaded.id}/status`);
    await waitReady(id);
    await waitReady(bulkDeal);
    const docId = uploaded.id as number;

    await call('getDeal', 'GET', '/v1/deals/{deal_id}', `/v1/deals/${id}`);
    await call('listDeals', 'GET', '/v1/deals', '/v1/deals?per_page=3&status=ready');
    await call('getDealStats', 'GET', '/v1/deals/stats', '/v1/deals/stats');
    await call('updateDeal', 'PATCH', '/v1/deals/{deal_id}', `/v1/deals/${id}`, {
      body: { funding_amount_requested: 80000, industry: 'Bakery' },
    });
    await call('listDocuments', 'GET', '/v1/deals/{deal_id}/documents', `/v1/deals/${id}/documents`);
    await call('getDocument', 'GET', '/v1/documents/{document_id}', `/v1/documents/${docId}`);
    await call('getDocumentAnalysis', 'GET', '/v1/documents/{document_id}/analysis', `/v1/documents/${docId}/analysis`);
    await call('getDocumentExtraction', 'GET', '/v1/documents/{document_id}/extraction', `/v1/documents/${docId}/extraction`);
    await call('getDocumentsBatchStatus', 'POST', '/v1/documents/batch-status', '/v1/documents/batch-status', {
      body: { document_ids: [docId] },
    });
    await call('downloadDocument', 'GET', '/v1/documents/{document_id}/download', `/v1/documents/${docId}/download`);
    await call('getDocumentPdf', 'GET', '/v1/documents/{document_id}/pdf', `/v1/documents/${docId}/pdf`);
    const txs = await call(
      'listDocumentTransactions',
      'GET',
      '/v1/documents/{document_id}/transactions',
      `/v1/documents/${docId}/transactions?per_page=3`,
    );
    await call('listDealTransactions', 'GET', '/v1/deals/{deal_id}/transactions', `/v1/deals/${id}/transactions?per_page=3`);
    const tx = txs.data.find((t: { amount: number }) => t.amount < 0) ?? txs.data[0];
    await call(
      'correctTransaction',
      'PATCH',
      '/v1/documents/{document_id}/transactions/{transaction_id}',
      `/v1/documents/${docId}/transactions/${tx.id}`,
      {
        body: { category: 'operating_expense', correction_reason: 'Supplier payment, not a loan payment' },
      },
    );
    await call(
      'listTransactionCorrections',
      'GET',
      '/v1/transactions/{transaction_id}/corrections',
      `/v1/transactions/${tx.id}/corrections`,
    );
    const added = await call('addTransaction', 'POST', '/v1/documents/{document_id}/transactions', `/v1/documents/${docId}/transactions`, {
      body: {
        date: tx.date,
        description: 'MOBILE DEPOSIT REF 0042',
        amount: 1250,
        after_transaction_id: tx.id,
        correction_reason: 'Missed: printed across the page fold',
      },
    });
    await call(
      'deleteTransaction',
      'DELETE',
      '/v1/documents/{document_id}/transactions/{transaction_id}',
      `/v1/documents/${docId}/transactions/${added.id}`,
      { body: { correction_reason: 'Added by mistake: the deposit is on the next statement' } },
    );
    await call('reviewDocument', 'POST', '/v1/documents/{document_id}/review', `/v1/documents/${docId}/review`, {
      body: { note: 'Rows checked against the PDF' },
    });
    await call('listReviewQueue', 'GET', '/v1/review-queue', '/v1/review-queue?per_page=3');
    await waitReady(id);
    await call('getDealRecommendation', 'GET', '/v1/deals/{deal_id}/recommendation', `/v1/deals/${id}/recommendation`);

    // ---------------------------------------------------------------- exports
    await call('exportDealPdf', 'GET', '/v1/deals/{deal_id}/export/pdf', `/v1/deals/${id}/export/pdf`);
    await call('getDealReportPdf', 'GET', '/v1/deals/{deal_id}/report', `/v1/deals/${id}/report`);
    await call('exportDealCsv', 'GET', '/v1/deals/{deal_id}/export/csv', `/v1/deals/${id}/export/csv`);
    await call('exportDealTransactionsCsv', 'GET', '/v1/deals/{deal_id}/transactions/csv', `/v1/deals/${id}/transactions/csv`);
    await call(
      'exportDealUnderwritingCsv',
      'GET',
      '/v1/deals/{deal_id}/export/underwriting/csv',
      `/v1/deals/${id}/export/underwriting/csv?table=revenue`,
    );
    await call('exportDocumentCsv', 'GET', '/v1/documents/{document_id}/export/csv', `/v1/documents/${docId}/export/csv`);
    await call('exportDocument', 'GET', '/v1/documents/{document_id}/export', `/v1/documents/${docId}/export`);

    // ---------------------------------------------------------------- rulesets
    const rs = await call('createRuleset', 'POST', '/v1/rulesets', '/v1/rulesets', {
      body: {
        name: 'Conservative restaurants',
        description: 'Higher balance and NSF bars for food service',
        factors: [
          { name: 'revenue_stability', weight: 0.3, threshold: 50 },
          { name: 'average_daily_balance', weight: 0.3, threshold: 40 },
          { name: 'nsf_frequency', weight: 0.25, threshold: 60 },
          { name: 'high_risk_transactions', weight: 0.15, threshold: 20 },
        ],
        approval_threshold: 72,
        decline_threshold: 45,
        // affordability terms of this ruleset (optional; unset, the defaults 0.25, 1.35 and 6)
        max_total_holdback: 0.2,
        factor_rate: 1.3,
        term_months: 8,
      },
    });
    await call('listRulesets', 'GET', '/v1/rulesets', '/v1/rulesets');
    const spare = await raw('POST', '/v1/rulesets', {
      name: 'Old draft',
      factors: [{ name: 'revenue_stability', weight: 1, threshold: 40 }],
      approval_threshold: 70,
      decline_threshold: 40,
    });
    await call('deleteRuleset', 'DELETE', '/v1/rulesets/{ruleset_id}', `/v1/rulesets/${spare.id}`);
    await call('getRuleset', 'GET', '/v1/rulesets/{ruleset_id}', `/v1/rulesets/${rs.id}`);
    await call('updateRuleset', 'PATCH', '/v1/rulesets/{ruleset_id}', `/v1/rulesets/${rs.id}`, { body: { approval_threshold: 75 } });
    await call('replaceRuleset', 'PUT', '/v1/rulesets/{ruleset_id}', `/v1/rulesets/${rs.id}`, {
      body: {
        name: 'Conservative restaurants',
        factors: [
          { name: 'revenue_stability', weight: 0.5, threshold: 50 },
          { name: 'nsf_frequency', weight: 0.5, threshold: 60 },
        ],
        approval_threshold: 75,
        decline_threshold: 45,
        max_total_holdback: 0.2,
        factor_rate: 1.3,
        term_months: 8,
      },
    });
    await call('evaluateDeal', 'POST', '/v1/deals/{deal_id}/evaluate', `/v1/deals/${id}/evaluate?ruleset_id=${rs.id}`);
    await call('setDefaultRuleset', 'POST', '/v1/rulesets/{ruleset_id}/set-default', `/v1/rulesets/${rs.id}/set-default`);
    await call('regenerateDealSummary', 'POST', '/v1/deals/{deal_id}/regenerate-summary', `/v1/deals/${id}/regenerate-summary`);
    await call('reprocessFailedDocuments', 'POST', '/v1/deals/{deal_id}/reprocess-failed', `/v1/deals/${id}/reprocess-failed`);

    // ---------------------------------------------------------------- lenders
    const lender = await call('createLender', 'POST', '/v1/lenders', '/v1/lenders', {
      body: { name: 'Harbor Merchant Funding', aliases: ['HARBOR MERCH FUND', 'HMF CAPITAL LLC'], kind: 'mca' },
    });
    const notLender = await raw('POST', '/v1/lenders', { name: 'Sunrise Equipment Rental', kind: 'not_lender' });
    await call('listLenders', 'GET', '/v1/lenders', '/v1/lenders');
    await call('getLender', 'GET', '/v1/lenders/{lender_id}', `/v1/lenders/${lender.id}`);
    await call('updateLender', 'PATCH', '/v1/lenders/{lender_id}', `/v1/lenders/${lender.id}`, {
      body: { aliases: ['HARBOR MERCH FUND', 'HMF CAPITAL LLC', 'HARBOR MF'] },
    });
    await call('deleteLender', 'DELETE', '/v1/lenders/{lender_id}', `/v1/lenders/${notLender.id}`);

    // ---------------------------------------------------------------- collaboration
    const uwUser = uw.user.id as number;
    const adminUser = boot.user.id as number;
    await call('createAssignment', 'POST', '/v1/deals/{deal_id}/assignments', `/v1/deals/${id}/assignments`, {
      body: { user_id: uwUser, role: 'underwriter' },
    });
    await raw('POST', `/v1/deals/${id}/assignments`, { user_id: adminUser, role: 'reviewer' }, uwKey);
    await raw('POST', `/v1/deals/${bulkDeal}/assignments`, { user_id: adminUser, role: 'manager' }, uwKey);
    await call('listAssignments', 'GET', '/v1/deals/{deal_id}/assignments', `/v1/deals/${id}/assignments`);
    await call('listMyAssignedDeals', 'GET', '/v1/me/assigned-deals', '/v1/me/assigned-deals');
    await call('listAssignmentsOfDeals', 'GET', '/v1/assignments', `/v1/assignments?deal_ids=${id},${bulkDeal}`);
    const extra = await raw('POST', `/v1/deals/${bulkDeal}/assignments`, { user_id: uwUser, role: 'underwriter' });
    await call('deleteAssignment', 'DELETE', '/v1/assignments/{assignment_id}', `/v1/assignments/${extra.id}`);
    await raw('POST', `/v1/deals/${bulkDeal}/assignments`, { user_id: uwUser, role: 'reviewer' });
    await call(
      'deleteDealAssignment',
      'DELETE',
      '/v1/deals/{deal_id}/assignments/{user_id}',
      `/v1/deals/${bulkDeal}/assignments/${uwUser}`,
    );

    const comment = await call('createComment', 'POST', '/v1/deals/{deal_id}/comments', `/v1/deals/${id}/comments`, {
      body: { body: '@jordan two NSF fees in March (3/14 and 3/21): can you confirm with the merchant before we price this?' },
    });
    await raw(
      'POST',
      `/v1/deals/${id}/comments`,
      { body: '@dana confirmed: a supplier debit hit before a card settlement. May statement requested.', parent_id: comment.id },
      uwKey,
    );
    await call('updateDealComment', 'PATCH', '/v1/deals/{deal_id}/comments/{comment_id}', `/v1/deals/${id}/comments/${comment.id}`, {
      body: { body: '@jordan two NSF fees in March (3/14 and 3/21): please confirm with the merchant before we price this.' },
    });
    await call('updateComment', 'PATCH', '/v1/comments/{comment_id}', `/v1/comments/${comment.id}`, {
      body: { content: '@jordan two NSF fees in March (3/14 and 3/21): please confirm with the merchant. Holding the offer until then.' },
    });
    await call('listComments', 'GET', '/v1/deals/{deal_id}/comments', `/v1/deals/${id}/comments`);
    const note1 = await raw('POST', `/v1/deals/${bulkDeal}/comments`, { body: 'Duplicate of the note above' });
    await call('deleteDealComment', 'DELETE', '/v1/deals/{deal_id}/comments/{comment_id}', `/v1/deals/${bulkDeal}/comments/${note1.id}`);
    const note2 = await raw('POST', `/v1/deals/${bulkDeal}/comments`, { body: 'Posted on the wrong deal' });
    await call('deleteComment', 'DELETE', '/v1/comments/{comment_id}', `/v1/comments/${note2.id}`);

    const request = await call('createDocumentRequest', 'POST', '/v1/deals/{deal_id}/doc-requests', `/v1/deals/${id}/doc-requests`, {
      body: {
        document_type: 'bank_statement',
        message: 'Please send the May statement of the operating account (all pages).',
        due_date: '2026-12-04',
      },
    });
    await raw('POST', `/v1/deals/${id}/doc-requests`, { document_type: 'profit_and_loss', description: 'Year-to-date P&L' });
    await call('listDocumentRequests', 'GET', '/v1/deals/{deal_id}/doc-requests', `/v1/deals/${id}/doc-requests`);
    await call('updateDocumentRequest', 'PATCH', '/v1/doc-requests/{request_id}', `/v1/doc-requests/${request.id}`, {
      body: { status: 'fulfilled' },
    });

    await call('decideDeal', 'POST', '/v1/deals/{deal_id}/decision', `/v1/deals/${id}/decision`, {
      body: {
        decision: 'approve',
        reason: 'Steady card deposits; no other position',
        offer: { amount: 45000, factor_rate: 1.35, term_months: 6, holdback_percent: 10 },
      },
    });
    await call('reclassifyDocument', 'POST', '/v1/documents/{document_id}/reclassify', `/v1/documents/${docId}/reclassify`, {
      body: { document_type: 'bank_statement' },
    });
    await waitReady(id);
    await call('rescoreDeal', 'POST', '/v1/deals/{deal_id}/rescore', `/v1/deals/${id}/rescore`);
    await call('getDealTimeline', 'GET', '/v1/deals/{deal_id}/timeline', `/v1/deals/${id}/timeline?per_page=3`);
    await call('getDealActivity', 'GET', '/v1/deals/{deal_id}/activity', `/v1/deals/${id}/activity?per_page=3`);
    await call('getActivity', 'GET', '/v1/activity', '/v1/activity?per_page=3');
    const notes = await until(
      'notifications',
      () => raw('GET', '/v1/notifications?per_page=3', undefined, session),
      (n: { data: { id: number }[] }) => n.data.length >= 2,
    );
    await call('listNotifications', 'GET', '/v1/notifications', '/v1/notifications?per_page=3');
    await call('markNotificationsRead', 'POST', '/v1/notifications/mark-read', '/v1/notifications/mark-read', {
      body: { notification_ids: notes.data.slice(0, 2).map((n: { id: number }) => n.id) },
    });

    // ---------------------------------------------------------------- share links
    const share = await call('createShareLink', 'POST', '/v1/deals/{deal_id}/share', `/v1/deals/${id}/share`, {
      body: { label: 'Syndication partner: Harbor Capital', expires_in_hours: 168 },
    });
    const locked = await raw('POST', `/v1/deals/${id}/share`, {
      label: 'Owner copy',
      password: 'sunrise-bakery-2026',
      expires_in_hours: 72,
    });
    await call('listShareLinks', 'GET', '/v1/deals/{deal_id}/shares', `/v1/deals/${id}/shares`);
    await call('listActiveShareLinks', 'GET', '/v1/deals/{deal_id}/share', `/v1/deals/${id}/share`);
    await call('viewSharedDeal', 'GET', '/v1/share/{token}', `/v1/share/${share.token}`, { key: false });
    await call('showSharePage', 'GET', '/share/{token}', `/share/${share.token}`, { key: false });
    await call('unlockSharePage', 'POST', '/share/{token}', `/share/${locked.token}`, {
      key: false,
      urlencoded: { password: 'sunrise-bakery-2026' },
    });
    const old = await raw('POST', `/v1/deals/${id}/share`, { label: 'Sent by mistake' });
    await call('revokeShareLink', 'DELETE', '/v1/share/{share_id}', `/v1/share/${old.id}`);

    // ---------------------------------------------------------------- event stream
    await call('streamDealEvents', 'GET', '/v1/events/deals/{deal_id}', `/v1/events/deals/${id}?last_event_id=0`, { events: 3 });
    await call('streamEvents', 'GET', '/v1/events/stream', '/v1/events/stream?last_event_id=0', { events: 3 });

    // ---------------------------------------------------------------- failures and cancellations
    const cancelDeal = (await raw('POST', '/v1/deals', { business_name: 'Cancel Example LLC', funding_amount_requested: 5000 }))
      .id as number;
    const f = new FormData();
    f.append('file', pdf(april.bytes, 'wrong-file.pdf'));
    const toCancel = await raw('POST', `/v1/deals/${cancelDeal}/documents`, f);
    await call('cancelDocument', 'POST', '/v1/documents/{document_id}/cancel', `/v1/documents/${toCancel.id}/cancel`).catch(
      () => undefined,
    );
    const broken = new FormData();
    broken.append(
      'file',
      new File([new TextEncoder().encode('%PDF-1.4\n% truncated upload\n')], 'scan-truncated.pdf', { type: 'application/pdf' }),
    );
    const failed = await raw('POST', `/v1/deals/${cancelDeal}/documents`, broken);
    await waitReady(cancelDeal);
    await call('reprocessDocument', 'POST', '/v1/documents/{document_id}/reprocess', `/v1/documents/${failed.id}/reprocess`);

    // ---------------------------------------------------------------- bulk ingest
    const ingestHeaders = { 'X-Org-Id': orgId, 'Idempotency-Key': '9b2e4c71-5d3a-4e8f-b6a0-1c7d9e3f5a28' };
    await call('createIngest', 'POST', '/v1/ingest', '/v1/ingest', {
      headers: { 'X-Org-Id': orgId, 'Idempotency-Key': '2a7f1e90-8c3b-4d56-9e1f-7b4a0c2d6e83' },
      body: {
        applications: [
          { business_name: 'Bayview Dental Group PLLC', external_ref: 'CRM-10517', ein: '273456781', funding_amount_requested: 120000 },
          { business_name: 'Pacific Coast Movers LLC', external_ref: 'CRM-10518', funding_amount_requested: 45000 },
        ],
      },
    });
    const batch = await call('createIngest', 'POST', '/v1/ingest', '/v1/ingest', {
      more: true,
      headers: ingestHeaders,
      form: (() => {
        const fd = new FormData();
        fd.append(
          'metadata',
          JSON.stringify({
            business_name: 'Bayview Dental Group PLLC',
            external_reference: 'CRM-10517',
            file_labels: ['Operating account March', 'Operating account April'],
            callback_url: `${receiverOrigin}/ingest-complete`,
            callback_secret: 'whsec_ingest_Zr4Lq8Wm2Tn6Vx0P',
          }),
        );
        fd.append('files', pdf(march.bytes, 'bayview-march.pdf'));
        fd.append('files', pdf(april.bytes, 'bayview-april.pdf'));
        return fd;
      })(),
    });
    await until(
      'ingest batch',
      () => raw('GET', `/v1/ingest/${batch.batch_id}`, undefined, session, { 'X-Org-Id': orgId }),
      (b: { status: string }) => b.status === 'completed',
    );
    await call('getIngestBatch', 'GET', '/v1/ingest/{batch_id}', `/v1/ingest/${batch.batch_id}`, { headers: { 'X-Org-Id': orgId } });
    await call('getIngestBatchDetail', 'GET', '/v1/ingest/batches/{batch_id}', `/v1/ingest/batches/${batch.batch_id}`, {
      headers: { 'X-Org-Id': orgId },
    });

    // ---------------------------------------------------------------- CRM (local fakes)
    await call('putCrmProviderConfig', 'PUT', '/v1/crm/config/{provider}', '/v1/crm/config/hubspot', {
      body: { credentials: { access_token: hs.token, base_url: hs.url }, sync_interval_minutes: 30 },
    });
    await call('getCrmProviderConfig', 'GET', '/v1/crm/config/{provider}', '/v1/crm/config/hubspot');
    await call('testCrmProviderConfig', 'POST', '/v1/crm/config/{provider}/test', '/v1/crm/config/hubspot/test');
    await call('putCrmProviderFieldMapping', 'PUT', '/v1/crm/field-mapping/{provider}', '/v1/crm/field-mapping/hubspot', {
      body: {
        mappings: [
          { banklyze_field: 'business_name', crm_field: 'dealname', direction: 'both' },
          { banklyze_field: 'funding_amount_requested', crm_field: 'amount', direction: 'both' },
          { banklyze_field: 'health_score', crm_field: 'mca_health_score', direction: 'to_crm' },
        ],
      },
    });
    await call('getCrmProviderFieldMapping', 'GET', '/v1/crm/field-mapping/{provider}', '/v1/crm/field-mapping/hubspot');
    await call('putCrmConfig', 'PUT', '/v1/crm/config', '/v1/crm/config', {
      body: { provider: 'pipedrive', api_key: pd.apiToken, base_url: pd.url, sync_interval_minutes: 60 },
    });
    await call('getCrmConfig', 'GET', '/v1/crm/config', '/v1/crm/config');
    await call('putCrmFieldMappings', 'PUT', '/v1/crm/field-mappings', '/v1/crm/field-mappings', {
      body: [
        { banklyze_field: 'business_name', crm_field: 'deals.title', direction: 'bidirectional' },
        { banklyze_field: 'funding_amount_requested', crm_field: 'deals.value', direction: 'crm_to_banklyze' },
      ],
    });
    await call('getCrmFieldMappings', 'GET', '/v1/crm/field-mappings', '/v1/crm/field-mappings');
    const pushed = await call('syncCrm', 'POST', '/v1/crm/sync', '/v1/crm/sync', { body: { deal_id: id } });
    await call('syncCrm', 'POST', '/v1/crm/sync', '/v1/crm/sync', { more: true });
    const runs = await until(
      'CRM sync run',
      () => raw('GET', '/v1/crm/sync/logs', undefined, session),
      (r: { data: { id: number; status: string }[] }) =>
        r.data.length > 0 && r.data.every((x) => x.status !== 'running' && x.status !== 'pending'),
    );
    await call('listCrmSyncRuns', 'GET', '/v1/crm/sync/logs', '/v1/crm/sync/logs?per_page=3');
    await call('getCrmSyncRun', 'GET', '/v1/crm/sync/logs/{log_id}', `/v1/crm/sync/logs/${runs.data[0].id}`);
    await call('listCrmSyncLog', 'GET', '/v1/crm/sync-log', `/v1/crm/sync-log?deal_id=${id}&per_page=3`);
    const pdDeal = (pushed.results as { provider: string; external_id: string }[]).find((r) => r.provider === 'pipedrive')!.external_id;
    await call('receiveCrmWebhook', 'POST', '/v1/crm/webhooks', '/v1/crm/webhooks', {
      body: {
        provider: 'pipedrive',
        event: 'deal.updated',
        record_id: pdDeal,
        fields: { title: 'Sunrise Bakery LLC', value: 85000, status: 'open' },
        timestamp: new Date().toISOString(),
      },
    });
    await raw('PUT', '/v1/crm/config/salesforce', { credentials: sf.credentials, enabled: false });
    await call('deleteCrmProviderConfig', 'DELETE', '/v1/crm/config/{provider}', '/v1/crm/config/salesforce');

    // ---------------------------------------------------------------- webhooks
    await call('putWebhookConfig', 'PUT', '/v1/webhooks/config', '/v1/webhooks/config', {
      body: {
        url: 'https://hooks.sunrise-funding.example/ledgerlens',
        events: ['deal.ready', 'deal.decision', 'document.failed'],
        secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
        enabled: true,
      },
    });
    await call('postWebhookConfig', 'POST', '/v1/webhooks/config', '/v1/webhooks/config', {
      body: {
        url: 'https://hooks.sunrise-funding.example/ledgerlens',
        events: ['deal.ready', 'deal.decision'],
        secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
        active: true,
      },
    });
    await call('getWebhookConfig', 'GET', '/v1/webhooks/config', '/v1/webhooks/config');
    await raw('PUT', '/v1/webhooks/config', {
      url: `${receiverOrigin}/ledgerlens`,
      events: ['deal.ready', 'deal.decision', 'document.failed'],
      secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      enabled: true,
    });
    await call('testWebhook', 'POST', '/v1/webhooks/test', '/v1/webhooks/test', { body: { event_type: 'deal.ready' } });
    await call('listWebhookDeliveries', 'GET', '/v1/webhooks/deliveries', '/v1/webhooks/deliveries?per_page=3');
    // the receiver is down for one event: its first attempt fails, a retry is scheduled
    receiverDown = true;
    await raw('POST', `/v1/deals/${bulkDeal}/decision`, { decision: 'decline' });
    const pending = await until(
      'a failed attempt',
      () => raw('GET', '/v1/webhooks/deliveries?per_page=3', undefined, session),
      (d: { data: { id: string; response_status: number | null }[] }) => d.data.some((x) => x.response_status === 503),
    );
    receiverDown = false;
    const down = pending.data.find((x) => x.response_status === 503)!;
    await call('getWebhookDelivery', 'GET', '/v1/webhooks/deliveries/{delivery_id}', `/v1/webhooks/deliveries/${down.id}`);
    // removing the configuration fails what is still pending; once it is back, the event can be sent again
    await raw('DELETE', '/v1/webhooks/config');
    await raw('PUT', '/v1/webhooks/config', {
      url: `${receiverOrigin}/ledgerlens`,
      events: ['deal.ready', 'deal.decision', 'document.failed'],
      secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      enabled: true,
    });
    await call(
      'redeliverWebhook',
      'POST',
      '/v1/webhooks/deliveries/{delivery_id}/redeliver',
      `/v1/webhooks/deliveries/${down.id}/redeliver`,
    );
    await call('deleteWebhookConfig', 'DELETE', '/v1/webhooks/config', '/v1/webhooks/config');

    // ---------------------------------------------------------------- keys, usage, clean-up
    const key = await call('createKey', 'POST', '/v1/keys', '/v1/keys', {
      body: { name: 'CRM sync', scopes: ['deals:read', 'deals:write'] },
    });
    await call('listKeys', 'GET', '/v1/keys', '/v1/keys');
    await call('rotateKey', 'POST', '/v1/keys/{key_id}/rotate', `/v1/keys/${key.id}/rotate`);
    await call('revokeKey', 'DELETE', '/v1/keys/{key_id}', `/v1/keys/${key.id}`);
    const invited = await call('inviteUser', 'POST', '/v1/users', '/v1/users', {
      body: { email: 'maya.underwriter@florist-funding.example', name: 'Maya Chen', role: 'underwriter' },
    });
    await call('listUsers', 'GET', '/v1/users', '/v1/users');
    await call('updateUser', 'PATCH', '/v1/users/{user_id}', `/v1/users/${invited.user.id}`, { body: { role: 'manager' } });
    await call('deleteDeal', 'DELETE', '/v1/deals/{deal_id}', `/v1/deals/${cancelDeal}`);
    await call('getUsage', 'GET', '/v1/usage/me', '/v1/usage/me');
    await call('getUsageAlias', 'GET', '/api/v1/usage/me', '/api/v1/usage/me');
  } finally {
    await stopServer(server);
    receiver.close();
    await Promise.all([sf, hs, pd, custom].map((c) => c.close()));
  }
  const out = resolve(__dirname, '../../../apps/api/src/openapi-examples.json');
  const sorted = Object.fromEntries(Object.entries(examples).sort(([a], [b]) => a.localeCompare(b)));
  writeFileSync(out, scrub.finish(JSON.stringify(sorted, null, 2)) + '\n');
  console.log(`${Object.keys(sorted).length} operations recorded -> ${out}`);
}

/** The first `count` events of a stream (replayed from the start), then the connection is closed. */
async function readEvents(res: Response, count: number, abort: AbortController): Promise<string> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const timer = setTimeout(() => abort.abort(), 10_000);
  try {
    while ((text.match(/^event: /gm) ?? []).length < count) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  } catch {
    // aborted after the timeout: keep what arrived
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
  const frames = text.split('\n\n').filter((f) => f.trim());
  const kept: string[] = [];
  let events = 0;
  for (const frame of frames) {
    if (/^event: /m.test(frame)) {
      if (events === count) break;
      events++;
    }
    kept.push(frame);
  }
  return kept.join('\n\n') + '\n\n';
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
