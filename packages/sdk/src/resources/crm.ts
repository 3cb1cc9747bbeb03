import type { LedgerlensCore } from '../core.js';
import type { Ack, CommonRequestOptions, components, OperationOf, paths } from '../types.js';
import { unwrap } from '../unwrap.js';

type S = components['schemas'];
type SyncLogQuery = NonNullable<OperationOf<paths, '/v1/crm/sync-log', 'get'>['parameters']['query']>;
type RunsQuery = NonNullable<OperationOf<paths, '/v1/crm/sync/logs', 'get'>['parameters']['query']>;
export type CrmProvider = 'salesforce' | 'hubspot' | 'pipedrive' | 'custom';
const provider = (p: CrmProvider) => ({ path: { provider: p } });
export type CrmSingleConfig = S['CrmSingleConfigResponseDto']['data'];
export type CrmRunDetail = S['CrmRunDetailResponseDto']['data'];
export type CrmWebhookResult = S['CrmWebhookResponseDto']['data'];

/** `client.crm`: Salesforce, HubSpot, Pipedrive or a custom endpoint: configuration, field mappings and sync. */
export class CrmResource {
  constructor(private readonly client: LedgerlensCore) {}

  /** The single configuration (Form B); credentials are never returned. */
  async getConfig(options?: CommonRequestOptions): Promise<CrmSingleConfig> {
    return unwrap((await this.client.GET('/v1/crm/config', options)).data);
  }

  /** Sets the single configuration; the server tests the connection before saving it. */
  async setConfig(body: S['CrmSingleConfigInputDto'], options?: CommonRequestOptions): Promise<CrmSingleConfig> {
    return unwrap((await this.client.PUT('/v1/crm/config', { ...options, body })).data);
  }

  /** One provider's configuration (Form A). */
  async getProvider(p: CrmProvider, options?: CommonRequestOptions): Promise<S['CrmConfigDto']> {
    return (await this.client.GET('/v1/crm/config/{provider}', { ...options, params: provider(p) })).data;
  }

  async setProvider(p: CrmProvider, body: S['CrmConfigInputDto'], options?: CommonRequestOptions): Promise<S['CrmConfigDto']> {
    return (await this.client.PUT('/v1/crm/config/{provider}', { ...options, params: provider(p), body })).data;
  }

  async deleteProvider(p: CrmProvider, options?: CommonRequestOptions): Promise<Ack> {
    return (await this.client.DELETE('/v1/crm/config/{provider}', { ...options, params: provider(p) })).data;
  }

  /** Calls the provider with the stored credentials and reports the answer. */
  async testProvider(p: CrmProvider, options?: CommonRequestOptions): Promise<S['CrmTestResultDto']> {
    return (await this.client.POST('/v1/crm/config/{provider}/test', { ...options, params: provider(p) })).data;
  }

  /** Every field mapping (Form B). */
  async mappings(options?: CommonRequestOptions): Promise<S['CrmMappingListDto']> {
    return (await this.client.GET('/v1/crm/field-mappings', options)).data;
  }

  /** Replaces every field mapping (Form B). */
  async setMappings(body: S['CrmMappingInputDto'][], options?: CommonRequestOptions): Promise<S['CrmMappingListDto']> {
    return (await this.client.PUT('/v1/crm/field-mappings', { ...options, body })).data;
  }

  /** One provider's mappings (Form A). */
  async providerMappings(p: CrmProvider, options?: CommonRequestOptions): Promise<S['CrmMappingSetDto']> {
    return (await this.client.GET('/v1/crm/field-mapping/{provider}', { ...options, params: provider(p) })).data;
  }

  /** Replaces one provider's mappings (Form A). */
  async setProviderMappings(
    p: CrmProvider,
    body: S['CrmMappingSetInputDto'],
    options?: CommonRequestOptions,
  ): Promise<S['CrmMappingSetDto']> {
    return (await this.client.PUT('/v1/crm/field-mapping/{provider}', { ...options, params: provider(p), body })).data;
  }

  /** With `dealId`: pushes the deal to every enabled provider now. Without: starts a full sync (202). */
  async sync(dealId?: number, options?: CommonRequestOptions): Promise<S['CrmSyncResponseDto']> {
    return (await this.client.POST('/v1/crm/sync', { ...options, body: dealId === undefined ? {} : { deal_id: dealId } })).data;
  }

  /** The sync log (Form A), filtered by deal, provider or status. */
  async syncLog(query: SyncLogQuery = {}, options?: CommonRequestOptions): Promise<S['CrmSyncLogListDto']> {
    return (await this.client.GET('/v1/crm/sync-log', { ...options, params: { query } })).data;
  }

  /** Sync runs (Form B). */
  async runs(query: RunsQuery = {}, options?: CommonRequestOptions): Promise<S['CrmRunListDto']> {
    return (await this.client.GET('/v1/crm/sync/logs', { ...options, params: { query } })).data;
  }

  /** One run with its per-record details. */
  async run(logId: string, options?: CommonRequestOptions): Promise<CrmRunDetail> {
    return unwrap((await this.client.GET('/v1/crm/sync/logs/{log_id}', { ...options, params: { path: { log_id: logId } } })).data);
  }

  /** Forwards a change made in the CRM (`{provider, event, record_id, fields, timestamp}`). */
  async receiveWebhook(body: Record<string, unknown>, options?: CommonRequestOptions): Promise<CrmWebhookResult> {
    return unwrap((await this.client.request<S['CrmWebhookResponseDto']>('POST', '/v1/crm/webhooks', { ...options, body })).data);
  }
}
