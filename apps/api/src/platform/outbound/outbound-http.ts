import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { Inject, Injectable } from '@nestjs/common';
import { Agent, buildConnector, request } from 'undici';
import { APP_CONFIG, AppConfig } from '../config/config';
import { blockReason, Cidr, isAllowlisted, parseAllowlist } from './address-policy';

/** Resolves a hostname to every address it has (injectable: tests map names to loopback). */
export type Resolver = (hostname: string) => Promise<{ address: string; family: number }[]>;

export const systemResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

export class OutboundBlockedError extends Error {
  override readonly name = 'OutboundBlockedError';

  constructor(
    message: string,
    /** The policy refuses the URL or its address: trying again cannot help. False for a name that did not resolve (DNS may recover). */
    readonly permanent = true,
  ) {
    super(message);
  }
}

export interface OutboundRequest {
  method: 'POST' | 'GET' | 'PUT' | 'PATCH' | 'DELETE';
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
  /** Bytes of the response body kept (the rest is read and dropped). */
  maxBodyBytes: number;
}

export interface OutboundResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  bodyTruncated: boolean;
  address: string;
}

/**
 * Outbound HTTP for webhooks, batch callbacks and CRM sync, guarded against SSRF:
 * - the URL must be https:// (http:// only for an allowlisted address outside production);
 * - the hostname is resolved once per request and EVERY address it resolves to is checked
 *   (address-policy), then the connection is pinned to the checked address, so a DNS answer
 *   that changes between the check and the connect (rebinding) cannot redirect it;
 * - IP literals, which skip DNS, are checked as they are (after WHATWG normalization, which turns
 *   0x7f000001 or 2130706433 into 127.0.0.1);
 * - redirects are never followed (undici's request() does not), and a 3xx is just a response.
 */
@Injectable()
export class OutboundHttp {
  private readonly allowlist: Cidr[];
  private resolver: Resolver = systemResolver;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    this.allowlist = parseAllowlist(config.outbound.allowlist).cidrs;
  }

  /** For tests: resolve names without real DNS. */
  useResolver(resolver: Resolver): void {
    this.resolver = resolver;
  }

  /** The URL problem a user should see when configuring it (null when acceptable); no DNS here. */
  urlProblem(raw: string): string | null {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return 'must be an absolute URL';
    }
    if (url.username || url.password) return 'must not contain credentials';
    // An IP literal can be judged now (names are judged at each attempt, after DNS).
    const literal = hostOf(url);
    const blocked = isIP(literal) ? blockReason(literal, this.allowlist) : null;
    if (blocked) return `must not point to a private, loopback or link-local address (${blocked})`;
    if (url.protocol === 'https:') return null;
    if (url.protocol === 'http:' && this.config.nodeEnv !== 'production' && isAllowlisted(hostOf(url), this.allowlist)) return null;
    return 'must use HTTPS';
  }

  /** Resolves and checks the target: the address to connect to, or OutboundBlockedError. */
  async resolve(url: URL): Promise<{ address: string; family: number }> {
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new OutboundBlockedError('URL must use HTTPS');
    if (url.username || url.password) throw new OutboundBlockedError('URL must not contain credentials');
    const host = hostOf(url);
    const family = isIP(host);
    const addresses = family ? [{ address: host, family }] : await this.lookup(host);
    if (addresses.length === 0) throw new OutboundBlockedError(`${host} did not resolve`, false);
    for (const { address } of addresses) {
      const reason = blockReason(address, this.allowlist);
      if (reason) throw new OutboundBlockedError(`${host} resolves to a blocked address: ${reason}`);
    }
    const plainAllowed = this.config.nodeEnv !== 'production' && addresses.every(({ address }) => isAllowlisted(address, this.allowlist));
    if (url.protocol === 'http:' && !plainAllowed) throw new OutboundBlockedError('URL must use HTTPS');
    return addresses[0];
  }

  async request(rawUrl: string, req: OutboundRequest): Promise<OutboundResponse> {
    const url = new URL(rawUrl);
    const pinned = await this.resolve(url);
    const connector = buildConnector({
      // Every connection of this request goes to the address checked above, whatever DNS says now.
      lookup: ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) =>
        options?.all ? callback(null, [pinned]) : callback(null, pinned.address, pinned.family)) as never,
      timeout: req.timeoutMs,
    });
    const agent = new Agent({
      connect: (options, callback) => {
        const host = options.hostname.replace(/^\[(.*)\]$/, '$1');
        // IP literals skip `lookup`: make sure the connector cannot reach anything but the pinned address.
        if (isIP(host) && host !== pinned.address)
          return callback(new OutboundBlockedError(`connection to ${host} refused: not the checked address`), null);
        return connector(options, callback);
      },
    });
    const signal = AbortSignal.timeout(req.timeoutMs);
    try {
      const res = await request(url, {
        method: req.method,
        headers: req.headers,
        body: req.body,
        dispatcher: agent,
        signal,
        headersTimeout: req.timeoutMs,
        bodyTimeout: req.timeoutMs,
      });
      const chunks: Buffer[] = [];
      let kept = 0;
      let truncated = false;
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        if (kept < req.maxBodyBytes) {
          const part = chunk.subarray(0, req.maxBodyBytes - kept);
          chunks.push(part);
          kept += part.length;
          if (part.length < chunk.length) truncated = true;
        } else truncated = true;
      }
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : String(v);
      return {
        status: res.statusCode,
        headers,
        body: Buffer.concat(chunks).toString('utf8'),
        bodyTruncated: truncated,
        address: pinned.address,
      };
    } catch (err) {
      // undici's own headers/body/connect timers run on the same deadline as the signal and may fire
      // first (a loaded machine): either way the receiver did not answer in time
      if (signal.aborted || UNDICI_TIMEOUTS.has((err as { code?: string }).code ?? ''))
        throw new OutboundTimeoutError(`no response within ${req.timeoutMs} ms`);
      throw err;
    } finally {
      await agent.close().catch(() => undefined);
    }
  }

  private async lookup(host: string): Promise<{ address: string; family: number }[]> {
    try {
      return await this.resolver(host);
    } catch (err) {
      throw new OutboundBlockedError(`${host} did not resolve (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, false);
    }
  }
}

const UNDICI_TIMEOUTS = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT']);

export class OutboundTimeoutError extends Error {
  override readonly name = 'OutboundTimeoutError';
}

function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}
