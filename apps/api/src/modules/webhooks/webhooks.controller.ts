import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBody,
  ApiConflictResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  ApiUnprocessableEntityResponse,
} from '@nestjs/swagger';
import type { AuthContext } from '../../platform/auth/auth-context';
import { Auth, Authenticated } from '../../platform/auth/decorators';
import { ErrorEnvelopeDto } from '../../platform/errors/error.dto';
import { AckDto } from '../../platform/http/ack.dto';
import { WebhookConfigService } from './webhook-config.service';
import { WebhookDeliveryService } from './webhook-delivery.service';
import {
  DeliveryDetailResponseDto,
  DeliveryListDto,
  DeliveryListQueryDto,
  RedeliveryResponseDto,
  WebhookConfigInputDto,
  WebhookConfigResponseDto,
  TEST_PAYLOAD_EVENTS,
  WebhookTestInputDto,
  WebhookTestResponseDto,
} from './dto/webhook.dto';
import { ApiError, validationEntry } from '../../platform/errors/api-error';
import type { PublicEventType } from './public-events';

/** The test endpoint's body is optional (the global pipe requires one), so it is checked here. */
function testInput(body: unknown): WebhookTestInputDto {
  if (body === undefined || body === null || body === '') return {};
  if (typeof body !== 'object' || Array.isArray(body))
    throw ApiError.validation([validationEntry('body', [], 'Request body must be a JSON object', 'type_error.object')]);
  const eventType = (body as { event_type?: unknown }).event_type;
  if (eventType === undefined || eventType === null) return {};
  if (typeof eventType !== 'string' || !(TEST_PAYLOAD_EVENTS as readonly string[]).includes(eventType)) {
    throw ApiError.validation([
      validationEntry('body', ['event_type'], `event_type must be one of: ${TEST_PAYLOAD_EVENTS.join(', ')}`, 'value_error.enum'),
    ]);
  }
  return { event_type: eventType as PublicEventType };
}

/**
 * Webhook configuration and delivery logs (Form-B-only paths keep Form B's `{data: ...}` bodies:
 * README, "How the spec's variants became one API", rule 3).
 */
@ApiTags('Webhooks')
@Controller('v1/webhooks')
export class WebhooksController {
  constructor(
    private readonly configs: WebhookConfigService,
    private readonly deliveries: WebhookDeliveryService,
  ) {}

  @Get('config')
  @Authenticated('webhooks:read')
  @ApiOkResponse({ type: WebhookConfigResponseDto })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto, description: 'No webhook configured in this mode' })
  getWebhookConfig(@Auth() auth: AuthContext): Promise<WebhookConfigResponseDto> {
    return this.configs.get(auth);
  }

  @Put('config')
  @Authenticated('webhooks:write')
  @ApiOperation({ summary: 'Create or replace the webhook configuration of this organization and mode' })
  @ApiOkResponse({ type: WebhookConfigResponseDto })
  @ApiBody({ type: WebhookConfigInputDto })
  @ApiUnprocessableEntityResponse({
    type: ErrorEnvelopeDto,
    description: 'VALIDATION_ERROR listing every invalid field, the URL policy included (HTTPS, no private address)',
  })
  putWebhookConfig(@Auth() auth: AuthContext, @Body() body: unknown): Promise<WebhookConfigResponseDto> {
    return this.configs.put(auth, body);
  }

  @Post('config')
  @HttpCode(200)
  @Authenticated('webhooks:write')
  @ApiOperation({ summary: 'Guide form of PUT (`active` in place of `enabled`): create or replace' })
  @ApiOkResponse({ type: WebhookConfigResponseDto })
  @ApiBody({ type: WebhookConfigInputDto })
  @ApiUnprocessableEntityResponse({ type: ErrorEnvelopeDto, description: 'VALIDATION_ERROR listing every invalid field' })
  postWebhookConfig(@Auth() auth: AuthContext, @Body() body: unknown): Promise<WebhookConfigResponseDto> {
    return this.configs.put(auth, body);
  }

  @Delete('config')
  @Authenticated('webhooks:write')
  @ApiOkResponse({ type: AckDto })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto })
  deleteWebhookConfig(@Auth() auth: AuthContext): Promise<AckDto> {
    return this.configs.remove(auth);
  }

  @Post('test')
  @HttpCode(200)
  @Authenticated('webhooks:write')
  @ApiOperation({ summary: 'Send a signed webhook.test now and report the result (one attempt)' })
  @ApiOkResponse({ type: WebhookTestResponseDto })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto, description: 'No webhook configured in this mode' })
  @ApiBody({ type: WebhookTestInputDto, required: false })
  testWebhook(@Auth() auth: AuthContext, @Body() body: unknown): Promise<WebhookTestResponseDto> {
    return this.deliveries.test(auth, testInput(body));
  }

  @Get('deliveries')
  @Authenticated('webhooks:read')
  @ApiOkResponse({ type: DeliveryListDto })
  listWebhookDeliveries(@Auth() auth: AuthContext, @Query() query: DeliveryListQueryDto): Promise<DeliveryListDto> {
    return this.deliveries.list(auth, query);
  }

  @Get('deliveries/:delivery_id')
  @Authenticated('webhooks:read')
  @ApiOkResponse({ type: DeliveryDetailResponseDto })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto })
  getWebhookDelivery(@Auth() auth: AuthContext, @Param('delivery_id') id: string): Promise<DeliveryDetailResponseDto> {
    return this.deliveries.detail(auth, id);
  }

  @Post('deliveries/:delivery_id/redeliver')
  @HttpCode(202)
  @Authenticated('webhooks:write')
  @ApiOperation({ summary: 'Send a failed delivery again (same event id and body, as a new delivery)' })
  @ApiAcceptedResponse({ type: RedeliveryResponseDto })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto })
  @ApiConflictResponse({ type: ErrorEnvelopeDto, description: 'The delivery is not failed' })
  redeliverWebhook(@Auth() auth: AuthContext, @Param('delivery_id') id: string): Promise<RedeliveryResponseDto> {
    return this.deliveries.redeliver(auth, id);
  }
}
