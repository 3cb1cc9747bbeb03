import type { LedgerlensCore } from '../core.js';
import type {
  Ack,
  CommonRequestOptions,
  Redelivery,
  WebhookConfig,
  WebhookConfigInput,
  WebhookDelivery,
  WebhookDeliveryDetail,
  WebhookDeliveryList,
  WebhookDeliveryQuery,
  WebhookTestInput,
  WebhookTestResult,
} from '../types.js';
import { unwrap } from '../unwrap.js';

/**
 * `client.webhooks`: where Ledgerlens sends signed events, and the delivery log. Verify the
 * signatures you receive with `@ledgerlens/webhooks`.
 */
export class WebhooksResource {
  constructor(private readonly client: LedgerlensCore) {}

  async getConfig(options?: CommonRequestOptions): Promise<WebhookConfig> {
    return unwrap((await this.client.GET('/v1/webhooks/config', options)).data);
  }

  /** Creates or replaces the configuration (URL, events, secret, `enabled` or `active`). */
  async setConfig(config: WebhookConfigInput, options?: CommonRequestOptions): Promise<WebhookConfig> {
    return unwrap((await this.client.PUT('/v1/webhooks/config', { ...options, body: config })).data);
  }

  /**
   * The same as `setConfig`, on the guide's `POST` path.
   * @deprecated Use `setConfig`; `postConfig` is removed in the next minor version.
   */
  async postConfig(config: WebhookConfigInput, options?: CommonRequestOptions): Promise<WebhookConfig> {
    return unwrap((await this.client.POST('/v1/webhooks/config', { ...options, body: config })).data);
  }

  async deleteConfig(options?: CommonRequestOptions): Promise<Ack> {
    return (await this.client.DELETE('/v1/webhooks/config', options)).data;
  }

  /** Sends a signed `webhook.test` event now and reports the endpoint's answer. */
  async test(body: WebhookTestInput = {}, options?: CommonRequestOptions): Promise<WebhookTestResult> {
    return unwrap((await this.client.POST('/v1/webhooks/test', { ...options, body })).data);
  }

  async deliveries(query: WebhookDeliveryQuery = {}, options?: CommonRequestOptions): Promise<WebhookDeliveryList> {
    return (await this.client.GET('/v1/webhooks/deliveries', { ...options, params: { query } })).data;
  }

  listAllDeliveries(
    query: Omit<WebhookDeliveryQuery, 'page'> = {},
    options?: CommonRequestOptions,
  ): AsyncGenerator<WebhookDelivery, void, undefined> {
    return this.client.paginate('/v1/webhooks/deliveries', { per_page: 100, ...query }, options);
  }

  /** One delivery with its attempts (status, latency, response excerpt). */
  async delivery(deliveryId: string, options?: CommonRequestOptions): Promise<WebhookDeliveryDetail> {
    return unwrap(
      (await this.client.GET('/v1/webhooks/deliveries/{delivery_id}', { ...options, params: { path: { delivery_id: deliveryId } } })).data,
    );
  }

  /** Sends a failed delivery again (same event id and body). */
  async redeliver(deliveryId: string, options?: CommonRequestOptions): Promise<Redelivery> {
    return (
      await this.client.POST('/v1/webhooks/deliveries/{delivery_id}/redeliver', {
        ...options,
        params: { path: { delivery_id: deliveryId } },
      })
    ).data;
  }
}
