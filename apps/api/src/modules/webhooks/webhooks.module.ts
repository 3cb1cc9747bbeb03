import { Module } from '@nestjs/common';
import { WebhooksController } from './webhooks.controller';
import { WebhookConfigService } from './webhook-config.service';
import { WebhookDeliveryService } from './webhook-delivery.service';

/** Outbound webhooks: configuration, signed deliveries of domain events with retries, delivery logs. */
@Module({ controllers: [WebhooksController], providers: [WebhookConfigService, WebhookDeliveryService], exports: [WebhookDeliveryService] })
export class WebhooksModule {}
