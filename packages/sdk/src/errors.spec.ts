import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { ErrorCode } from '../../../apps/api/src/platform/errors/api-error';
import {
  AuthenticationError,
  ConflictError,
  ERROR_CODES,
  IdempotencyKeyReusedError,
  Ledgerlens,
  LedgerlensError,
  NotFoundError,
  PermissionError,
  RateLimitError,
  ServerError,
  ValidationError,
  type ApiErrorCode,
  type LedgerlensApiError,
} from './index.js';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function assertType<T extends true>(_value?: T): void {}

describe('typed errors', () => {
  let server: Server;
  let client: Ledgerlens;
  let answer: { status: number; body: unknown; headers?: Record<string, string> };

  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(answer.status, { 'content-type': 'application/json', 'x-request-id': 'req_1', ...answer.headers });
        res.end(typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    client = new Ledgerlens({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, apiKey: 'k', maxRetries: 0 });
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const fail = async (status: number, code: string, extra: Partial<typeof answer> = {}) => {
    answer = { status, body: { detail: `${code} detail`, code, errors: [] }, ...extra };
    return (await client.deals.get(1).catch((e: unknown) => e)) as LedgerlensApiError;
  };

  it('has every error code of the server, and only those', () => {
    expect([...ERROR_CODES].sort()).toEqual(Object.values(ErrorCode).sort());
    assertType<Equal<ApiErrorCode, `${ErrorCode}`>>();
  });

  it.each([
    [401, 'INVALID_API_KEY', AuthenticationError, 'authentication'],
    [403, 'FORBIDDEN', PermissionError, 'permission'],
    [404, 'DEAL_NOT_FOUND', NotFoundError, 'not_found'],
    [409, 'DUPLICATE_RESOURCE', ConflictError, 'conflict'],
    [409, 'IDEMPOTENCY_IN_PROGRESS', ConflictError, 'conflict'],
    [422, 'IDEMPOTENCY_KEY_REUSED', IdempotencyKeyReusedError, 'idempotency'],
    [422, 'INVALID_DECISION', ValidationError, 'validation'],
    [429, 'QUOTA_EXCEEDED', RateLimitError, 'rate_limit'],
    [500, 'INTERNAL_ERROR', ServerError, 'server'],
    [413, 'PAYLOAD_TOO_LARGE', LedgerlensError, 'other'],
  ] as const)('%i %s is a %p (kind %s)', async (status, code, type, kind) => {
    const err = await fail(status, code);
    expect(err).toBeInstanceOf(type);
    expect(err).toBeInstanceOf(LedgerlensError);
    expect(err).toMatchObject({ status, code, kind, name: type.name, requestId: 'req_1' });
  });

  it('gives a validation error its fields, typed and grouped', async () => {
    const err = await fail(422, 'VALIDATION_ERROR', {
      body: {
        detail: 'Validation failed',
        code: 'VALIDATION_ERROR',
        errors: [
          {
            loc: ['body', 'business_name'],
            msg: 'should not be empty',
            type: 'value_error.missing',
            field: 'business_name',
            message: 'should not be empty',
          },
          {
            loc: ['body', 'business_name'],
            msg: 'must be a string',
            type: 'type_error.str',
            field: 'business_name',
            message: 'must be a string',
          },
          {
            loc: ['query', 'page'],
            msg: 'page must be at least 1',
            type: 'value_error',
            field: 'page',
            message: 'page must be at least 1',
          },
        ],
      },
    });
    expect(err).toBeInstanceOf(ValidationError);
    if (!(err instanceof ValidationError)) throw err;
    expect(err.fields).toEqual([
      { field: 'business_name', location: 'body', message: 'should not be empty', type: 'value_error.missing' },
      { field: 'business_name', location: 'body', message: 'must be a string', type: 'type_error.str' },
      { field: 'page', location: 'query', message: 'page must be at least 1', type: 'value_error' },
    ]);
    expect(err.fieldErrors).toEqual({ business_name: ['should not be empty', 'must be a string'], page: ['page must be at least 1'] });
  });

  it('gives a rate limit error the seconds to wait (Retry-After, else X-RateLimit-Reset)', async () => {
    expect(await fail(429, 'RATE_LIMIT_EXCEEDED', { headers: { 'retry-after': '12' } })).toMatchObject({ retryAfter: 12 });
    const reset = String(Math.floor(Date.now() / 1000) + 30);
    const err = await fail(429, 'RATE_LIMIT_EXCEEDED', { headers: { 'x-ratelimit-reset': reset } });
    expect(err).toBeInstanceOf(RateLimitError);
    expect(err.retryAfter).toBeGreaterThan(28);
    expect(err.retryAfter).toBeLessThanOrEqual(30);
  });

  it('names a non-envelope answer HTTP_<status>, of the kind of its status', async () => {
    const err = await fail(502, 'x', { body: '<h1>Bad gateway</h1>', headers: { 'content-type': 'text/html' } });
    expect(err).toBeInstanceOf(ServerError);
    expect(err.code).toBe('HTTP_502');
  });

  it('narrows code by kind (compile-time)', () => {
    const narrow = (e: LedgerlensApiError) => {
      if (e.kind === 'not_found') {
        // @ts-expect-error a not-found error never has a rate-limit code
        const wrong: typeof e.code = 'RATE_LIMIT_EXCEEDED';
        return wrong;
      }
      // @ts-expect-error not an error code of the contract
      const unknown: LedgerlensError['code'] = 'NOPE';
      return unknown;
    };
    expect(typeof narrow).toBe('function');
  });
});
