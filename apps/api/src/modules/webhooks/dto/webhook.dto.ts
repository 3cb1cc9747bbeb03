import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn } from 'class-validator';
import { PageMetaDto, PageQueryDto } from '../../../platform/pagination/pagination';
import { ValidateBoolean, ValidateEnum, ValidateString } from '../../../platform/validation/decorators';
import { PUBLIC_EVENT_TYPES, PublicEventType } from '../public-events';

/**
 * Event types an endpoint can subscribe to: every documented type, `webhook.test` included (the
 * test endpoint sends it whether or not it is listed).
 */
export const SUBSCRIBABLE_EVENTS = PUBLIC_EVENT_TYPES;
/** Event types a test payload can name (`data.event_type`). */
export const TEST_PAYLOAD_EVENTS = PUBLIC_EVENT_TYPES.filter((t) => t !== 'webhook.test');
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;

/**
 * PUT (spec) and POST (guide form) `/webhooks/config`: `enabled` or its guide name `active`.
 * Validated by WebhookConfigService, which adds the URL policy to these rules (one 422 lists every
 * invalid field).
 */
export class WebhookConfigInputDto {
  @ValidateString({ maxLength: 2048, description: 'Receiver URL: HTTPS, not a private, loopback or link-local address' })
  url: string;

  @ValidateString({
    minLength: 8,
    maxLength: 255,
    description: 'Signing secret (never returned). A `whsec_<base64>` secret is used as Standard Webhooks libraries expect.',
  })
  secret: string;

  @ApiProperty({
    type: [String],
    enum: SUBSCRIBABLE_EVENTS,
    description: 'Event types to deliver (`webhook.test` is accepted; the test endpoint sends it whether or not it is listed)',
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(SUBSCRIBABLE_EVENTS.length)
  @IsIn(SUBSCRIBABLE_EVENTS as unknown as string[], {
    each: true,
    message: `each value in events must be one of: ${SUBSCRIBABLE_EVENTS.join(', ')}`,
  })
  events: string[];

  @ValidateBoolean({ optional: true, description: 'Deliveries are sent only while enabled (default true)' })
  enabled?: boolean;

  @ValidateBoolean({ optional: true, description: 'Guide name of `enabled`' })
  active?: boolean;
}

export class WebhookConfigDto {
  @ApiProperty() url: string;
  @ApiProperty({ type: [String], enum: SUBSCRIBABLE_EVENTS }) events: string[];
  @ApiProperty() enabled: boolean;
  @ApiProperty({ description: 'Same as enabled (guide form)' }) active: boolean;
  @ApiProperty({ enum: ['live', 'test'], description: 'Each mode has its own configuration' }) mode: 'live' | 'test';
  @ApiProperty({ type: String, format: 'date-time' }) created_at: string;
  @ApiProperty({ type: String, format: 'date-time' }) updated_at: string;
}

export class WebhookConfigResponseDto {
  @ApiProperty({ type: WebhookConfigDto }) data: WebhookConfigDto;
}

export class WebhookTestInputDto {
  @ValidateEnum(TEST_PAYLOAD_EVENTS, { optional: true, description: 'Event type named in the test payload (`data.event_type`)' })
  event_type?: PublicEventType;
}

export class WebhookTestResultDto {
  @ApiProperty() delivery_id: string;
  @ApiProperty({ enum: ['webhook.test'] }) event: 'webhook.test';
  @ApiProperty({ enum: DELIVERY_STATUSES }) status: string;
  @ApiProperty({ type: 'integer', nullable: true }) response_status: number | null;
  @ApiProperty({ type: 'integer' }) response_time_ms: number;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) delivered_at: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Why the attempt failed (timeout, blocked address, connection error)' }) error:
    string | null;
}

export class WebhookTestResponseDto {
  @ApiProperty({ type: WebhookTestResultDto }) data: WebhookTestResultDto;
}

export class DeliveryListQueryDto extends PageQueryDto {
  @ValidateEnum(PUBLIC_EVENT_TYPES, { optional: true, description: 'Only deliveries of this event type' })
  event?: string;

  @ValidateEnum(DELIVERY_STATUSES, { optional: true, description: 'Only deliveries in this status' })
  status?: string;
}

/** List item: the spec's fields plus the guide form's names (`event_type`, `status_code`, `success`, `attempt`, `url`). */
export class DeliverySummaryDto {
  @ApiProperty() id: string;
  @ApiProperty() event: string;
  @ApiProperty() event_type: string;
  @ApiProperty({ description: 'Event id, the same on every attempt and redelivery (deduplicate on it)' }) event_id: string;
  @ApiProperty({ enum: DELIVERY_STATUSES }) status: string;
  @ApiProperty({ type: 'integer', nullable: true }) response_status: number | null;
  @ApiProperty({ type: 'integer', nullable: true }) status_code: number | null;
  @ApiProperty() success: boolean;
  @ApiProperty({ type: 'integer', description: 'Attempts made so far' }) attempt_number: number;
  @ApiProperty({ type: 'integer' }) attempt: number;
  @ApiProperty({ type: 'integer' }) max_attempts: number;
  @ApiProperty({ type: 'integer', nullable: true }) deal_id: number | null;
  @ApiProperty({ type: String, nullable: true, description: 'URL of the last attempt' }) url: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) next_attempt_at: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Id of the delivery this one redelivers' }) redelivery_of: string | null;
  @ApiProperty({ type: String, format: 'date-time' }) created_at: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) delivered_at: string | null;
}

export class DeliveryListDto {
  @ApiProperty({ type: [DeliverySummaryDto] }) data: DeliverySummaryDto[];
  @ApiProperty({ type: PageMetaDto }) meta: PageMetaDto;
}

export class DeliveryRequestDto {
  @ApiProperty() url: string;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } }) headers: Record<string, string>;
  @ApiProperty({ description: 'The exact body sent (signed as is)' }) body: string;
}

export class DeliveryResponseDto {
  @ApiProperty({ type: 'integer', nullable: true }) status_code: number | null;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' }, nullable: true }) headers: Record<string, string> | null;
  @ApiProperty({ type: String, nullable: true, description: 'Truncated to 4 KiB' }) body: string | null;
  @ApiProperty({ type: 'integer' }) time_ms: number;
}

export class DeliveryAttemptDto {
  @ApiProperty({ type: 'integer' }) attempt_number: number;
  @ApiProperty() success: boolean;
  @ApiProperty({ type: String, nullable: true }) error: string | null;
  @ApiProperty({ type: String, format: 'date-time' }) started_at: string;
  @ApiProperty({ type: DeliveryRequestDto }) request: DeliveryRequestDto;
  @ApiProperty({ type: DeliveryResponseDto }) response: DeliveryResponseDto;
}

export class DeliveryDetailDto extends DeliverySummaryDto {
  @ApiProperty({ type: DeliveryRequestDto, nullable: true, description: 'Last attempt (null before the first)' })
  request: DeliveryRequestDto | null;
  @ApiProperty({ type: DeliveryResponseDto, nullable: true, description: 'Last attempt (null before the first)' })
  response: DeliveryResponseDto | null;
  @ApiProperty({ type: String, nullable: true }) error: string | null;
  @ApiProperty({ type: [DeliveryAttemptDto], description: 'Every attempt, oldest first' }) attempts: DeliveryAttemptDto[];
}

export class DeliveryDetailResponseDto {
  @ApiProperty({ type: DeliveryDetailDto }) data: DeliveryDetailDto;
}

export class RedeliveryResponseDto {
  @ApiProperty({ type: DeliverySummaryDto }) data: DeliverySummaryDto;
  @ApiProperty() message: string;
}
