import { CrmHttp, CrmResponse } from './crm-http';
import { CrmError, CrmProvider, InboundChange, InboundRequest, PullResult, PushInput, PushResult } from './crm-provider';

export interface CustomCredentials {
  api_key: string;
  base_url: string;
}

/**
 * `custom`: a generic HTTPS JSON endpoint (contract in the README, "CRM integration"): bearer
 * `api_key`; `GET {base}/deals?limit=1` tests; `PUT {base}/deals/{ref}` with `{deal_id, ref, fields}`
 * upserts and answers `{id, created}`; `GET {base}/deals?updated_since=` lists
 * `{data: [{id, deal_ref, fields, updated_at}]}`.
 */
export class CustomAdapter implements CrmProvider {
  readonly name = 'custom' as const;
  private readonly base: string;

  constructor(
    private readonly http: CrmHttp,
    private readonly credentials: CustomCredentials,
  ) {
    this.base = credentials.base_url.replace(/\/+$/, '');
  }

  private async api(method: 'GET' | 'PUT', path: string, json?: unknown): Promise<CrmResponse> {
    const res = await this.http.call({
      method,
      url: `${this.base}${path}`,
      json,
      headers: { Authorization: `Bearer ${this.credentials.api_key}` },
    });
    if (res.status >= 300) {
      const err = (res.json as { error?: string; message?: string }) ?? {};
      throw new CrmError(`CRM endpoint HTTP ${res.status}: ${err.error ?? err.message ?? res.text.slice(0, 200)}`, res.status);
    }
    return res;
  }

  async testConnection(): Promise<string> {
    await this.api('GET', '/deals?limit=1');
    return `Connected to ${new URL(this.base).host}`;
  }

  async pushDeal({ deal, fields }: PushInput): Promise<PushResult> {
    const body = { deal_id: deal.id, ref: deal.ref, fields: { ...deal.values, ...fields } };
    const res = await this.api('PUT', `/deals/${encodeURIComponent(deal.ref)}`, body);
    const answer = (res.json ?? {}) as { id?: string | number; created?: boolean };
    return { externalId: String(answer.id ?? deal.ref), created: answer.created ?? res.status === 201, modifiedAt: null };
  }

  async pullChanges(since: Date | null): Promise<PullResult> {
    const query = since ? `?updated_since=${encodeURIComponent(since.toISOString())}` : '';
    const res = await this.api('GET', `/deals${query}`);
    const rows = (
      (res.json as { data?: { id: string; deal_ref?: string; fields?: Record<string, unknown>; updated_at: string }[] })?.data ?? []
    ).map((r) => ({
      externalId: String(r.id),
      ref: r.deal_ref ?? null,
      fields: r.fields ?? {},
      modifiedAt: new Date(r.updated_at),
    }));
    rows.sort((a, b) => a.modifiedAt.getTime() - b.modifiedAt.getTime());
    return { records: rows, until: rows.length ? rows[rows.length - 1].modifiedAt : since };
  }

  parseWebhook(req: InboundRequest): InboundChange[] {
    const body = req.body as {
      event?: string;
      record_id?: string;
      fields?: Record<string, unknown>;
      timestamp?: string;
      deal_ref?: string;
    };
    return [
      {
        externalId: String(body.record_id),
        ref: body.deal_ref ?? null,
        event: body.event ?? 'updated',
        fields: { ...(body.fields ?? {}) },
        occurredAt: new Date(body.timestamp ?? req.now),
        echo: false,
      },
    ];
  }
}
