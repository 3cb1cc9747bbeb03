import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../../platform/config/config';
import { OutboundBlockedError, OutboundHttp, OutboundRequest } from '../../../platform/outbound/outbound-http';
import { CrmError } from './crm-provider';

export interface CrmCall {
  method: OutboundRequest['method'];
  url: string;
  headers?: Record<string, string>;
  /** JSON body (sent with Content-Type: application/json). */
  json?: unknown;
  /** Form body (application/x-www-form-urlencoded), for OAuth token calls. */
  form?: Record<string, string>;
}

export interface CrmResponse {
  status: number;
  headers: Record<string, string>;
  text: string;
  json: unknown;
}

export type Sleep = (ms: number) => Promise<void>;
const realSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Decides whether an answer is a rate limit or a transient failure worth another attempt. */
export type RetryPredicate = (res: CrmResponse) => boolean;
export const retryable429or5xx: RetryPredicate = (res) => res.status === 429 || res.status >= 500;

/**
 * Every CRM call goes through here: the SSRF guard (OutboundHttp: HTTPS, no private addresses
 * unless allowlisted, DNS pinned), a timeout, and retries of rate limits and 5xx with exponential
 * backoff that honours `Retry-After` (seconds or HTTP date). A wait longer than the configured
 * maximum is not made: the answer is returned and the caller records the failure.
 */
@Injectable()
export class CrmHttp {
  private readonly logger = new Logger('CrmHttp');
  private sleep: Sleep = realSleep;

  constructor(
    private readonly outbound: OutboundHttp,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** For tests: observe the backoff without waiting for it. */
  useSleep(sleep: Sleep): void {
    this.sleep = sleep;
  }

  async call(req: CrmCall, shouldRetry: RetryPredicate = retryable429or5xx): Promise<CrmResponse> {
    const headers: Record<string, string> = { Accept: 'application/json', 'User-Agent': 'Ledgerlens-CRM/1.0', ...req.headers };
    let body: string | undefined;
    if (req.json !== undefined) {
      body = JSON.stringify(req.json);
      headers['Content-Type'] = 'application/json';
    } else if (req.form) {
      body = new URLSearchParams(req.form).toString();
      headers['Content-Type'] = 'application/x-www-form-urlencoded';
    }
    const { maxRetries, retryBaseMs, maxRetryDelayMs, timeoutMs } = this.config.crm;
    for (let attempt = 0; ; attempt++) {
      let res: CrmResponse | null = null;
      let failure: Error | null = null;
      try {
        const raw = await this.outbound.request(req.url, { method: req.method, headers, body, timeoutMs, maxBodyBytes: 8 * 1024 * 1024 });
        let parsed: unknown = null;
        try {
          parsed = raw.body ? JSON.parse(raw.body) : null;
        } catch {
          parsed = null;
        }
        res = { status: raw.status, headers: raw.headers, text: raw.body, json: parsed };
      } catch (err) {
        if (err instanceof OutboundBlockedError) throw new CrmError(`CRM address refused: ${err.message}`, null, 'BLOCKED');
        failure = err as Error;
      }
      const again = failure !== null || shouldRetry(res!);
      if (!again) return res!;
      const delay = res ? (retryAfterMs(res.headers['retry-after']) ?? retryBaseMs * 2 ** attempt) : retryBaseMs * 2 ** attempt;
      if (attempt >= maxRetries || delay > maxRetryDelayMs) {
        if (res) return res;
        throw new CrmError(`CRM unreachable: ${failure!.message}`, null, 'UNREACHABLE');
      }
      this.logger.warn(
        `${req.method} ${new URL(req.url).pathname}: ${res ? `HTTP ${res.status}` : failure!.message}; retry in ${delay} ms`,
      );
      await this.sleep(delay);
    }
  }
}

/** `Retry-After` in milliseconds (delta seconds or an HTTP date), null when absent or unreadable. */
export function retryAfterMs(value: string | undefined, now = Date.now()): number | null {
  if (!value) return null;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Math.round(Number(value) * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}
