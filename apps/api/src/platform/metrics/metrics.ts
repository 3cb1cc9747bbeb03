import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { QueueStats } from '../queue/job-queue';

const STATUS_CLASSES = ['0xx', '1xx', '2xx', '3xx', '4xx', '5xx'];

export type WebhookOutcome = 'delivered' | 'retrying' | 'failed';

/** One step of a document as recorded on it (`steps`). */
export interface RecordedStep {
  name: string;
  started_at: string;
  completed_at: string | null;
}

/**
 * The process's Prometheus registry (served by /metrics and the METRICS_PORT listener). Every
 * series is an aggregate over all organizations: no label ever carries an organization, a user,
 * a document or a raw URL (routes are templates such as `/v1/deals/:deal_id`).
 *
 * Parse accuracy is counted when a document completes (by the process that completed it), not
 * queried at scrape time: `sum(rate(ledgerlens_documents_reconciled_total{reconciled="true"}[1h]))
 * / sum(rate(ledgerlens_documents_reconciled_total[1h]))` is the reconciled ratio over replicas.
 */
export class Metrics {
  readonly registry = new Registry();
  /** Requests counted since the last scrape, per series (method, route template, status class). */
  private readonly httpSeries = new Map<string, { labels: Record<'method' | 'route' | 'status_class', string>; pending: number }>();
  private readonly httpRequests = new Counter({
    name: 'ledgerlens_http_requests_total',
    help: 'HTTP requests served, by method, route template and status class',
    labelNames: ['method', 'route', 'status_class'] as const,
    registers: [this.registry],
    collect: () => this.foldHttpCounts(),
  });
  private readonly httpDuration = new Histogram({
    name: 'ledgerlens_http_request_duration_seconds',
    help: 'HTTP request latency, by method, route template and status class',
    labelNames: ['method', 'route', 'status_class'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  private readonly stepDuration = new Histogram({
    name: 'ledgerlens_pipeline_step_duration_seconds',
    help: 'Duration of each document pipeline step (extracting_text, running_ocr, classifying, parsing_with_llm, computing_metrics)',
    labelNames: ['step'] as const,
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
    registers: [this.registry],
  });
  private readonly documentsProcessed = new Counter({
    name: 'ledgerlens_documents_processed_total',
    help: 'Documents that left the pipeline, by outcome (completed, failed)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  private readonly documentsReconciled = new Counter({
    name: 'ledgerlens_documents_reconciled_total',
    help: 'Completed bank statements whose transactions reconcile with their balances (reconciled="true") or not',
    labelNames: ['reconciled'] as const,
    registers: [this.registry],
  });
  private readonly documentsNeedsReview = new Counter({
    name: 'ledgerlens_documents_needs_review_total',
    help: 'Completed documents flagged needs_review (unreconciled, no transactions, misprinted balances)',
    registers: [this.registry],
  });
  private readonly webhookDeliveries = new Counter({
    name: 'ledgerlens_webhook_deliveries_total',
    help: 'Webhook delivery attempts by outcome: delivered, retrying (failed, another attempt scheduled), failed (no attempt left)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  constructor(queueStats: () => Promise<QueueStats[]>) {
    collectDefaultMetrics({ register: this.registry });
    for (const outcome of ['completed', 'failed']) this.documentsProcessed.inc({ outcome }, 0);
    for (const reconciled of ['true', 'false']) this.documentsReconciled.inc({ reconciled }, 0);
    for (const outcome of ['delivered', 'retrying', 'failed']) this.webhookDeliveries.inc({ outcome }, 0);
    // Queue gauges are read when scraped, so every process reports the queues as they are now
    // (with Redis, every process sees the same shared queues: aggregate with max(), not sum()).
    let pending: Promise<QueueStats[]> | null = null;
    const current = () => (pending ??= queueStats().finally(() => (pending = null)));
    new Gauge({
      name: 'ledgerlens_queue_jobs',
      help: 'Jobs per queue and state (waiting, active, delayed, failed)',
      labelNames: ['queue', 'state'] as const,
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const q of await current())
          for (const state of ['waiting', 'active', 'delayed', 'failed'] as const) this.set({ queue: q.queue, state }, q[state]);
      },
    });
    new Gauge({
      name: 'ledgerlens_queue_oldest_waiting_age_seconds',
      help: 'Age of the oldest job waiting to be taken, per queue (0 when none waits)',
      labelNames: ['queue'] as const,
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const q of await current()) this.set({ queue: q.queue }, q.oldestWaitingAgeSeconds);
      },
    });
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  private foldHttpCounts(): void {
    for (const series of this.httpSeries.values()) {
      if (series.pending === 0) continue;
      this.httpRequests.inc(series.labels, series.pending);
      series.pending = 0;
    }
  }

  httpRequest(method: string, route: string | undefined, status: number, seconds: number): void {
    // One labels object per series, kept: the request counter is added up here and handed to
    // prom-client when scraped, so a request pays for one label hash (the histogram's), not two.
    const statusClass = STATUS_CLASSES[Math.floor(status / 100)] ?? `${Math.floor(status / 100)}xx`;
    const key = `${method} ${statusClass} ${route ?? ''}`;
    let series = this.httpSeries.get(key);
    if (series === undefined) {
      series = { labels: { method, route: route ?? 'unmatched', status_class: statusClass }, pending: 0 };
      this.httpSeries.set(key, series);
    }
    series.pending++;
    this.httpDuration.observe(series.labels, seconds);
  }

  /** A document left the pipeline: its recorded steps' durations, and on completion its parse signals. */
  documentFinished(
    outcome: 'completed' | 'failed',
    steps: RecordedStep[],
    parse?: { bankStatement: boolean; reconciled: boolean; needsReview: boolean },
  ): void {
    this.documentsProcessed.inc({ outcome });
    for (const s of steps) {
      if (s.name === 'completed' || s.name === 'failed' || !s.completed_at) continue;
      const seconds = (Date.parse(s.completed_at) - Date.parse(s.started_at)) / 1000;
      if (seconds >= 0) this.stepDuration.observe({ step: s.name }, seconds);
    }
    if (!parse) return;
    if (parse.bankStatement) this.documentsReconciled.inc({ reconciled: String(parse.reconciled) });
    if (parse.needsReview) this.documentsNeedsReview.inc();
  }

  webhookAttempt(outcome: WebhookOutcome): void {
    this.webhookDeliveries.inc({ outcome });
  }
}
