import { Logger } from '@nestjs/common';
import { DriverException } from '@mikro-orm/core';
import { Database } from '../src/platform/database/database.service';
import { ApiKey } from '../src/modules/keys/keys.entities';
import { TestApp } from './support/harness';
import { SseClient } from './support/sse-client';
import { findSecrets, LogCapture, sha256 } from './support/secret-scan';

/**
 * Reads back everything the server logs (at trace level) while it goes through the flows that
 * handle secrets: logins that fail and succeed, API keys in headers and in query strings, key
 * creation and rotation, OAuth with secrets in bodies and URLs, hostile search input, and a failing
 * SQL statement that carries a key hash. No key, password, token, client secret or hash may appear.
 */
describe('secrets never reach the logs', () => {
  let app: TestApp;
  let org: Awaited<ReturnType<TestApp['newOrg']>>;
  const logs = new LogCapture();
  const known: string[] = [];

  beforeAll(async () => {
    app = await TestApp.start({ LOG_LEVEL: 'trace', RATE_LIMIT_AUTH: '1000' }, {}, { logTo: logs });
    org = await app.newOrg('Secretive');
    known.push(org.api_key, org.test_api_key, org.password, org.oauth_client.client_secret);
  });
  afterAll(() => app?.close());

  it('query-string credentials on ordinary and unknown routes are redacted, every name of them', async () => {
    const names = [
      'token',
      'api_key',
      'apikey',
      'key',
      'access_token',
      'client_secret',
      'password',
      'X-API-Key',
      'session_token',
      'auth',
      'signature',
    ];
    for (const name of names) {
      for (const path of ['/v1/deals', '/v1/keys', '/v1/no-such-route', '/health']) {
        await app.request('GET', `${path}?page=1&${encodeURIComponent(name)}=${encodeURIComponent(org.api_key)}`, { unchecked: true });
      }
    }
    await app.request('GET', `/v1/deals?api_key=${org.api_key}&token=${org.test_api_key}`, { key: org.api_key });
    const urls = logs.lines
      .map((l) => (l.req as { url?: string } | undefined)?.url)
      .filter((u): u is string => !!u && u.includes('page=1'));
    expect(urls.length).toBeGreaterThanOrEqual(names.length * 4);
    for (const url of urls) expect(url).toMatch(/=\[redacted\]/);
    expect(urls.some((u) => u.includes('page=1'))).toBe(true);
  });

  it('logins, keys, rotation and OAuth flows', async () => {
    await app.request('POST', '/auth/login', { body: { email: org.user.email, password: 'wrong-password-123' } });
    await app.request('POST', '/auth/login', { body: { email: 'nobody@example.test', password: org.password } });
    await app.request('POST', `/auth/login?password=${org.password}`, { body: { email: org.user.email, password: org.password } });
    const session = (await app.request('POST', '/auth/login', { body: { email: org.user.email, password: org.password } })).body
      .token as string;
    known.push(session, 'wrong-password-123');
    await app.request('GET', '/v1/deals', { headers: { Authorization: `Bearer ${session}` } });
    const created = (await app.request('POST', '/v1/keys', { key: org.api_key, body: { name: 'logged?' } })).body;
    const rotated = (await app.request('POST', `/v1/keys/${created.id}/rotate`, { key: org.api_key })).body;
    known.push(created.key, rotated.key);
    await app.request('GET', '/v1/deals', { key: created.key }); // revoked by rotation: 401
    await app.request('GET', '/v1/deals', { headers: { Authorization: `Bearer ${rotated.key}` } });
    const form = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: org.oauth_client.client_id,
      client_secret: org.oauth_client.client_secret,
    });
    const token = (
      await app.request('POST', '/oauth/token', {
        rawBody: form.toString(),
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      })
    ).body.access_token;
    known.push(token);
    await app.request('POST', `/v1/oauth/token?client_secret=${org.oauth_client.client_secret}`, {
      body: { grant_type: 'client_credentials', client_id: org.oauth_client.client_id, client_secret: 'cs_wrong_secret_value_123456' },
    });
    await app.request('GET', '/v1/deals', { headers: { Authorization: `Bearer ${token}` } });
    // The stream stays open: connect (the request is logged), then leave.
    (await SseClient.open(`${app.url}/v1/events/stream?token=${token}`)).close();
  });

  it('hostile search and body input', async () => {
    for (const q of ["'; select key_hash from api_keys; --", `${org.api_key}'`, '\u0000', 'a;b']) {
      await app.request('GET', `/v1/deals?q=${encodeURIComponent(q)}`, { key: org.api_key });
    }
    await app.request('POST', '/v1/deals', {
      key: org.api_key,
      body: { business_name: `x\u0000${org.api_key}`, funding_amount_requested: 1 },
    });
    await app.request('POST', '/v1/deals', {
      key: org.api_key,
      rawBody: `{"business_name": "${org.api_key}"`,
      headers: { 'Content-Type': 'application/json' },
    });
  });

  it('a failing statement is logged as its shape: no key hash, no values (driver errors)', async () => {
    const em = app.get(Database).system();
    const hash = sha256(org.api_key);
    const row = {
      organizationId: org.organization.id,
      name: 'duplicate',
      livemode: true,
      keyHash: hash,
      keyPrefix: 'll_live_dupl',
      last4: 'dupe',
      scopes: ['read'],
    };
    // A NOT NULL violation (the server quotes the whole row) and a UNIQUE violation (it quotes the hash).
    for (const [attempt, expected] of [
      [row, /insert into "api_keys" .*values \(\?/],
      [{ ...row, createdAt: new Date() }, /already exists/],
    ] as const) {
      const error = await em.insert(ApiKey, attempt).then(
        () => null,
        (err: unknown) => err,
      );
      expect(error).toBeInstanceOf(DriverException);
      const err = error as DriverException & Record<string, unknown>;
      expect(err.message).toMatch(expected);
      const serialized = JSON.stringify({ ...err, message: err.message, stack: err.stack });
      expect(serialized).not.toContain(hash);
      expect(serialized).not.toContain('ll_live_dupl');
      // Logged the ways the server logs errors: pino's err serializer and Nest's logger with the stack.
      app.running.app.getHttpAdapter().getInstance().log.error({ err }, 'driver error');
      new Logger('SecretsTest').error(`failed: ${err.stack}`);
    }
    expect(logs.text).toContain('driver error');
  });

  it('share tokens (bearer credentials) in the path, however spelled, and in query strings', async () => {
    const deal = (
      await app.request('POST', '/v1/deals', { key: org.api_key, body: { business_name: 'Shared LLC', funding_amount_requested: 1 } })
    ).body;
    const open = (await app.request('POST', `/v1/deals/${deal.id}/share`, { key: org.api_key, body: {} })).body.token as string;
    const locked = (await app.request('POST', `/v1/deals/${deal.id}/share`, { key: org.api_key, body: { password: 'harbor-2026' } })).body
      .token as string;
    known.push(open, locked);
    const spelled = (token: string) => `%73${token.slice(1, 6)}%${token.charCodeAt(6).toString(16)}${token.slice(7)}`;
    const before = logs.lines.length;
    for (const token of [open, locked]) {
      await app.request('GET', `/v1/share/${token}`);
      await app.request('GET', `/share/${token}`);
      await app.request('GET', `/share/${token}?utm=1`);
      await app.request('GET', `/v1/%73hare/${spelled(token)}`, { unchecked: true });
      await app.request('GET', `/v1/share/${token}x/extra`, { unchecked: true });
      await app.request('GET', `/v1/deals?q=${token}`, { key: org.api_key });
      await app.request('POST', `/share/${token}`, {
        rawBody: 'password=harbor-2025',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      });
    }
    const urls = logs.lines
      .slice(before)
      .map((l) => (l.req as { url?: string } | undefined)?.url)
      .filter((u): u is string => !!u);
    expect(urls.filter((u) => /hare\/\[redacted\]/.test(u)).length).toBe(12);
    expect(findSecrets(urls.join('\n'), [open, locked])).toEqual([]);
  });

  it('the whole log holds none of them', () => {
    expect(logs.lines.length).toBeGreaterThan(100);
    expect(findSecrets(logs.text, known)).toEqual([]);
  });
});
