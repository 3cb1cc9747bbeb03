import { createServer, IncomingMessage, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { guardConnections } from '../../../test/support/connect-guard';
import { loadConfig } from '../config/config';
import { blockReason, parseAllowlist } from './address-policy';
import { OutboundBlockedError, OutboundHttp, OutboundTimeoutError } from './outbound-http';

/**
 * The SSRF guard. Decisions are tested on addresses only; the few real requests go to a server
 * on 127.0.0.1 (allowlisted), never anywhere else.
 */
describe('address policy (the SSRF decision)', () => {
  const none = parseAllowlist([]).cidrs;
  it.each([
    ['10.0.0.5', /private/],
    ['172.16.3.4', /private/],
    ['192.168.1.1', /private/],
    ['127.0.0.1', /loopback/],
    ['127.1.2.3', /loopback/],
    ['169.254.169.254', /linkLocal/],
    ['0.0.0.0', /unspecified/],
    ['100.64.0.1', /carrierGradeNat/],
    ['224.0.0.1', /multicast/],
    ['255.255.255.255', /broadcast/],
    ['::1', /loopback/],
    ['::', /unspecified/],
    ['fe80::1', /linkLocal/],
    ['fd12:3456::1', /uniqueLocal/],
    ['::ffff:127.0.0.1', /127\.0\.0\.1 is a loopback/],
    ['::ffff:7f00:1', /loopback/],
    ['::ffff:169.254.169.254', /linkLocal/],
    ['[::ffff:10.1.2.3]', /private/],
    ['64:ff9b::a9fe:a9fe', /rfc6052/],
    ['2002:a9fe:a9fe::1', /6to4/],
    ['0x7f000001', /loopback/],
    ['2130706433', /loopback/],
    ['0177.0.0.1', /loopback/],
    ['fe80::1%eth0', /linkLocal/],
    // IPv4-compatible IPv6 (::/96, deprecated): ipaddr.js calls these unicast
    ['::7f00:1', /::7f00:1 is an IPv4-compatible IPv6 address \(127\.0\.0\.1, loopback\)/],
    ['[::127.0.0.1]', /IPv4-compatible .*127\.0\.0\.1, loopback/],
    ['::a00:1', /IPv4-compatible .*10\.0\.0\.1, private/],
    ['::a9fe:a9fe', /IPv4-compatible .*169\.254\.169\.254, linkLocal/],
    ['::8.8.8.8', /IPv4-compatible .*8\.8\.8\.8, unicast/],
    ['::0:0:0:2', /IPv4-compatible .*0\.0\.0\.2/],
  ])('refuses %s', (address, reason) => {
    expect(blockReason(address, none)).toMatch(reason);
  });

  it.each(['8.8.8.8', '93.184.216.34', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('allows the public address %s', (address) => {
    expect(blockReason(address, none)).toBeNull();
  });

  it('refuses what is not an address', () => {
    expect(blockReason('localhost', none)).toMatch(/not an IP address/);
  });

  it('lets an allowlisted CIDR through, and only it', () => {
    const dev = parseAllowlist(['127.0.0.1/32', '::1', '10.20.0.0/16']).cidrs;
    expect(blockReason('127.0.0.1', dev)).toBeNull();
    expect(blockReason('::ffff:127.0.0.1', dev)).toBeNull();
    expect(blockReason('::1', dev)).toBeNull();
    expect(blockReason('10.20.9.9', dev)).toBeNull();
    expect(blockReason('127.0.0.2', dev)).toMatch(/loopback/);
    expect(blockReason('10.21.0.1', dev)).toMatch(/private/);
    expect(blockReason('169.254.169.254', dev)).toMatch(/linkLocal/);
    // the IPv4 an IPv4-compatible address embeds being allowlisted does not let it through
    expect(blockReason('::7f00:1', dev)).toMatch(/IPv4-compatible/);
    expect(blockReason('::7f00:1', parseAllowlist(['::7f00:1/128']).cidrs)).toBeNull();
  });
});

describe('OutboundHttp', () => {
  let server: Server;
  let port: number;
  let seen: { host?: string; method?: string; body: string }[];
  let handler: (req: IncomingMessage, res: import('node:http').ServerResponse) => void;

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        seen.push({ host: req.headers.host, method: req.method, body });
        handler(req, res);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  beforeEach(() => {
    seen = [];
    handler = (_req, res) => res.end('ok');
  });
  afterAll(() => new Promise((r) => server.close(r)));

  const guard = (env: Record<string, string> = {}) => new OutboundHttp(loadConfig({ NODE_ENV: 'test', ...env }));
  const post = { method: 'POST' as const, headers: { 'content-type': 'application/json' }, body: '{}', timeoutMs: 2000, maxBodyBytes: 16 };

  it('accepts https URLs, and http only for an allowlisted address outside production', () => {
    expect(guard().urlProblem('https://hooks.example.com/x')).toBeNull();
    expect(guard().urlProblem('http://hooks.example.com/x')).toBe('must use HTTPS');
    expect(guard().urlProblem(`http://127.0.0.1:${port}/`)).toMatch(
      /must not point to a private, loopback or link-local address \(127\.0\.0\.1 is a loopback address\)/,
    );
    expect(guard().urlProblem('https://169.254.169.254/latest')).toMatch(/linkLocal/);
    expect(guard().urlProblem('https://[::ffff:10.0.0.1]/')).toMatch(/private/);
    expect(guard({ OUTBOUND_ALLOWLIST: '127.0.0.1' }).urlProblem(`http://127.0.0.1:${port}/`)).toBeNull();
    expect(guard({ OUTBOUND_ALLOWLIST: '10.0.0.0/8' }).urlProblem('http://10.0.0.1/')).toBeNull();
    expect(
      guard({
        OUTBOUND_ALLOWLIST: '10.0.0.0/8',
        NODE_ENV: 'production',
        SECRETS_KEY: 'ab'.repeat(32),
        TRUST_PROXY: 'true',
        PUBLIC_URL: 'https://ledgerlens.test',
      }).urlProblem('http://10.0.0.1/'),
    ).toBe('must use HTTPS');
    expect(guard().urlProblem('ftp://example.com/')).toBe('must use HTTPS');
    expect(guard().urlProblem('https://user:pw@example.com/')).toBe('must not contain credentials');
    expect(guard().urlProblem('not a url')).toBe('must be an absolute URL');
  });

  it('refuses hostnames that resolve to loopback, and IP literals in any notation, before connecting', async () => {
    // Every address a name resolves to must pass, not just the first (all loopback here: a bug cannot leak traffic).
    const g = guard({ OUTBOUND_ALLOWLIST: '127.0.0.1/32' });
    g.useResolver(async () => [
      { address: '127.0.0.1', family: 4 },
      { address: '127.0.0.2', family: 4 },
    ]);
    await expect(g.request(`http://mixed.invalid:${port}/`, post)).rejects.toThrow(
      /mixed\.invalid resolves to a blocked address: 127\.0\.0\.2 is a loopback/,
    );
    await expect(guard().request('https://localhost/', post)).rejects.toThrow(/localhost resolves to a blocked address/);
    // Only loopback literals here: even a guard bug must not send traffic elsewhere (other ranges: decision tests above).
    for (const literal of ['127.0.0.1', '[::1]', '0x7f000001', '2130706433', '[::ffff:127.0.0.1]', '127.0.0.2']) {
      await expect(guard().request(`https://${literal}/`, post)).rejects.toBeInstanceOf(OutboundBlockedError);
    }
    expect(seen).toHaveLength(0);
  });

  it('refuses IPv4-compatible IPv6 (::/96) literals and resolved addresses without attempting a connection', async () => {
    const connections = guardConnections();
    try {
      const g = guard({ OUTBOUND_ALLOWLIST: '127.0.0.1/32' });
      for (const url of ['https://[::127.0.0.1]/', 'https://[::a00:1]/hook', 'https://[::a9fe:a9fe]/latest/meta-data']) {
        expect(g.urlProblem(url)).toMatch(/must not point to .*IPv4-compatible/);
      }
      for (const literal of ['[::127.0.0.1]', '[::7f00:1]', '[::a00:1]', '[::a9fe:a9fe]']) {
        await expect(g.request(`http://${literal}:${port}/`, post)).rejects.toBeInstanceOf(OutboundBlockedError);
      }
      g.useResolver(async () => [{ address: '::7f00:1', family: 6 }]);
      await expect(g.request(`http://receiver.invalid:${port}/`, post)).rejects.toThrow(
        /receiver\.invalid resolves to a blocked address: ::7f00:1 is an IPv4-compatible/,
      );
      expect(connections.attempts).toEqual([]);
      expect(seen).toHaveLength(0);
    } finally {
      connections.restore();
    }
  });

  it('resolves once per request and connects to the checked address (DNS pinned)', async () => {
    const g = guard({ OUTBOUND_ALLOWLIST: '127.0.0.1/32' });
    const lookups: string[] = [];
    g.useResolver(async (host) => {
      lookups.push(host);
      return [{ address: '127.0.0.1', family: 4 }];
    });
    // The name exists nowhere: the only way to reach the server is through the pinned address.
    const res = await g.request(`http://receiver.invalid:${port}/hook`, post);
    expect(res).toMatchObject({ status: 200, body: 'ok', address: '127.0.0.1', bodyTruncated: false });
    expect(lookups).toEqual(['receiver.invalid']);
    expect(seen[0]).toMatchObject({ host: `receiver.invalid:${port}`, method: 'POST', body: '{}' });
  });

  it('does not follow redirects and bounds the response body', async () => {
    const g = guard({ OUTBOUND_ALLOWLIST: '127.0.0.1' });
    handler = (_req, res) => res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data' }).end('x'.repeat(100));
    const res = await g.request(`http://127.0.0.1:${port}/`, post);
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('http://169.254.169.254/latest/meta-data');
    expect(res.body).toHaveLength(16);
    expect(res.bodyTruncated).toBe(true);
    expect(seen).toHaveLength(1);
  });

  it('times out a receiver that does not answer', async () => {
    const g = guard({ OUTBOUND_ALLOWLIST: '127.0.0.1' });
    let hold: (() => void) | null = null;
    handler = (_req, res) => (hold = () => res.end('late'));
    await expect(g.request(`http://127.0.0.1:${port}/`, { ...post, timeoutMs: 200 })).rejects.toBeInstanceOf(OutboundTimeoutError);
    (hold as (() => void) | null)?.();
  });
});
