import type { Ledgerlens, Page } from './client';
import type {
  Ack,
  ApiKey,
  ApiKeyList,
  BatchCreateResult,
  CommonRequestOptions,
  CreateApiKey,
  CreateDeal,
  CreatedApiKey,
  Deal,
  DealList,
  DealListQuery,
  DealStats,
  DealSummary,
  Decision,
  DecisionResult,
  KeyListQuery,
  UpdateDeal,
  components,
} from './types';

export interface CreateDealOptions extends CommonRequestOptions {
  /**
   * Idempotency-Key for the request. When omitted the SDK generates a UUID v4, so the SDK's own
   * retries can never create the deal twice. Pass your own to make retries across processes safe.
   */
  idempotencyKey?: string;
}

/** A UUID v4 from the platform's Web Crypto. */
export function uuidv4(): string {
  return globalThis.crypto.randomUUID();
}

/** `client.deals`: create, read, update, delete, decide and list deals. */
export class DealsResource {
  constructor(private readonly client: Ledgerlens) {}

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
    const { idempotencyKey = uuidv4(), ...rest } = options;
    return (await this.client.POST('/v1/deals', { ...rest, body, params: { header: { 'Idempotency-Key': idempotencyKey } } })).data;
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
  async decide(dealId: number, decision: Decision, options?: CommonRequestOptions): Promise<DecisionResult> {
    return (
      await this.client.POST('/v1/deals/{deal_id}/decision', { ...options, params: { path: { deal_id: dealId } }, body: { decision } })
    ).data;
  }
}

/** `client.keys`: API key management (needs the `keys:manage` scope). */
export class KeysResource {
  constructor(private readonly client: Ledgerlens) {}

  /** Creates a key; `key` in the result is the only time the full value is shown. */
  async create(body: CreateApiKey = {}, options?: CommonRequestOptions): Promise<CreatedApiKey> {
    return (await this.client.POST('/v1/keys', { ...options, body: body as components['schemas']['CreateKeyDto'] })).data;
  }

  async list(query: KeyListQuery = {}, options?: CommonRequestOptions): Promise<ApiKeyList> {
    return (await this.client.GET('/v1/keys', { ...options, params: { query } })).data;
  }

  /** Every active key, page after page. */
  listAll(options?: CommonRequestOptions): AsyncGenerator<ApiKey, void, undefined> {
    return this.client.paginate('/v1/keys', { per_page: 100 }, options);
  }

  /** Revokes a key at once. A key cannot revoke itself (409 CONFLICT). */
  async revoke(keyId: number, options?: CommonRequestOptions): Promise<Ack> {
    return (await this.client.DELETE('/v1/keys/{key_id}', { ...options, params: { path: { key_id: keyId } } })).data;
  }

  /** Replaces the key's value: the old value stops working immediately. Not retried on 5xx. */
  async rotate(keyId: number, options?: CommonRequestOptions): Promise<CreatedApiKey> {
    return (await this.client.POST('/v1/keys/{key_id}/rotate', { ...options, params: { path: { key_id: keyId } } })).data;
  }
}
