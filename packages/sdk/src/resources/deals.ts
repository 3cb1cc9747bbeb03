import type { LedgerlensCore, Page } from '../core.js';
import { delay } from '../delay.js';
import { EventsResource } from './events.js';
import { LedgerlensWaitError } from '../errors.js';
import type {
  Ack,
  BatchCreateResult,
  CommonRequestOptions,
  CreateDeal,
  Deal,
  DealList,
  DealListQuery,
  DealStats,
  DealSummary,
  Decision,
  DecisionOffer,
  DecisionResult,
  EvaluateQuery,
  EvaluationResult,
  ReadyDeal,
  ReadyDealSection,
  Recommendation,
  ReprocessFailed,
  RescoreResult,
  SummaryAccepted,
  UpdateDeal,
} from '../types.js';

/** `deals.decide` options: the request's, the reason and an approval's offer. */
export interface DecideOptions extends CommonRequestOptions {
  reason?: string;
  offer?: DecisionOffer;
}

/** Options of `deals.create`; `idempotencyKey` (generated unless given) makes its retries safe. */
export type CreateDealOptions = CommonRequestOptions;

export interface WaitOptions {
  /** Give up after this many milliseconds (LedgerlensWaitError, reason `timeout`). Default 600 000. */
  timeout?: number;
  /** The same as `timeout` (its earlier name). */
  timeoutMs?: number;
  /** Stops waiting (rejects with the signal's reason). */
  signal?: AbortSignal;
  /** Polling interval when live events are not available. Default 2 000. */
  pollIntervalMs?: number;
  /** Follow the deal's live events (SSE) and fall back to polling when they fail. Default true. */
  useEvents?: boolean;
}

const READY_SECTIONS: readonly ReadyDealSection[] = [
  'report_date',
  'coverage',
  'financials',
  'nsf_overdraft',
  'screening',
  'health',
  'recommendation',
];

/** True when the deal is `ready` with its report built (the sections `ReadyDeal` promises are there). */
export function isReady(deal: Deal): deal is Deal & ReadyDeal {
  return deal.status === 'ready' && READY_SECTIONS.every((k) => deal[k] !== null && deal[k] !== undefined);
}

/** `client.deals`: create, read, update, delete, decide and list deals. */
export class DealsResource {
  constructor(private readonly client: LedgerlensCore) {}

  /** One page of deals: `{ data, meta: { page, per_page, total, total_pages } }`. */
  async list(query: DealListQuery = {}, options?: CommonRequestOptions): Promise<DealList> {
    return (await this.client.GET('/v1/deals', { ...options, params: { query } })).data;
  }

  /**
   * Every deal matching `query`, page after page (`per_page` defaults to 100). Pages are read as the
   * loop advances; use `client.pages('/v1/deals', query)` to get whole pages with their meta.
   */
  listAll(query: Omit<DealListQuery, 'page'> = {}, options?: CommonRequestOptions): AsyncGenerator<DealSummary, void, undefined> {
    return this.client.paginate('/v1/deals', { per_page: 100, ...query }, options);
  }

  /** Every page of deals matching `query`. */
  pages(query: DealListQuery = {}, options?: CommonRequestOptions): AsyncGenerator<Page<DealSummary>, void, undefined> {
    return this.client.pages('/v1/deals', { per_page: 100, ...query }, options);
  }

  async stats(options?: CommonRequestOptions): Promise<DealStats> {
    return (await this.client.GET('/v1/deals/stats', options)).data;
  }

  /** Creates a deal. Sends an Idempotency-Key (generated unless given), so retries are safe. */
  async create(body: CreateDeal, options: CreateDealOptions = {}): Promise<DealSummary> {
    return (await this.client.POST('/v1/deals', { ...options, body })).data;
  }

  /** Creates up to the server's batch limit of deals in one request; per-item failures are in `errors`. Not retried on 5xx. */
  async createBatch(items: CreateDeal[], options?: CommonRequestOptions): Promise<BatchCreateResult> {
    return (await this.client.POST('/v1/deals/batch', { ...options, body: items })).data;
  }

  async get(dealId: number, options?: CommonRequestOptions): Promise<Deal> {
    return (await this.client.GET('/v1/deals/{deal_id}', { ...options, params: { path: { deal_id: dealId } } })).data;
  }

  async update(dealId: number, patch: UpdateDeal, options?: CommonRequestOptions): Promise<Deal> {
    return (await this.client.PATCH('/v1/deals/{deal_id}', { ...options, params: { path: { deal_id: dealId } }, body: patch })).data;
  }

  async delete(dealId: number, options?: CommonRequestOptions): Promise<Ack> {
    return (await this.client.DELETE('/v1/deals/{deal_id}', { ...options, params: { path: { deal_id: dealId } } })).data;
  }

  /** Records the funder's decision (`approve`, `decline` or `funded`). */
  /**
   * Records a decision (kept in the deal's decision trail, on its timeline, sent to webhooks and CRM),
   * with an optional `reason` and, for approve or funded, the `offer` made.
   */
  async decide(dealId: number, decision: Decision, options: DecideOptions = {}): Promise<DecisionResult> {
    const { reason, offer, ...request } = options;
    return (
      await this.client.POST('/v1/deals/{deal_id}/decision', {
        ...request,
        params: { path: { deal_id: dealId } },
        body: { decision, ...(reason !== undefined ? { reason } : {}), ...(offer ? { offer } : {}) },
      })
    ).data;
  }

  /** The recommendation (approve / review / decline with the nine factor scores and reasons); 409 until the deal is ready. */
  async recommendation(dealId: number, options?: CommonRequestOptions): Promise<Recommendation> {
    return (await this.client.GET('/v1/deals/{deal_id}/recommendation', { ...options, params: { path: { deal_id: dealId } } })).data;
  }

  /** Evaluates the deal against the default ruleset, or the ones named in `query`. */
  async evaluate(dealId: number, query: EvaluateQuery = {}, options?: CommonRequestOptions): Promise<EvaluationResult> {
    return (await this.client.POST('/v1/deals/{deal_id}/evaluate', { ...options, params: { path: { deal_id: dealId }, query } })).data;
  }

  /** Writes the AI summary again (asynchronous: 202). */
  async regenerateSummary(dealId: number, options?: CommonRequestOptions): Promise<SummaryAccepted> {
    return (await this.client.POST('/v1/deals/{deal_id}/regenerate-summary', { ...options, params: { path: { deal_id: dealId } } })).data;
  }

  /**
   * Recomputes the deal's screening, report and recommendation from its stored (and corrected)
   * transactions, without reading the files again. A no-op when nothing changed since the last
   * scoring (`rescored: false`); 409 unless the deal is ready.
   */
  async rescore(dealId: number, options?: CommonRequestOptions): Promise<RescoreResult> {
    return (await this.client.POST('/v1/deals/{deal_id}/rescore', { ...options, params: { path: { deal_id: dealId } } })).data;
  }

  /** Processes the deal's failed documents again (asynchronous: 202). */
  async reprocessFailed(dealId: number, options?: CommonRequestOptions): Promise<ReprocessFailed> {
    return (await this.client.POST('/v1/deals/{deal_id}/reprocess-failed', { ...options, params: { path: { deal_id: dealId } } })).data;
  }

  /**
   * Resolves with the deal once its status is `ready` (every document processed and the report
   * built). Follows the deal's live events and reads the deal when they say it changed; polls
   * instead when events are not available. Rejects with LedgerlensWaitError when the deal
   * `failed` or the time runs out, with the signal's reason when aborted.
   */
  async waitUntilReady(dealId: number, options: WaitOptions = {}): Promise<ReadyDeal> {
    const { signal, pollIntervalMs = 2000, useEvents = true } = options;
    const timeoutMs = options.timeout ?? options.timeoutMs ?? 600_000;
    const stop = new AbortController();
    const onAbort = () => stop.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) onAbort();
    let last: Deal | null = null;
    const timer = setTimeout(
      () => stop.abort(new LedgerlensWaitError(`deal ${dealId} not ready after ${timeoutMs} ms`, 'timeout', last)),
      timeoutMs,
    );
    /** The deal when ready, null while it is not; throws when it failed. */
    const check = async (): Promise<ReadyDeal | null> => {
      last = await this.get(dealId, { signal: stop.signal });
      if (last.status === 'ready') return last as ReadyDeal;
      if (last.status === 'failed') throw new LedgerlensWaitError(`deal ${dealId} failed: no document could be processed`, 'failed', last);
      return null;
    };
    try {
      if (useEvents) {
        // Subscribe, then read the deal, then re-read it on each of its events. The stream may
        // connect after the read, so the deal is also re-read every few poll intervals.
        const events = new EventsResource(this.client).stream({ dealId, signal: stop.signal });
        let pending = events.next();
        pending.catch(() => undefined);
        const safetyMs = Math.max(pollIntervalMs * 5, 10_000);
        try {
          for (;;) {
            const ready = await check();
            if (ready) return ready;
            const outcome = await Promise.race([
              pending.then(
                (r) => ({ r }),
                (e: unknown) => ({ e }),
              ),
              delay(safetyMs, stop.signal).then(
                () => null,
                () => null,
              ),
            ]);
            if (outcome === null) continue;
            if ('e' in outcome || outcome.r.done) break; // no live events here: poll
            pending = events.next(); // any event of the deal: read it again
            pending.catch(() => undefined);
          }
        } finally {
          void events.return(undefined).catch(() => undefined);
        }
      }
      for (;;) {
        const ready = await check();
        if (ready) return ready;
        await delay(pollIntervalMs, stop.signal);
      }
    } catch (err) {
      if (stop.signal.aborted) throw stop.signal.reason ?? err;
      throw err;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      stop.abort();
    }
  }
}
