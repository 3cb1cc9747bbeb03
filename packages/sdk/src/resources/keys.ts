import type { LedgerlensCore } from '../core.js';
import type { Ack, ApiKey, ApiKeyList, CommonRequestOptions, CreateApiKey, CreatedApiKey, KeyListQuery, components } from '../types.js';

/** `client.keys`: API key management (needs the `keys:manage` scope). */
export class KeysResource {
  constructor(private readonly client: LedgerlensCore) {}

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
