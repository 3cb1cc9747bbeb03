import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { webhookHeaders } from '@ledgerlens/webhooks';
import { AuthContext } from '../../platform/auth/auth-context';
import { Clock } from '../../platform/clock/clock';
import { Metrics } from '../../platform/metrics/metrics';
import { APP_CONFIG, AppConfig } from '../../platform/config/config';
import { SecretBox } from '../../platform/crypto/secret-box';
import { Database } from '../../platform/database/database.service';
import { Scope, scopeFields } from '../../platform/database/tenant';
import { ApiError } from '../../platform/errors/api-error';
import { EventDispatcher } from '../../platform/events/event-dispatcher';
import { DomainEvent } from '../../platform/events/events';
import { OutboundBlockedError, OutboundHttp, OutboundResponse } from '../../platform/outbound/outbound-http';
import { Page, paginate, pageWindow } from '../../platform/pagination/pagination';
import { JobQueue, QUEUES } from '../../platform/queue/job-queue';
import { PublicEvent, toPublicEvent } from './public-events';
import { WebhookAttempt, WebhookConfig, WebhookDelivery } from './webhooks.entities';
import { DeliveryDetailDto, DeliveryListQueryDto, DeliverySummaryDto, WebhookTestInputDto, WebhookTestResultDto } from './dto/webhook.dto';
import { mapDeliveryDetail, mapDeliverySummary } from './webhooks.mapper';

/**
 * 4 attempts in all, immediately then after 30 s, 2 min and 15 min (README, "Webhooks and the event
 * stream": Retries).
 */
export const MAX_ATTEMPTS = 4;
export const RETRY_DELAYS_MS = [30_000, 120_000, 900_000];
/** How long a claimed attempt may run before another process may take it over: the timeout plus a margin. */
const LEASE_MARGIN_MS = 50_000;
const SWEEP_INTERVAL_MS = 60_000;
const RESPONSE_LOG_BYTES = 4096;
const REQUEST_LOG_BYTES = 65_536;

export interface WebhookJob {
  deliveryId: string;
  attempt: number;
  organizationId: number;
  livemode: boolean;
}

export interface AttemptOutcome {
  attempt: WebhookAttempt;
  delivery: WebhookDelivery;
}

const CALLBACK_HEADERS = ['Content-Type', 'X-Service-Event', 'X-Service-Delivery', 'X-Service-Signature'];
const callbackHeaders = (signed: Record<string, string>) =>
  Object.fromEntries(Object.entries(signed).filter(([name]) => CALLBACK_HEADERS.includes(name)));

const newDeliveryId = () => `whd_${randomBytes(12).toString('hex')}`;
const newEventId = () => `evt_${randomBytes(16).toString('hex')}`;

/**
 * Sends domain events to the organization's endpoint. An outbox subscriber turns each public
 * event into a delivery row (once per event id); each attempt is a job on the `webhooks` queue
 * (BullMQ or in-process), retried as a delayed job per the schedule above. The row holds the next
 * attempt time and every attempt claims the row first, so duplicate jobs, a restart (sweep) or a
 * second worker never send one attempt twice, and nothing pending is lost.
 */
@Injectable()
export class WebhookDeliveryService implements OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Webhooks');
  private sweeper: NodeJS.Timeout | null = null;

  constructor(
    private readonly db: Database,
    private readonly events: EventDispatcher,
    private readonly queue: JobQueue,
    private readonly outbound: OutboundHttp,
    private readonly box: SecretBox,
    private readonly clock: Clock,
    private readonly metrics: Metrics,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.events.subscribe('webhooks', (event) => this.onEvent(event));
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.role === 'api') return;
    this.queue.process<WebhookJob>(QUEUES.webhooks, (job) => this.runJob(job), 4);
    await this.reschedule();
    this.sweeper = setInterval(
      () => void this.sweep().catch((err: Error) => this.logger.error(`Webhook sweep failed: ${err.message}`)),
      SWEEP_INTERVAL_MS,
    );
    this.sweeper.unref();
  }

  onApplicationShutdown(): void {
    if (this.sweeper) clearInterval(this.sweeper);
  }

  /** Outbox subscriber: one delivery per public event the endpoint subscribed to. Idempotent per event id. */
  private async onEvent(event: DomainEvent): Promise<void> {
    const pub = toPublicEvent(event);
    if (!pub || pub.type === 'webhook.test') return;
    const scope = { organizationId: event.organizationId, livemode: event.livemode };
    const em = this.db.forScope(scope);
    const config = await em.findOne(WebhookConfig, {});
    if (!config || !config.enabled || !config.events.includes(pub.type)) return;
    const delivery = await this.createDelivery(scope, pub, { dedupeKey: event.id, maxAttempts: MAX_ATTEMPTS });
    if (delivery) await this.schedule(delivery);
  }

  /**
   * A signed callback (ingest batch completion) to its own URL and secret, with the webhook retry
   * schedule, claims and attempt log. Once per `dedupeKey`; returns the delivery id.
   */
  async sendCallback(
    scope: Scope,
    callback: {
      url: string;
      secretSealed: string;
      dedupeKey: string;
      eventId: string;
      eventType: PublicEvent['type'];
      dealId: number | null;
      body: string;
    },
  ): Promise<string> {
    const pub = { id: callback.eventId, type: callback.eventType, deal_id: callback.dealId } as PublicEvent;
    const delivery = await this.createDelivery(scope, pub, {
      dedupeKey: callback.dedupeKey,
      maxAttempts: MAX_ATTEMPTS,
      body: callback.body,
      target: { url: callback.url, secretSealed: callback.secretSealed },
    });
    if (delivery) {
      await this.schedule(delivery);
      return delivery.id;
    }
    return (await this.db.forScope(scope).findOneOrFail(WebhookDelivery, { dedupeKey: callback.dedupeKey })).id;
  }

  /** A callback's delivery state and attempt count (for the batch status), or null. */
  async callbackState(scope: Scope, deliveryId: string): Promise<WebhookDelivery | null> {
    return this.db.forScope(scope).findOne(WebhookDelivery, { id: deliveryId, targetUrl: { $ne: null } });
  }

  private async createDelivery(
    scope: Scope,
    pub: PublicEvent,
    opts: {
      dedupeKey: string;
      maxAttempts: number;
      redeliveryOf?: string;
      body?: string;
      target?: { url: string; secretSealed: string };
    },
  ): Promise<WebhookDelivery | null> {
    const em = this.db.forScope(scope);
    const now = this.clock.now();
    const delivery = em.create(WebhookDelivery, {
      ...scopeFields(scope),
      id: newDeliveryId(),
      dedupeKey: opts.dedupeKey,
      eventId: pub.id,
      eventType: pub.type,
      dealId: pub.deal_id,
      body: opts.body ?? JSON.stringify(pub),
      status: 'pending',
      maxAttempts: opts.maxAttempts,
      nextAttemptAt: now,
      redeliveryOf: opts.redeliveryOf ?? null,
      targetUrl: opts.target?.url ?? null,
      secretSealed: opts.target?.secretSealed ?? null,
      createdAt: now,
      updatedAt: now,
    });
    try {
      await em.persistAndFlush(delivery);
      return delivery;
    } catch (err) {
      if (err instanceof UniqueConstraintViolationException) return null; // a redelivered event: its delivery exists
      throw err;
    }
  }

  /** Queues the next attempt of a pending delivery at its time (a delayed job when in the future). */
  private async schedule(delivery: WebhookDelivery, jobSuffix = ''): Promise<void> {
    if (delivery.status !== 'pending' || !delivery.nextAttemptAt) return;
    const attempt = delivery.attemptNumber + 1;
    const delayMs = Math.max(0, delivery.nextAttemptAt.getTime() - this.clock.now().getTime());
    const job: WebhookJob = { deliveryId: delivery.id, attempt, organizationId: delivery.organizationId, livemode: delivery.livemode };
    await this.queue.enqueue(QUEUES.webhooks, `${delivery.id}-${attempt}${jobSuffix}`, job, { delayMs });
  }

  /** At start: every pending delivery gets its job again (in-process timers did not survive the restart). */
  async reschedule(): Promise<void> {
    const pending = await this.db
      .system()
      .find(WebhookDelivery, { status: 'pending' }, { filters: false, orderBy: { nextAttemptAt: 'asc' } });
    for (const delivery of pending) await this.schedule(delivery);
  }

  /**
   * Queues every attempt that is due now under a fresh job id: picks up attempts whose worker died
   * after claiming them (lease over) and delayed jobs lost with a process. Runs every minute.
   */
  async sweep(): Promise<number> {
    const due = await this.db
      .system()
      .find(
        WebhookDelivery,
        { status: 'pending', nextAttemptAt: { $lte: this.clock.now() } },
        { filters: false, orderBy: { nextAttemptAt: 'asc' }, limit: 500 },
      );
    const stamp = this.clock.now().getTime();
    for (const delivery of due) await this.schedule(delivery, `-due-${stamp}`);
    return due.length;
  }

  private async runJob(job: WebhookJob): Promise<void> {
    await this.attempt({ organizationId: job.organizationId, livemode: job.livemode }, job.deliveryId, job.attempt);
  }

  /**
   * One attempt: claim the row (only if this attempt is the next one and is due), sign the stored
   * body, POST it through the SSRF guard, log the attempt and set the outcome or the next time.
   * Returns null when another job already made (or is making) this attempt.
   */
  async attempt(scope: Scope, deliveryId: string, attempt: number): Promise<AttemptOutcome | null> {
    const em = this.db.forScope(scope);
    const now = this.clock.now();
    const claimed = await em.nativeUpdate(
      WebhookDelivery,
      { id: deliveryId, status: 'pending', attemptNumber: attempt - 1, nextAttemptAt: { $lte: now } },
      { nextAttemptAt: new Date(now.getTime() + this.config.webhooks.timeoutMs + LEASE_MARGIN_MS) },
    );
    if (claimed === 0) return null;
    const delivery = await em.findOneOrFail(WebhookDelivery, { id: deliveryId });
    const config = delivery.targetUrl
      ? { url: delivery.targetUrl, secretSealed: delivery.secretSealed! }
      : await em.findOne(WebhookConfig, {});
    if (!config) {
      await em.nativeUpdate(
        WebhookDelivery,
        { id: deliveryId },
        { status: 'failed', nextAttemptAt: null, lastError: 'webhook configuration deleted', updatedAt: now },
      );
      this.metrics.webhookAttempt('failed');
      return null;
    }
    const signed = webhookHeaders({
      eventId: delivery.eventId,
      eventType: delivery.eventType,
      deliveryId: delivery.id,
      rawBody: delivery.body,
      secret: this.box.open(config.secretSealed),
      timestampSeconds: Math.floor(now.getTime() / 1000),
    });
    // A callback carries the spec's signature only (X-Service-Signature with the callback secret).
    const headers: Record<string, string> = {
      ...(delivery.targetUrl ? callbackHeaders(signed) : signed),
      'User-Agent': 'Ledgerlens-Webhooks/1.0',
    };
    const started = performance.now();
    let response: OutboundResponse | null = null;
    let error: string | null = null;
    // an address the SSRF policy refuses stays refused: no retry
    let refused = false;
    try {
      response = await this.outbound.request(config.url, {
        method: 'POST',
        headers,
        body: delivery.body,
        timeoutMs: this.config.webhooks.timeoutMs,
        maxBodyBytes: RESPONSE_LOG_BYTES,
      });
    } catch (err) {
      refused = err instanceof OutboundBlockedError && err.permanent;
      error = `${(err as Error).name}: ${(err as Error).message}`.slice(0, 1000);
    }
    const durationMs = Math.round(performance.now() - started);
    const success = response !== null && response.status >= 200 && response.status < 300;
    if (!success && !error) error = `receiver answered ${response!.status}`;
    const finishedAt = this.clock.now();
    const record = em.create(WebhookAttempt, {
      ...scopeFields(scope),
      deliveryId,
      attemptNumber: attempt,
      requestUrl: config.url,
      requestHeaders: headers,
      requestBody: delivery.body.slice(0, REQUEST_LOG_BYTES),
      responseStatus: response?.status ?? null,
      responseHeaders: response?.headers ?? null,
      responseBody: response ? response.body + (response.bodyTruncated ? '…[truncated]' : '') : null,
      success,
      error: success ? null : error,
      durationMs,
      startedAt: now,
    });
    const last = refused || attempt >= delivery.maxAttempts;
    Object.assign(delivery, {
      attemptNumber: attempt,
      responseStatus: response?.status ?? null,
      lastError: success ? null : error,
      status: success ? 'delivered' : last ? 'failed' : 'pending',
      deliveredAt: success ? finishedAt : null,
      nextAttemptAt: success || last ? null : new Date(finishedAt.getTime() + RETRY_DELAYS_MS[attempt - 1]),
      updatedAt: finishedAt,
    });
    em.persist(record);
    await em.flush();
    this.metrics.webhookAttempt(success ? 'delivered' : last ? 'failed' : 'retrying');
    if (delivery.status === 'pending') await this.schedule(delivery);
    return { attempt: record, delivery };
  }

  /** POST /webhooks/test: one signed `webhook.test`, sent now; the result is the answer (no retries). */
  async test(auth: AuthContext, dto: WebhookTestInputDto): Promise<{ data: WebhookTestResultDto }> {
    const config = await this.db.forScope(auth).findOne(WebhookConfig, {});
    if (!config) throw ApiError.notFound('Webhook configuration');
    const pub = toPublicEvent({
      id: newEventId(),
      type: 'webhook.test',
      dealId: null,
      createdAt: this.clock.now(),
      data: { message: 'Test event from Ledgerlens', event_type: dto.event_type ?? null, mode: auth.livemode ? 'live' : 'test' },
    })!;
    const delivery = (await this.createDelivery(auth, pub, { dedupeKey: `test:${pub.id}`, maxAttempts: 1 }))!;
    const outcome = await this.attempt(auth, delivery.id, 1);
    const current = outcome?.delivery ?? (await this.db.forScope(auth).findOneOrFail(WebhookDelivery, { id: delivery.id }));
    return {
      data: {
        delivery_id: current.id,
        event: 'webhook.test',
        status: current.status,
        response_status: current.responseStatus,
        response_time_ms: outcome?.attempt.durationMs ?? 0,
        delivered_at: current.deliveredAt?.toISOString() ?? null,
        error: current.lastError,
      },
    };
  }

  /** Sends a failed delivery's event again as a new delivery (same event id and body, its own attempts). */
  async redeliver(auth: AuthContext, id: string): Promise<{ data: DeliverySummaryDto; message: string }> {
    const original = await this.find(auth, id);
    if (original.status !== 'failed')
      throw ApiError.conflict(`Delivery ${id} is ${original.status}: only a failed delivery can be redelivered`);
    const pub = JSON.parse(original.body) as PublicEvent;
    const delivery = (await this.createDelivery(auth, pub, {
      dedupeKey: `redeliver:${newDeliveryId()}`,
      maxAttempts: MAX_ATTEMPTS,
      redeliveryOf: original.id,
      body: original.body,
    }))!;
    await this.schedule(delivery);
    return { data: mapDeliverySummary(delivery, null), message: `Delivery ${original.id} is being sent again as ${delivery.id}` };
  }

  async list(auth: AuthContext, query: DeliveryListQueryDto): Promise<Page<DeliverySummaryDto>> {
    const em = this.db.forScope(auth);
    const where = {
      targetUrl: null,
      ...(query.event ? { eventType: query.event } : {}),
      ...(query.status ? { status: query.status as WebhookDelivery['status'] } : {}),
    };
    return paginate(
      pageWindow(query),
      () => em.count(WebhookDelivery, where),
      async (offset, limit) => {
        const rows = await em.find(WebhookDelivery, where, { orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], offset, limit });
        const attempts = rows.length
          ? await em.find(WebhookAttempt, { deliveryId: { $in: rows.map((r) => r.id) } }, { orderBy: { attemptNumber: 'asc' } })
          : [];
        const lastOf = new Map(attempts.map((a) => [a.deliveryId, a]));
        return rows.map((r) => mapDeliverySummary(r, lastOf.get(r.id) ?? null));
      },
    );
  }

  async detail(auth: AuthContext, id: string): Promise<{ data: DeliveryDetailDto }> {
    const delivery = await this.find(auth, id);
    const attempts = await this.db.forScope(auth).find(WebhookAttempt, { deliveryId: id }, { orderBy: { attemptNumber: 'asc' } });
    return { data: mapDeliveryDetail(delivery, attempts) };
  }

  private async find(auth: AuthContext, id: string): Promise<WebhookDelivery> {
    const delivery = /^whd_[0-9a-f]{24}$/.test(id) ? await this.db.forScope(auth).findOne(WebhookDelivery, { id, targetUrl: null }) : null;
    if (!delivery) throw ApiError.notFound('Webhook delivery');
    return delivery;
  }
}
