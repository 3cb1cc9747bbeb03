import type { LedgerlensCore } from '../core.js';
import type { CommonRequestOptions, components } from '../types.js';

type S = components['schemas'];

/** `client.shares`: read-only links to a deal's summary for people without an account. */
export class SharesResource {
  constructor(private readonly client: LedgerlensCore) {}

  /** Creates a link: `expires_at` or `expires_in_hours`, optional `label` and `password`. `url` opens the HTML page. */
  async create(dealId: number, body: S['CreateShareDto'] = {}, options?: CommonRequestOptions): Promise<S['ShareLinkDto']> {
    return (await this.client.POST('/v1/deals/{deal_id}/share', { ...options, params: { path: { deal_id: dealId } }, body })).data;
  }

  /** Every link of the deal, expired and revoked ones included (Form A). */
  async list(
    dealId: number,
    query: { page?: number; per_page?: number } = {},
    options?: CommonRequestOptions,
  ): Promise<S['ShareLinkListDto']> {
    return (await this.client.GET('/v1/deals/{deal_id}/shares', { ...options, params: { path: { deal_id: dealId }, query } })).data;
  }

  /** The links that still work (Form B). */
  async listActive(dealId: number, options?: CommonRequestOptions): Promise<S['ActiveShareLinksDto']> {
    return (await this.client.GET('/v1/deals/{deal_id}/share', { ...options, params: { path: { deal_id: dealId } } })).data;
  }

  /** Revokes a link at once (then 404 for viewers). */
  async revoke(shareId: number, options?: CommonRequestOptions): Promise<void> {
    await this.client.DELETE('/v1/share/{share_id}', { ...options, params: { path: { share_id: shareId } } });
  }

  /** What a viewer of the link sees (no credential needed); `password` for a protected link. */
  async view(token: string, options: CommonRequestOptions & { password?: string } = {}): Promise<S['ShareViewDto']> {
    const { password, ...rest } = options;
    return (
      await this.client.request<S['ShareViewDto']>('GET', '/v1/share/{token}', {
        ...rest,
        params: { path: { token } },
        headers: { ...rest.headers, ...(password !== undefined ? { 'X-Share-Password': password } : {}) },
      })
    ).data;
  }

  /** The human page of a link (HTML, as a browser gets it); with `password`, the page after the password form. */
  async html(token: string, options: CommonRequestOptions & { password?: string } = {}): Promise<string> {
    const { password, ...rest } = options;
    const res =
      password === undefined
        ? await this.client.request<string>('GET', '/share/{token}', {
            ...rest,
            params: { path: { token } },
            headers: { Accept: 'text/html' },
            parseAs: 'text',
          })
        : await this.client.request<string>('POST', '/share/{token}', {
            ...rest,
            params: { path: { token } },
            headers: { Accept: 'text/html' },
            body: new URLSearchParams({ password }),
            parseAs: 'text',
          });
    return res.data;
  }
}
