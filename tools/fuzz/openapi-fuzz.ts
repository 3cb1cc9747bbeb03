import Ajv, { ValidateFunction } from 'ajv';
import { Rng } from '../corpus/rng';

/**
 * Schema-aware HTTP fuzzing driven by openapi/openapi.json. Every documented operation gets
 * requests built from its own parameters and body schema, then mutated: wrong types, huge and
 * NUL-bearing strings, odd unicode, missing and extra fields, deep nesting, odd content types,
 * broken JSON, and path ids that are huge, negative or not numbers. The oracle is the contract:
 * no response is 5xx, and every 4xx is JSON in the error envelope (checked against the
 * document's own ErrorEnvelopeDto schema). Deterministic for a seed when run with concurrency 1.
 */

type Schema = {
  $ref?: string;
  type?: string;
  enum?: unknown[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  format?: string;
  example?: unknown;
  default?: unknown;
  nullable?: boolean;
  allOf?: Schema[];
  oneOf?: Schema[];
  anyOf?: Schema[];
  pattern?: string;
};
type Parameter = { name: string; in: 'path' | 'query' | 'header'; required?: boolean; schema?: Schema };
type Operation = {
  operationId?: string;
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, { content?: Record<string, unknown> }>;
};
export type OpenApiDoc = { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Schema> } };

export interface FuzzTarget {
  baseUrl: string;
  doc: OpenApiDoc;
  /** The fuzzing organization's credentials: a live admin key (every scope) and a test key. */
  keys: { live: string; test: string };
  /** Real ids of the fuzzing organization's records, by path parameter name (`deal_id`, ...). */
  ids: Record<string, number[]>;
  /** Ids never to put in a path: rotating or revoking the run's own key would lock it out. */
  protectedIds?: Record<string, number[]>;
}

export interface FuzzOptions {
  seed: number;
  requests: number;
  concurrency?: number;
  /** Per-request timeout; a request that takes longer counts as a failure. */
  timeoutMs?: number;
}

export interface FuzzFailure {
  request: string;
  status: number;
  problem: string;
  body: string;
}

export interface FuzzSummary {
  requests: number;
  operations: number;
  byClass: Record<'2xx' | '3xx' | '4xx' | '5xx' | 'network', number>;
  byStatus: Record<string, number>;
  failures: FuzzFailure[];
  durationMs: number;
  /** Total milliseconds spent per operation, to see where a run's time goes. */
  msByOperation: Record<string, number>;
}

interface FuzzRequest {
  operation: string;
  /** Error statuses the operation documents as an HTML page (the share link's human page), not the JSON envelope. */
  htmlStatuses: string[];
  label: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string | FormData;
}

const HUGE = 'A'.repeat(200_000);
const STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\u202Eevil',
  '🦄💥',
  'e\u0301',
  '\uFEFF',
  '\uD800',
  "'; drop table deals; --",
  '%00',
  '../../etc/passwd',
  '<script>',
  'null',
  '1e309',
  '-0',
  '0x10',
  HUGE,
  'ü'.repeat(600),
  '\\',
  '"',
  '${x}',
  '{{x}}',
  ';',
  '$$;$$',
];
const NUMBERS = [0, -1, 1, 1.5, -1e308, 1e308, 2147483647, 2147483648, -2147483649, Number.MAX_SAFE_INTEGER, 2 ** 53 + 2, 1e-10];
const PATH_IDS = [
  '0',
  '-1',
  '1.5',
  'abc',
  '99999999999999999999999',
  '2147483648',
  '1e3',
  '%00',
  '%20',
  '0x1',
  '١',
  '9'.repeat(400),
  'null',
  '%2e%2e',
  '%E0%A4%A',
  '%',
  '1%2F2',
  ' 1',
];
/** Any URL the fuzzer writes (webhook receivers, callbacks) is loopback: the server must never be sent elsewhere. */
const LOCAL_URL = 'https://127.0.0.1:9/fuzz';
const URL_FIELD = /url|uri|callback|endpoint|webhook/i;
const CONTENT_TYPES = [
  'text/plain',
  'application/xml',
  'multipart/form-data',
  'application/x-www-form-urlencoded',
  'application/json; charset=latin1',
  'application/vnd.api+json',
  'image/png',
  '*/*',
  'application/json, text/plain',
];

export class OpenApiFuzzer {
  private readonly rng: Rng;
  private readonly ops: { method: string; template: string; op: Operation }[] = [];
  private readonly envelope: ValidateFunction;

  constructor(
    private readonly target: FuzzTarget,
    private readonly options: FuzzOptions,
  ) {
    this.rng = new Rng(options.seed);
    for (const [template, methods] of Object.entries(target.doc.paths)) {
      for (const [method, op] of Object.entries(methods)) this.ops.push({ method: method.toUpperCase(), template, op });
    }
    const ajv = new Ajv({ strict: false, allErrors: true });
    ajv.addSchema({ $id: 'openapi', components: rewriteRefs(target.doc.components) });
    this.envelope = ajv.compile({ $ref: 'openapi#/components/schemas/ErrorEnvelopeDto' });
  }

  async run(): Promise<FuzzSummary> {
    const started = Date.now();
    const summary: FuzzSummary = {
      requests: 0,
      operations: this.ops.length,
      byClass: { '2xx': 0, '3xx': 0, '4xx': 0, '5xx': 0, network: 0 },
      byStatus: {},
      failures: [],
      durationMs: 0,
      msByOperation: {},
    };
    // Requests are generated up front from the one seeded stream, so the set does not depend on timing.
    const requests = Array.from({ length: this.options.requests }, (_, i) => this.build(this.ops[i % this.ops.length]));
    let next = 0;
    const worker = async () => {
      while (next < requests.length) await this.send(requests[next++], summary);
    };
    await Promise.all(Array.from({ length: Math.max(1, this.options.concurrency ?? 1) }, worker));
    summary.durationMs = Date.now() - started;
    return summary;
  }

  private async send(req: FuzzRequest, summary: FuzzSummary): Promise<void> {
    summary.requests++;
    const label = `${req.label}: ${req.method} ${req.url.slice(0, 200)}`;
    let res: Response;
    let text: string;
    const started = Date.now();
    try {
      res = await fetch(this.target.baseUrl + req.url, {
        method: req.method,
        headers: req.headers,
        body: req.body,
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 15_000),
      });
      // An event stream never ends: its status and headers are the answer.
      if (res.headers.get('content-type')?.includes('text/event-stream')) {
        await res.body?.cancel();
        text = '';
      } else text = await res.text();
    } catch (err) {
      summary.byClass.network++;
      summary.failures.push({ request: label, status: 0, problem: `no response: ${(err as Error).message}`, body: '' });
      return;
    }
    summary.msByOperation[req.operation] = (summary.msByOperation[req.operation] ?? 0) + Date.now() - started;
    summary.byStatus[res.status] = (summary.byStatus[res.status] ?? 0) + 1;
    const cls = `${Math.floor(res.status / 100)}xx` as keyof FuzzSummary['byClass'];
    if (cls in summary.byClass) summary.byClass[cls]++;
    const fail = (problem: string) => summary.failures.push({ request: label, status: res.status, problem, body: text.slice(0, 300) });
    if (res.status >= 500) return void fail('server error');
    if (res.status >= 400) {
      if (res.headers.get('content-type')?.startsWith('text/html') && req.htmlStatuses.includes(String(res.status))) return;
      if (!res.headers.get('content-type')?.includes('application/json'))
        return void fail(`4xx without JSON (${res.headers.get('content-type')})`);
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        return void fail('4xx with unparsable JSON');
      }
      if (!this.envelope(body))
        fail(`4xx outside the error envelope: ${this.envelope.errors?.map((e) => `${e.instancePath} ${e.message}`).join('; ')}`);
    }
  }

  // ---- request generation -------------------------------------------------------------------

  private build(entry: { method: string; template: string; op: Operation }): FuzzRequest {
    const { rng } = this;
    const mutations: string[] = [];
    const params = entry.op.parameters ?? [];
    let path = entry.template;
    for (const p of params.filter((x) => x.in === 'path')) {
      let value = String(this.pathId(p.name, entry.method === 'DELETE'));
      if (rng.chance(0.3)) {
        // A leading zero keeps the id (rotating "0001" would be key 1), so only the fixture gets one.
        value = rng.chance(0.1) ? `00${value}` : rng.pick(PATH_IDS);
        mutations.push(`path ${p.name}=${value.slice(0, 20)}`);
      }
      path = path.replace(`{${p.name}}`, value.includes('%') ? value : encodeURIComponent(value));
    }
    const query = new URLSearchParams();
    for (const p of params.filter((x) => x.in === 'query')) {
      if (!rng.chance(0.5)) continue;
      const value = rng.chance(0.5)
        ? this.mutate(this.sample(p.schema ?? {}, 0), p.schema ?? {}, mutations, `query ${p.name}`)
        : this.sample(p.schema ?? {}, 0);
      for (const v of Array.isArray(value) ? value : [value]) query.append(p.name, typeof v === 'string' ? v : (JSON.stringify(v) ?? ''));
      if (rng.chance(0.05)) query.append(p.name, 'again');
    }
    if (rng.chance(0.05)) query.append(rng.pick(['unknown', 'page[0]', '__proto__', 'constructor']), rng.pick(STRINGS).slice(0, 100));
    const headers: Record<string, string> = {};
    const auth = rng.next();
    if (auth < 0.8) headers['X-API-Key'] = this.target.keys.live;
    else if (auth < 0.9) headers['X-API-Key'] = this.target.keys.test;
    else if (auth < 0.95)
      headers.Authorization = rng.pick([
        'Bearer',
        'Bearer ',
        'Basic abc',
        `Bearer ${this.target.keys.live}x`,
        'Bearer sess_nope',
        'Bearer oat_\u00e9',
      ]);
    else mutations.push('no credential');
    let body: string | FormData | undefined;
    const content = entry.op.requestBody?.content ?? {};
    const json = content['application/json']?.schema ?? content['application/x-www-form-urlencoded']?.schema;
    if (content['multipart/form-data']) {
      body = this.multipart(content['multipart/form-data'].schema ?? {}, mutations);
    } else if (json) {
      const kind = rng.next();
      if (kind < 0.08) {
        body = rng.pick([
          '{',
          '{"a":',
          'nul',
          '[1,]',
          '{"a":1}}',
          '\u0000',
          '{"__proto__":{"x":1}}',
          '{"constructor":{"prototype":{"x":1}}}',
          '"str"',
          '123',
          'null',
          '[]',
        ]);
        mutations.push(`raw body ${body.slice(0, 20)}`);
      } else if (kind < 0.12) {
        const depth = rng.pick([65, 200, 5000, 20000]);
        body = (rng.chance(0.5) ? '[' : '{"a":').repeat(depth);
        mutations.push(`nesting ${depth}`);
      } else {
        const value = this.sample(json, 0);
        body = JSON.stringify(kind < 0.3 ? value : this.mutate(value, json, mutations, 'body'));
      }
      headers['Content-Type'] = 'application/json';
      if (rng.chance(0.06)) {
        headers['Content-Type'] = rng.pick(CONTENT_TYPES);
        mutations.push(`content-type ${headers['Content-Type']}`);
      } else if (rng.chance(0.03)) {
        delete headers['Content-Type'];
        mutations.push('no content-type');
      }
    } else if (entry.method !== 'GET' && entry.method !== 'HEAD' && rng.chance(0.1)) {
      headers['Content-Type'] = rng.pick(['application/json', ...CONTENT_TYPES]);
      body = rng.pick(['', '{}', '{"x":1}', 'garbage', '\u0000']);
      mutations.push(`unexpected body (${headers['Content-Type']})`);
    }
    const qs = query.toString();
    return {
      operation: entry.op.operationId ?? `${entry.method} ${entry.template}`,
      htmlStatuses: Object.entries(entry.op.responses ?? {})
        .filter(([, r]) => r.content && 'text/html' in r.content)
        .map(([status]) => status),
      label: `${entry.op.operationId ?? entry.template}${mutations.length ? ` [${mutations.join(', ')}]` : ''}`,
      method: entry.method,
      url: qs ? `${path}?${qs}` : path,
      headers,
      body,
    };
  }

  /** Mostly a fixture's id, so requests reach the handlers; deletes aim elsewhere, so the fixtures live on. */
  private pathId(name: string, destructive: boolean): number {
    const known = this.target.ids[name] ?? [];
    if (known.length && !destructive && this.rng.chance(0.7)) return this.rng.pick(known);
    const avoid = new Set([...(this.target.protectedIds?.[name] ?? []), ...(destructive ? known : [])]);
    let id = this.rng.int(1, 60);
    while (avoid.has(id)) id++;
    return id;
  }

  private multipart(schema: Schema, mutations: string[]): FormData {
    const { rng } = this;
    const form = new FormData();
    const resolved = this.resolve(schema);
    for (const [name, prop] of Object.entries(resolved.properties ?? {})) {
      if (
        this.resolve(prop).format === 'binary' ||
        (this.resolve(prop).type === 'array' && this.resolve(this.resolve(prop).items ?? {}).format === 'binary')
      ) {
        const count = rng.chance(0.1) ? 0 : rng.int(1, 2);
        for (let i = 0; i < count; i++) {
          const kind = rng.pick(['empty', 'junk', 'pdf-header', 'png-header', 'nul-name']);
          const bytes =
            kind === 'empty'
              ? new Uint8Array()
              : kind === 'pdf-header'
                ? new TextEncoder().encode('%PDF-1.7\n%broken')
                : kind === 'png-header'
                  ? new Uint8Array([0x89, 0x50, 0x4e, 0x47, 13, 10, 26, 10, 0, 0])
                  : new TextEncoder().encode(rng.pick(STRINGS).slice(0, 1000) || 'x');
          const filename =
            kind === 'nul-name' ? 'a\u0000.pdf' : rng.pick(['s.pdf', 'x.png', '', '../../x.pdf', 'ü🦄.pdf', 'a'.repeat(300) + '.pdf']);
          form.append(
            rng.chance(0.9) ? name : 'other',
            new Blob([bytes], { type: rng.pick(['application/pdf', 'image/png', 'text/plain', '']) }),
            filename,
          );
          mutations.push(`file ${kind}`);
        }
      } else if (rng.chance(0.6)) {
        const value = this.mutate(this.sample(prop, 0), prop, mutations, `form ${name}`);
        form.append(name, typeof value === 'string' ? value : (JSON.stringify(value) ?? ''));
      }
    }
    return form;
  }

  /** A valid-looking value for the schema: example, enum, default, or the smallest thing its type allows. */
  private sample(schema: Schema, depth: number): unknown {
    const s = this.resolve(schema);
    if (s.example !== undefined && this.rng.chance(0.7)) return s.example;
    if (s.enum?.length) return this.rng.pick(s.enum);
    if (s.default !== undefined) return s.default;
    if (depth > 6) return null;
    switch (s.type) {
      case 'string':
        if (s.format === 'date-time') return '2026-01-15T10:00:00Z';
        if (s.format === 'date') return '2025-02-01';
        if (s.pattern) return '123456789';
        return 'x'.repeat(Math.max(1, s.minLength ?? 1));
      case 'integer':
        return Math.max(s.minimum ?? 1, 1);
      case 'number':
        return Math.max(s.minimum ?? 0, 0) + 100;
      case 'boolean':
        return true;
      case 'array':
        return Array.from({ length: Math.max(s.minItems ?? 1, 1) }, () => this.sample(s.items ?? {}, depth + 1));
      default: {
        const out: Record<string, unknown> = {};
        for (const [name, prop] of Object.entries(s.properties ?? {})) {
          if (s.required?.includes(name) || this.rng.chance(0.5))
            out[name] = URL_FIELD.test(name) ? LOCAL_URL : this.sample(prop, depth + 1);
        }
        return out;
      }
    }
  }

  /** One or more mutations of a valid value, guided by its schema; each is named in `mutations`. */
  private mutate(value: unknown, schema: Schema, mutations: string[], where: string): unknown {
    const { rng } = this;
    const s = this.resolve(schema);
    if (s.type === 'object' || (s.properties && typeof value === 'object' && value && !Array.isArray(value))) {
      const obj = { ...(value as Record<string, unknown>) };
      const names = Object.keys(s.properties ?? {});
      const action = rng.next();
      if (action < 0.12 && s.required?.length) {
        const gone = rng.pick(s.required);
        delete obj[gone];
        mutations.push(`${where}.${gone} missing`);
      } else if (action < 0.22) {
        obj[rng.pick(['extra', '__proto__', 'constructor', 'id', 'organization_id', 'livemode', 'x'.repeat(300)])] = rng.pick([
          1,
          'x',
          { a: 1 },
          null,
        ]);
        mutations.push(`${where} extra field`);
      } else if (action < 0.27) {
        mutations.push(`${where} replaced`);
        return rng.pick([null, [], 'string', 42, true, [obj]]);
      } else if (names.length) {
        // One field at a time, so a hostile value meets a request that is otherwise valid.
        const name = rng.pick(names);
        obj[name] = this.mutate(obj[name] ?? this.sample(s.properties![name], 1), s.properties![name], mutations, `${where}.${name}`);
      }
      return obj;
    }
    if (s.type === 'array') {
      const arr = Array.isArray(value) ? [...value] : [];
      const action = rng.next();
      if (action < 0.2) {
        mutations.push(`${where} 1000 items`);
        return Array.from({ length: 1000 }, () => arr[0] ?? 1);
      }
      if (action < 0.35) {
        mutations.push(`${where} empty`);
        return [];
      }
      if (action < 0.5) {
        mutations.push(`${where} not an array`);
        return rng.pick(['a,b', 1, { 0: 'a' }, null]);
      }
      if (arr.length) arr[0] = this.mutate(arr[0], s.items ?? {}, mutations, `${where}[0]`);
      else arr.push(rng.pick(STRINGS));
      return arr;
    }
    // Mostly a hostile value of the right type (it passes type checks and reaches the handler), else the wrong type.
    if (rng.chance(0.6) && (s.type === 'string' || s.type === 'integer' || s.type === 'number')) {
      if (s.type === 'string') {
        const v = rng.pick(STRINGS);
        mutations.push(`${where}=string(${JSON.stringify(v.slice(0, 12))}${v.length > 12 ? `..${v.length}` : ''})`);
        return typeof value === 'string' && rng.chance(0.5) ? value + v : v;
      }
      const v = rng.pick(NUMBERS);
      mutations.push(`${where}=${v}`);
      return v;
    }
    const action = rng.next();
    if (action < 0.25) {
      const v = rng.pick(STRINGS);
      mutations.push(`${where}=string(${JSON.stringify(v.slice(0, 12))}${v.length > 12 ? `..${v.length}` : ''})`);
      return v;
    }
    if (action < 0.45) {
      const v = rng.pick(NUMBERS);
      mutations.push(`${where}=${v}`);
      return v;
    }
    if (action < 0.6) {
      mutations.push(`${where}=null`);
      return null;
    }
    if (action < 0.7) {
      mutations.push(`${where}=bool`);
      return rng.chance(0.5);
    }
    if (action < 0.85) {
      mutations.push(`${where}=object`);
      return rng.pick([{}, [], { $gt: '' }, [1, 2], { a: { b: { c: [1] } } }]);
    }
    mutations.push(`${where}=date-ish`);
    return rng.pick(['2025-02-30', '9999-12-31T23:59:59Z', '0000-00-00', '2025-13-01', '2025-01-01T25:00:00Z', '-000001-01-01T00:00:00Z']);
  }

  private resolve(schema: Schema): Schema {
    let s = schema ?? {};
    for (let i = 0; i < 10 && s.$ref; i++) s = this.target.doc.components.schemas[s.$ref.replace('#/components/schemas/', '')] ?? {};
    const composed = s.allOf ?? s.oneOf ?? s.anyOf;
    if (composed?.length)
      return {
        ...this.resolve(composed[0]),
        ...Object.fromEntries(Object.entries(s).filter(([k]) => !['allOf', 'oneOf', 'anyOf'].includes(k))),
      };
    return s;
  }
}

/** Points $refs at the registered document, as the e2e validator does. */
function rewriteRefs(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(rewriteRefs);
  if (schema && typeof schema === 'object') {
    const out = Object.fromEntries(
      Object.entries(schema).map(([k, v]) => [k, k === '$ref' && typeof v === 'string' ? `openapi${v}` : rewriteRefs(v)]),
    ) as Record<string, unknown>;
    if (out.nullable === true && (out.type === undefined || out.$ref)) {
      const { nullable: _n, ...rest } = out;
      return { anyOf: [rest, { type: 'null' }] };
    }
    return out;
  }
  return schema;
}

/** The summary table the benchmark prints (and the CI test shows when it fails). */
export function formatSummary(summary: FuzzSummary, lost = 0): string {
  const rows: [string, string][] = [
    ['requests', String(summary.requests)],
    ['operations', String(summary.operations)],
    ['2xx', String(summary.byClass['2xx'])],
    ['3xx', String(summary.byClass['3xx'])],
    ['4xx', String(summary.byClass['4xx'])],
    ['5xx', String(summary.byClass['5xx'])],
    ['no response', String(summary.byClass.network)],
    ['failures', String(summary.failures.length)],
    ['lost items', String(lost)],
    ['seconds', (summary.durationMs / 1000).toFixed(1)],
    ['requests/s', (summary.requests / Math.max(summary.durationMs / 1000, 0.001)).toFixed(0)],
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  const lines = ['| metric | value |', '|---|---|', ...rows.map(([k, v]) => `| ${k.padEnd(width)} | ${v} |`)];
  lines.push(
    '',
    `statuses: ${Object.entries(summary.byStatus)
      .map(([s, n]) => `${s}=${n}`)
      .join(' ')}`,
  );
  const slowest = Object.entries(summary.msByOperation)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 5);
  lines.push(`slowest operations (total ms): ${slowest.map(([op, ms]) => `${op}=${ms}`).join(' ')}`);
  for (const f of summary.failures.slice(0, 20)) lines.push(`FAIL ${f.status} ${f.problem} <- ${f.request}\n     ${f.body}`);
  return lines.join('\n');
}
