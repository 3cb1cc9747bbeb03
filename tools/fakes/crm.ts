/**
 * Local fakes of the CRM REST APIs the server syncs with (shapes: /work/shared/CRM-APIS.md):
 * Salesforce (OAuth refresh-token flow, sObjects Opportunity), HubSpot (private app token, CRM v3
 * deals), Pipedrive (API v2 deals, `x-api-token`) and the generic `custom` JSON endpoint. Each
 * listens on 127.0.0.1 with a random port, keeps its records in memory, checks credentials the
 * way the provider does, and answers errors and rate limits in the provider's own shape. Tests
 * queue failures with `failNext()` and edit records "in the CRM" with `touch()`.
 */
import { createHmac, randomBytes } from 'node:crypto';
import * as http from 'node:http';
import { AddressInfo } from 'node:net';

export interface FakeRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface FakeReply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface FakeCrm {
  url: string;
  requests: FakeRequest[];
  /** The next `times` authenticated calls get this reply instead of being served. */
  failNext(reply: FakeReply, times?: number): void;
  close(): Promise<void>;
}

type Handler = (req: FakeRequest) => FakeReply | Promise<FakeReply>;

interface Served {
  url: string;
  requests: FakeRequest[];
  failures: FakeReply[];
  close(): Promise<void>;
}

async function serve(
  handler: Handler,
  isAuthCall: (req: FakeRequest) => boolean,
  authorize: (req: FakeRequest) => FakeReply | null,
): Promise<Served> {
  const requests: FakeRequest[] = [];
  const failures: FakeReply[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      const r: FakeRequest = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(r);
      const send = (reply: FakeReply) => {
        const headers: Record<string, string> = { ...reply.headers };
        if (reply.body !== undefined) headers['content-type'] ??= 'application/json';
        res.writeHead(reply.status, headers);
        res.end(reply.body === undefined ? undefined : typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body));
      };
      void (async () => {
        try {
          if (!isAuthCall(r)) {
            const denied = authorize(r);
            if (denied) return send(denied);
            const failure = failures.shift();
            if (failure) return send(failure);
          }
          send(await handler(r));
        } catch (err) {
          send({ status: 500, body: { message: (err as Error).message } });
        }
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    failures,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function json(body: string): Record<string, any> {
  try {
    const parsed: unknown = body ? JSON.parse(body) : {};
    return parsed && typeof parsed === 'object' ? (parsed as Record<string, any>) : {};
  } catch {
    return {};
  }
}

function failer(failures: FakeReply[]) {
  return (reply: FakeReply, times = 1) => {
    for (let i = 0; i < times; i++) failures.push(reply);
  };
}

// ---------------------------------------------------------------------------------------------
// Salesforce
// ---------------------------------------------------------------------------------------------

export interface FakeSalesforceRecord {
  Id: string;
  fields: Record<string, unknown>;
  SystemModstamp: Date;
}

export interface FakeSalesforce extends FakeCrm {
  credentials: { client_id: string; client_secret: string; refresh_token: string; instance_url: string };
  organizationId: string;
  records: Map<string, FakeSalesforceRecord>;
  /** Tokens issued so far; `expireTokens()` makes every one invalid (401 INVALID_SESSION_ID). */
  tokensIssued: number;
  expireTokens(): void;
  byExternalId(ref: string): FakeSalesforceRecord | undefined;
  /** A change made in Salesforce (by a user): new values and SystemModstamp. */
  touch(id: string, fields: Record<string, unknown>, at: Date): void;
}

const SF_API = '/services/data/v62.0';
const SF_STANDARD = new Set([
  'Name',
  'StageName',
  'CloseDate',
  'Amount',
  'AccountId',
  'Description',
  'Probability',
  'Type',
  'LeadSource',
  'NextStep',
]);
const SF_REQUIRED = ['Name', 'StageName', 'CloseDate'];

export async function startFakeSalesforce(opts: { now?: () => Date; pageSize?: number } = {}): Promise<FakeSalesforce> {
  const now = opts.now ?? (() => new Date());
  const credentials = {
    client_id: `3MVG9${randomBytes(6).toString('hex')}`,
    client_secret: randomBytes(16).toString('hex'),
    refresh_token: `5Aep8${randomBytes(12).toString('hex')}`,
    instance_url: '',
  };
  const organizationId = `00D${randomBytes(6).toString('hex').toUpperCase()}`;
  const tokens = new Set<string>();
  const records = new Map<string, FakeSalesforceRecord>();
  const cursors = new Map<string, FakeSalesforceRecord[]>();
  let nextId = 1;
  let apiUsage = 0;
  const sfError = (status: number, errorCode: string, message: string, fields?: string[]): FakeReply => ({
    status,
    body: [{ message, errorCode, ...(fields ? { fields } : {}) }],
  });
  const view = (r: FakeSalesforceRecord) => ({
    attributes: { type: 'Opportunity', url: `${SF_API}/sobjects/Opportunity/${r.Id}` },
    Id: r.Id,
    ...r.fields,
    SystemModstamp: r.SystemModstamp.toISOString().replace('Z', '+0000'),
    LastModifiedDate: r.SystemModstamp.toISOString().replace('Z', '+0000'),
  });
  const checkFields = (body: Record<string, unknown>): FakeReply | null => {
    for (const key of Object.keys(body)) {
      if (key === 'Id' || key === 'MCA_Deal_Id__c')
        return sfError(400, 'INVALID_FIELD', `Unable to create/update fields: ${key}. Please check the security settings of this field.`);
      if (!SF_STANDARD.has(key) && !key.endsWith('__c'))
        return sfError(400, 'INVALID_FIELD', `No such column '${key}' on sobject of type Opportunity`);
    }
    if (body.Amount !== undefined && body.Amount !== null && typeof body.Amount !== 'number')
      return sfError(400, 'JSON_PARSER_ERROR', `Cannot deserialize instance of double from VALUE_STRING value ${String(body.Amount)}`);
    return null;
  };
  const page = (rows: FakeSalesforceRecord[]) => {
    const size = opts.pageSize ?? 2000;
    const first = rows.slice(0, size);
    const rest = rows.slice(size);
    let nextRecordsUrl: string | undefined;
    if (rest.length) {
      const cursor = `01g${randomBytes(6).toString('hex')}-${size}`;
      cursors.set(cursor, rest);
      nextRecordsUrl = `${SF_API}/query/${cursor}`;
    }
    return { totalSize: rows.length, done: !rest.length, records: first.map(view), ...(nextRecordsUrl ? { nextRecordsUrl } : {}) };
  };

  const handler: Handler = (req) => {
    const headers = { 'Sforce-Limit-Info': `api-usage=${++apiUsage}/15000` };
    const reply = (r: FakeReply): FakeReply => ({ ...r, headers: { ...headers, ...r.headers } });
    if (req.path === '/services/oauth2/token' && req.method === 'POST') {
      const form = new URLSearchParams(req.body);
      if (form.get('grant_type') !== 'refresh_token')
        return { status: 400, body: { error: 'unsupported_grant_type', error_description: 'grant type not supported' } };
      if (form.get('client_id') !== credentials.client_id || form.get('client_secret') !== credentials.client_secret)
        return { status: 400, body: { error: 'invalid_client', error_description: 'invalid client credentials' } };
      if (form.get('refresh_token') !== credentials.refresh_token)
        return { status: 400, body: { error: 'invalid_grant', error_description: 'expired access/refresh token' } };
      const token = `${organizationId}!${randomBytes(24).toString('base64url')}`;
      tokens.add(token);
      fake.tokensIssued++;
      return {
        status: 200,
        body: {
          access_token: token,
          instance_url: served.url,
          id: `${served.url}/id/${organizationId}/005000000000001`,
          token_type: 'Bearer',
          issued_at: String(now().getTime()),
          signature: randomBytes(32).toString('base64'),
          scope: 'api refresh_token',
        },
      };
    }
    if (req.path === `${SF_API}/limits` && req.method === 'GET')
      return reply({ status: 200, body: { DailyApiRequests: { Max: 15000, Remaining: 15000 - apiUsage } } });
    const upsert = new RegExp(`^${SF_API}/sobjects/Opportunity/MCA_Deal_Id__c/([^/]+)$`).exec(req.path);
    if (upsert && req.method === 'PATCH') {
      const ref = decodeURIComponent(upsert[1]);
      const body = json(req.body);
      const bad = checkFields(body);
      if (bad) return reply(bad);
      const matches = [...records.values()].filter((r) => r.fields.MCA_Deal_Id__c === ref);
      if (matches.length > 1) return reply({ status: 300, body: matches.map((m) => `${SF_API}/sobjects/Opportunity/${m.Id}`) });
      if (matches.length === 1) {
        Object.assign(matches[0].fields, body);
        matches[0].SystemModstamp = now();
        return reply({ status: 200, body: { id: matches[0].Id, errors: [], success: true, created: false } });
      }
      const missing = SF_REQUIRED.filter((f) => body[f] === undefined || body[f] === null || body[f] === '');
      if (missing.length)
        return reply(sfError(400, 'REQUIRED_FIELD_MISSING', `Required fields are missing: [${missing.join(', ')}]`, missing));
      const id = `006${String(nextId++).padStart(15, '0')}`;
      records.set(id, { Id: id, fields: { ...body, MCA_Deal_Id__c: ref }, SystemModstamp: now() });
      return reply({ status: 201, body: { id, errors: [], success: true, created: true } });
    }
    const byId = new RegExp(`^${SF_API}/sobjects/Opportunity/([^/]+)$`).exec(req.path);
    if (byId) {
      const record = records.get(byId[1]);
      if (!record) return reply(sfError(404, 'NOT_FOUND', 'The requested resource does not exist'));
      if (req.method === 'GET') return reply({ status: 200, body: view(record) });
      if (req.method === 'PATCH') {
        const body = json(req.body);
        const bad = checkFields(body);
        if (bad) return reply(bad);
        Object.assign(record.fields, body);
        record.SystemModstamp = now();
        return reply({ status: 204 });
      }
    }
    if (req.path === `${SF_API}/query` && req.method === 'GET') {
      const q = req.query.get('q') ?? '';
      if (!/^SELECT .+ FROM Opportunity/i.test(q)) return reply(sfError(400, 'MALFORMED_QUERY', `unexpected token: ${q.slice(0, 40)}`));
      const since = /SystemModstamp\s*>\s*(\S+)/i.exec(q)?.[1];
      const sinceDate = since ? new Date(since) : null;
      if (since && Number.isNaN(sinceDate!.getTime())) return reply(sfError(400, 'MALFORMED_QUERY', `invalid date: ${since}`));
      const limit = /LIMIT\s+(\d+)/i.exec(q)?.[1];
      let rows = [...records.values()].filter((r) => !sinceDate || r.SystemModstamp > sinceDate);
      rows.sort((a, b) => a.SystemModstamp.getTime() - b.SystemModstamp.getTime());
      if (limit) rows = rows.slice(0, Number(limit));
      return reply({ status: 200, body: page(rows) });
    }
    const more = new RegExp(`^${SF_API}/query/([^/]+)$`).exec(req.path);
    if (more && req.method === 'GET') {
      const rows = cursors.get(more[1]);
      if (!rows) return reply(sfError(400, 'INVALID_QUERY_LOCATOR', 'invalid query locator'));
      cursors.delete(more[1]);
      return reply({ status: 200, body: page(rows) });
    }
    return reply(sfError(404, 'NOT_FOUND', `The requested resource does not exist: ${req.method} ${req.path}`));
  };

  const served = await serve(
    handler,
    (req) => req.path === '/services/oauth2/token',
    (req) => {
      const token = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
      if (!token || !tokens.has(token))
        return { status: 401, body: [{ message: 'Session expired or invalid', errorCode: 'INVALID_SESSION_ID' }] };
      return null;
    },
  );
  credentials.instance_url = served.url;
  const fake: FakeSalesforce = {
    url: served.url,
    requests: served.requests,
    credentials,
    organizationId,
    records,
    tokensIssued: 0,
    failNext: failer(served.failures),
    expireTokens: () => tokens.clear(),
    byExternalId: (ref) => [...records.values()].find((r) => r.fields.MCA_Deal_Id__c === ref),
    touch(id, fields, at) {
      const record = records.get(id);
      if (!record) throw new Error(`no Opportunity ${id}`);
      Object.assign(record.fields, fields);
      record.SystemModstamp = at;
    },
    close: served.close,
  };
  return fake;
}

// ---------------------------------------------------------------------------------------------
// HubSpot
// ---------------------------------------------------------------------------------------------

export interface FakeHubspotDeal {
  id: string;
  properties: Record<string, string | null>;
  createdAt: Date;
  updatedAt: Date;
}

export interface FakeHubspot extends FakeCrm {
  token: string;
  /** The app's client secret: HubSpot signs webhooks (v3) with it. */
  clientSecret: string;
  deals: Map<string, FakeHubspotDeal>;
  byExternalId(ref: string): FakeHubspotDeal | undefined;
  touch(id: string, properties: Record<string, string>, at: Date): void;
}

const HS_PROPERTIES = new Set([
  'dealname',
  'amount',
  'pipeline',
  'dealstage',
  'closedate',
  'mca_deal_id',
  'description',
  'dealtype',
  'hubspot_owner_id',
  'mca_health_score',
  'mca_grade',
  'mca_decision',
]);

/** HubSpot's v3 webhook signature: base64 HMAC-SHA256 of method + uri + body + timestamp with the client secret. */
export function hubspotSignatureV3(secret: string, method: string, uri: string, body: string, timestamp: string): string {
  return createHmac('sha256', secret).update(`${method}${uri}${body}${timestamp}`, 'utf8').digest('base64');
}

export async function startFakeHubspot(opts: { now?: () => Date; pageSize?: number } = {}): Promise<FakeHubspot> {
  const now = opts.now ?? (() => new Date());
  const token = `pat-na1-${randomBytes(16).toString('hex')}`;
  const deals = new Map<string, FakeHubspotDeal>();
  let nextId = 512;
  const correlationId = () => randomBytes(16).toString('hex');
  const rateHeaders = { 'X-HubSpot-RateLimit-Daily': '250000', 'X-HubSpot-RateLimit-Secondly': '10' };
  const validation = (message: string, errors: unknown[] = []): FakeReply => ({
    status: 400,
    body: { status: 'error', message, correlationId: correlationId(), category: 'VALIDATION_ERROR', errors },
  });
  const view = (d: FakeHubspotDeal) => ({
    id: d.id,
    properties: {
      ...d.properties,
      hs_object_id: d.id,
      createdate: d.createdAt.toISOString(),
      hs_lastmodifieddate: d.updatedAt.toISOString(),
    },
    createdAt: d.createdAt.toISOString(),
    updatedAt: d.updatedAt.toISOString(),
    archived: false,
  });
  const checkProperties = (props: unknown): FakeReply | Record<string, string | null> => {
    if (!props || typeof props !== 'object') return validation('Invalid input JSON: properties must be an object');
    const out: Record<string, string | null> = {};
    for (const [key, value] of Object.entries(props as Record<string, unknown>)) {
      if (!HS_PROPERTIES.has(key))
        return validation(
          `Property values were not valid: [{"isValid":false,"message":"Property \\"${key}\\" does not exist","error":"PROPERTY_DOESNT_EXIST","name":"${key}"}]`,
          [{ message: `Property "${key}" does not exist`, code: 'PROPERTY_DOESNT_EXIST', in: key, context: { propertyName: [key] } }],
        );
      if (key === 'amount' && value !== null && value !== '' && Number.isNaN(Number(value)))
        return validation(`Property values were not valid: amount "${String(value)}" is not a number`, [
          { message: `${String(value)} was not a valid number`, code: 'INVALID_FLOAT', in: key },
        ]);
      out[key] = value === null ? null : String(value);
    }
    return out;
  };
  const find = (idOrValue: string, idProperty: string | null) =>
    idProperty ? [...deals.values()].find((d) => d.properties[idProperty] === idOrValue) : deals.get(idOrValue);
  const create = (properties: Record<string, string | null>) => {
    const at = now();
    const deal: FakeHubspotDeal = { id: String(nextId++), properties, createdAt: at, updatedAt: at };
    deals.set(deal.id, deal);
    return deal;
  };

  const handler: Handler = (req) => {
    const reply = (r: FakeReply): FakeReply => ({ ...r, headers: { ...rateHeaders, ...r.headers } });
    const base = '/crm/v3/objects/deals';
    if (req.path === base && req.method === 'GET') {
      const limit = Number(req.query.get('limit') ?? 10);
      return reply({ status: 200, body: { results: [...deals.values()].slice(0, limit).map(view) } });
    }
    if (req.path === base && req.method === 'POST') {
      const props = checkProperties(json(req.body).properties);
      if ('status' in props && typeof props.status === 'number') return reply(props as FakeReply);
      return reply({ status: 201, body: view(create(props as Record<string, string | null>)) });
    }
    if (req.path === `${base}/batch/upsert` && req.method === 'POST') {
      const inputs = json(req.body).inputs;
      if (!Array.isArray(inputs) || inputs.length === 0) return reply(validation('Invalid input JSON: inputs must be a non-empty array'));
      const results = [];
      for (const input of inputs as { id?: string; idProperty?: string; properties?: unknown }[]) {
        if (!input.id || !input.idProperty) return reply(validation('Invalid input JSON: id and idProperty are required'));
        const props = checkProperties(input.properties ?? {});
        if ('status' in props && typeof props.status === 'number') return reply(props as FakeReply);
        const existing = find(input.id, input.idProperty);
        if (existing) {
          Object.assign(existing.properties, props);
          existing.updatedAt = now();
          results.push({ ...view(existing), new: false });
        } else {
          results.push({ ...view(create({ ...(props as Record<string, string | null>), [input.idProperty]: input.id })), new: true });
        }
      }
      return reply({
        status: 200,
        body: { status: 'COMPLETE', results, startedAt: now().toISOString(), completedAt: now().toISOString() },
      });
    }
    if (req.path === `${base}/search` && req.method === 'POST') {
      const body = json(req.body);
      const filters: { propertyName: string; operator: string; value: string }[] = body.filterGroups?.[0]?.filters ?? [];
      let rows = [...deals.values()];
      for (const f of filters) {
        if (f.propertyName === 'hs_lastmodifieddate' && f.operator === 'GT')
          rows = rows.filter((d) => d.updatedAt.getTime() > Number(f.value));
        else if (f.operator === 'EQ') rows = rows.filter((d) => d.properties[f.propertyName] === f.value);
        else return reply(validation(`Unsupported filter ${f.propertyName} ${f.operator}`));
      }
      rows.sort((a, b) => a.updatedAt.getTime() - b.updatedAt.getTime());
      const after = Number(body.after ?? 0);
      const limit = Math.min(Number(body.limit ?? 10), opts.pageSize ?? 200);
      const slice = rows.slice(after, after + limit);
      const next = after + limit < rows.length ? { next: { after: String(after + limit) } } : undefined;
      return reply({ status: 200, body: { total: rows.length, results: slice.map(view), ...(next ? { paging: next } : {}) } });
    }
    const one = new RegExp(`^${base}/([^/]+)$`).exec(req.path);
    if (one) {
      const deal = find(decodeURIComponent(one[1]), req.query.get('idProperty'));
      if (!deal)
        return reply({
          status: 404,
          body: { status: 'error', message: 'resource not found', correlationId: correlationId(), category: 'OBJECT_NOT_FOUND' },
        });
      if (req.method === 'GET') return reply({ status: 200, body: view(deal) });
      if (req.method === 'PATCH') {
        const props = checkProperties(json(req.body).properties);
        if ('status' in props && typeof props.status === 'number') return reply(props as FakeReply);
        Object.assign(deal.properties, props);
        deal.updatedAt = now();
        return reply({ status: 200, body: view(deal) });
      }
    }
    return reply({
      status: 404,
      body: {
        status: 'error',
        message: `Unable to route ${req.method} ${req.path}`,
        correlationId: correlationId(),
        category: 'OBJECT_NOT_FOUND',
      },
    });
  };

  const served = await serve(
    handler,
    () => false,
    (req) =>
      String(req.headers.authorization ?? '') === `Bearer ${token}`
        ? null
        : {
            status: 401,
            body: {
              status: 'error',
              message: 'Authentication credentials not found. This API supports OAuth 2.0 authentication.',
              correlationId: correlationId(),
              category: 'INVALID_AUTHENTICATION',
            },
          },
  );
  return {
    url: served.url,
    requests: served.requests,
    token,
    clientSecret: randomBytes(16).toString('hex'),
    deals,
    failNext: failer(served.failures),
    byExternalId: (ref) => [...deals.values()].find((d) => d.properties.mca_deal_id === ref),
    touch(id, properties, at) {
      const deal = deals.get(id);
      if (!deal) throw new Error(`no deal ${id}`);
      Object.assign(deal.properties, properties);
      deal.updatedAt = at;
    },
    close: served.close,
  };
}

/** A 429 as HubSpot sends it (secondly limit). */
export const HUBSPOT_429: FakeReply = {
  status: 429,
  headers: { 'Retry-After': '1', 'X-HubSpot-RateLimit-Secondly': '10', 'X-HubSpot-RateLimit-Secondly-Remaining': '0' },
  body: {
    status: 'error',
    message: 'You have reached your secondly limit.',
    errorType: 'RATE_LIMIT',
    correlationId: 'c0ffee00-0000-4000-8000-000000000000',
    policyName: 'SECONDLY',
  },
};

// ---------------------------------------------------------------------------------------------
// Pipedrive (API v2)
// ---------------------------------------------------------------------------------------------

export interface FakePipedriveDeal {
  id: number;
  title: string;
  value: number | null;
  currency: string;
  status: string;
  expected_close_date: string | null;
  custom_fields: Record<string, unknown>;
  add_time: Date;
  update_time: Date;
}

export interface FakePipedrive extends FakeCrm {
  apiToken: string;
  deals: Map<number, FakePipedriveDeal>;
  touch(id: number, fields: Partial<Omit<FakePipedriveDeal, 'id'>>, at: Date): void;
}

const PD_STATUSES = ['open', 'won', 'lost', 'deleted'];

export async function startFakePipedrive(opts: { now?: () => Date; pageSize?: number } = {}): Promise<FakePipedrive> {
  const now = opts.now ?? (() => new Date());
  const apiToken = randomBytes(20).toString('hex');
  const deals = new Map<number, FakePipedriveDeal>();
  let nextId = 42;
  const rfc = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');
  const view = (d: FakePipedriveDeal) => ({
    ...d,
    add_time: rfc(d.add_time),
    update_time: rfc(d.update_time),
    is_deleted: d.status === 'deleted',
    is_archived: false,
  });
  const fail = (status: number, error: string): FakeReply => ({ status, body: { success: false, error } });
  /** API v2 is strictly typed: a wrong type is a 400, not a coercion. */
  const apply = (deal: Partial<FakePipedriveDeal>, body: Record<string, unknown>): FakeReply | null => {
    for (const [key, value] of Object.entries(body)) {
      switch (key) {
        case 'title':
          if (typeof value !== 'string' || !value)
            return fail(400, "Validation failed: title: Parameter 'title' must be a non-empty string");
          deal.title = value;
          break;
        case 'value':
          if (value !== null && typeof value !== 'number') return fail(400, "Validation failed: value: Parameter 'value' must be a number");
          deal.value = value;
          break;
        case 'currency':
          if (typeof value !== 'string') return fail(400, "Validation failed: currency: Parameter 'currency' must be a string");
          deal.currency = value;
          break;
        case 'status':
          if (typeof value !== 'string' || !PD_STATUSES.includes(value))
            return fail(400, `Validation failed: status: Parameter 'status' must be one of ${PD_STATUSES.join(', ')}`);
          deal.status = value;
          break;
        case 'expected_close_date':
          if (value !== null && (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)))
            return fail(400, "Validation failed: expected_close_date: Parameter 'expected_close_date' must be a date (YYYY-MM-DD)");
          deal.expected_close_date = value;
          break;
        case 'custom_fields':
          if (!value || typeof value !== 'object')
            return fail(400, "Validation failed: custom_fields: Parameter 'custom_fields' must be an object");
          deal.custom_fields = { ...deal.custom_fields, ...(value as Record<string, unknown>) };
          break;
        case 'org_id':
        case 'pipeline_id':
        case 'stage_id':
        case 'person_id':
          if (value !== null && typeof value !== 'number')
            return fail(400, `Validation failed: ${key}: Parameter '${key}' must be an integer`);
          break;
        default:
          return fail(400, `Validation failed: Parameter '${key}' is not allowed for this request`);
      }
    }
    return null;
  };

  const handler: Handler = (req) => {
    const reply = (r: FakeReply): FakeReply => ({
      ...r,
      headers: {
        'x-ratelimit-limit': '80',
        'x-ratelimit-remaining': '79',
        'x-ratelimit-reset': '2',
        'x-daily-requests-left': '9999',
        ...r.headers,
      },
    });
    if (req.path === '/v1/users/me' && req.method === 'GET')
      return reply({
        status: 200,
        body: { success: true, data: { id: 1, name: 'Fake Owner', email: 'owner@example.test', company_id: 7, company_domain: 'fakeco' } },
      });
    if (req.path === '/api/v2/deals' && req.method === 'POST') {
      const body = json(req.body);
      if (typeof body.title !== 'string') return reply(fail(400, "Validation failed: title: Parameter 'title' is required"));
      const at = now();
      const deal: FakePipedriveDeal = {
        id: nextId++,
        title: '',
        value: null,
        currency: 'USD',
        status: 'open',
        expected_close_date: null,
        custom_fields: {},
        add_time: at,
        update_time: at,
      };
      const bad = apply(deal, body);
      if (bad) return reply(bad);
      deals.set(deal.id, deal);
      return reply({ status: 201, body: { success: true, data: view(deal) } });
    }
    if (req.path === '/api/v2/deals' && req.method === 'GET') {
      const since = req.query.get('updated_since');
      const sinceDate = since ? new Date(since) : null;
      if (since && (Number.isNaN(sinceDate!.getTime()) || !/T.*(Z|[+-]\d{2}:\d{2})$/.test(since)))
        return reply(fail(400, "Validation failed: updated_since: Parameter 'updated_since' must be an RFC 3339 date-time"));
      const rows = [...deals.values()].filter((d) => !sinceDate || d.update_time > sinceDate);
      rows.sort((a, b) => a.update_time.getTime() - b.update_time.getTime());
      if (req.query.get('sort_direction') === 'desc') rows.reverse();
      const start = Number(req.query.get('cursor') ?? 0);
      const limit = Math.min(Number(req.query.get('limit') ?? 100), opts.pageSize ?? 500);
      const slice = rows.slice(start, start + limit);
      const next = start + limit < rows.length ? String(start + limit) : null;
      return reply({ status: 200, body: { success: true, data: slice.map(view), additional_data: { next_cursor: next } } });
    }
    const one = /^\/api\/v2\/deals\/(\d+)$/.exec(req.path);
    if (one) {
      const deal = deals.get(Number(one[1]));
      if (!deal) return reply(fail(404, 'Deal not found'));
      if (req.method === 'GET') return reply({ status: 200, body: { success: true, data: view(deal) } });
      if (req.method === 'PATCH') {
        const bad = apply(deal, json(req.body));
        if (bad) return reply(bad);
        deal.update_time = now();
        return reply({ status: 200, body: { success: true, data: view(deal) } });
      }
    }
    return reply(fail(404, `Unknown method ${req.method} ${req.path}`));
  };

  const served = await serve(
    handler,
    () => false,
    (req) => {
      const given = req.headers['x-api-token'] ?? req.query.get('api_token');
      return given === apiToken ? null : { status: 401, body: { success: false, error: 'unauthorized access', errorCode: 401 } };
    },
  );
  return {
    url: served.url,
    requests: served.requests,
    apiToken,
    deals,
    failNext: failer(served.failures),
    touch(id, fields, at) {
      const deal = deals.get(id);
      if (!deal) throw new Error(`no deal ${id}`);
      Object.assign(deal, fields);
      deal.update_time = at;
    },
    close: served.close,
  };
}

/** A 429 as Pipedrive sends it. */
export const PIPEDRIVE_429: FakeReply = {
  status: 429,
  headers: { 'x-ratelimit-limit': '80', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '2', 'Retry-After': '2' },
  body: { success: false, error: 'Request over limit' },
};

// ---------------------------------------------------------------------------------------------
// custom: the generic HTTPS JSON endpoint (contract in README, "CRM integration")
// ---------------------------------------------------------------------------------------------

export interface FakeCustomRecord {
  id: string;
  deal_ref: string;
  fields: Record<string, unknown>;
  updated_at: Date;
}

export interface FakeCustomCrm extends FakeCrm {
  apiKey: string;
  records: Map<string, FakeCustomRecord>;
  touch(ref: string, fields: Record<string, unknown>, at: Date): void;
}

export async function startFakeCustomCrm(opts: { now?: () => Date } = {}): Promise<FakeCustomCrm> {
  const now = opts.now ?? (() => new Date());
  const apiKey = `ck_${randomBytes(16).toString('hex')}`;
  const records = new Map<string, FakeCustomRecord>();
  let nextId = 1;
  const view = (r: FakeCustomRecord) => ({ ...r, updated_at: r.updated_at.toISOString() });
  const handler: Handler = (req) => {
    if (req.path === '/deals' && req.method === 'GET') {
      const since = req.query.get('updated_since');
      const rows = [...records.values()].filter((r) => !since || r.updated_at > new Date(since));
      rows.sort((a, b) => a.updated_at.getTime() - b.updated_at.getTime());
      return { status: 200, body: { data: rows.slice(0, Number(req.query.get('limit') ?? 1000)).map(view) } };
    }
    const one = /^\/deals\/([^/]+)$/.exec(req.path);
    if (one && req.method === 'PUT') {
      const ref = decodeURIComponent(one[1]);
      const body = json(req.body);
      if (!body.fields || typeof body.fields !== 'object') return { status: 422, body: { error: 'fields must be an object' } };
      const existing = records.get(ref);
      if (existing) {
        Object.assign(existing.fields, body.fields);
        existing.updated_at = now();
        return { status: 200, body: { id: existing.id, created: false } };
      }
      const record = { id: `c-${nextId++}`, deal_ref: ref, fields: { ...body.fields }, updated_at: now() };
      records.set(ref, record);
      return { status: 201, body: { id: record.id, created: true } };
    }
    return { status: 404, body: { error: `no route ${req.method} ${req.path}` } };
  };
  const served = await serve(
    handler,
    () => false,
    (req) => (String(req.headers.authorization ?? '') === `Bearer ${apiKey}` ? null : { status: 401, body: { error: 'invalid api key' } }),
  );
  return {
    url: served.url,
    requests: served.requests,
    apiKey,
    records,
    failNext: failer(served.failures),
    touch(ref, fields, at) {
      const record = records.get(ref);
      if (!record) throw new Error(`no record ${ref}`);
      Object.assign(record.fields, fields);
      record.updated_at = at;
    },
    close: served.close,
  };
}
