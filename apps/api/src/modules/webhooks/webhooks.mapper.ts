import { WebhookConfig, WebhookAttempt, WebhookDelivery } from './webhooks.entities';
import { DeliveryAttemptDto, DeliveryDetailDto, DeliverySummaryDto, WebhookConfigDto } from './dto/webhook.dto';

export function mapConfig(config: WebhookConfig): WebhookConfigDto {
  return {
    url: config.url,
    events: config.events,
    enabled: config.enabled,
    active: config.enabled,
    mode: config.livemode ? 'live' : 'test',
    created_at: config.createdAt.toISOString(),
    updated_at: config.updatedAt.toISOString(),
  };
}

export function mapDeliverySummary(d: WebhookDelivery, last: WebhookAttempt | null): DeliverySummaryDto {
  return {
    id: d.id,
    event: d.eventType,
    event_type: d.eventType,
    event_id: d.eventId,
    status: d.status,
    response_status: d.responseStatus,
    status_code: d.responseStatus,
    success: d.status === 'delivered',
    attempt_number: d.attemptNumber,
    attempt: d.attemptNumber,
    max_attempts: d.maxAttempts,
    deal_id: d.dealId,
    url: last?.requestUrl ?? null,
    next_attempt_at: d.status === 'pending' ? (d.nextAttemptAt?.toISOString() ?? null) : null,
    redelivery_of: d.redeliveryOf,
    created_at: d.createdAt.toISOString(),
    delivered_at: d.deliveredAt?.toISOString() ?? null,
  };
}

function mapAttempt(a: WebhookAttempt): DeliveryAttemptDto {
  return {
    attempt_number: a.attemptNumber,
    success: a.success,
    error: a.error,
    started_at: a.startedAt.toISOString(),
    request: { url: a.requestUrl, headers: a.requestHeaders, body: a.requestBody },
    response: { status_code: a.responseStatus, headers: a.responseHeaders, body: a.responseBody, time_ms: a.durationMs },
  };
}

export function mapDeliveryDetail(d: WebhookDelivery, attempts: WebhookAttempt[]): DeliveryDetailDto {
  const last = attempts.at(-1) ?? null;
  const mapped = attempts.map(mapAttempt);
  return {
    ...mapDeliverySummary(d, last),
    request: mapped.at(-1)?.request ?? null,
    response: mapped.at(-1)?.response ?? null,
    error: d.lastError,
    attempts: mapped,
  };
}
