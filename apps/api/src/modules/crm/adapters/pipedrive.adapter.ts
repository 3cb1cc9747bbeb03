import { CrmHttp, CrmResponse } from './crm-http';
import {
  CrmError,
  CrmProvider,
  CrmRecord,
  dateAfter,
  InboundChange,
  InboundRequest,
  PullResult,
  PushInput,
  PushResult,
  stageOf,
} from './crm-provider';

export interface PipedriveCredentials {
  api_token: string;
  /** API base: `https://<companydomain>.pipedrive.com` (default https://api.pipedrive.com). */
  base_url?: string;
  /** Key (40-char hash) of the deal custom field holding our deal reference, if the account has one. */
  deal_ref_field?: string;
}

export const PIPEDRIVE_API = 'https://api.pipedrive.com';
const STATUS = { new: 'open', review: 'open', ready: 'open', won: 'won', lost: 'lost' };
/** Fields a v2 deal body may carry at its top level; anything else is a custom field key. */
const TOP_LEVEL = new Set([
  'title',
  'value',
  'currency',
  'status',
  'expected_close_date',
  'org_id',
  'pipeline_id',
  'stage_id',
  'person_id',
]);

/**
 * Pipedrive API v2 (v1 deal CRUD is out of support): `x-api-token` header, strict types, no
 * upsert, so the linked deal id is PATCHed, and a deal is created when there is none (or it was
 * deleted in Pipedrive). Changes are pulled with `updated_since`, following `next_cursor`.
 */
export class PipedriveAdapter implements CrmProvider {
  readonly name = 'pipedrive' as const;
  private readonly base: string;

  constructor(
    private readonly http: CrmHttp,
    private readonly credentials: PipedriveCredentials,
  ) {
    this.base = (credentials.base_url ?? PIPEDRIVE_API).replace(/\/+$/, '');
  }

  private async api(method: 'GET' | 'POST' | 'PATCH', path: string, json?: unknown): Promise<CrmResponse> {
    return this.http.call({ method, url: `${this.base}${path}`, json, headers: { 'x-api-token': this.credentials.api_token } });
  }

  private ok(res: CrmResponse): CrmResponse {
    if (res.status >= 300 || (res.json as { success?: boolean })?.success === false) throw errorOf(res);
    return res;
  }

  async testConnection(): Promise<string> {
    const res = this.ok(await this.api('GET', '/v1/users/me'));
    const me = (res.json as { data?: { name?: string; company_domain?: string } })?.data;
    return `Connected to Pipedrive${me?.company_domain ? ` (${me.company_domain})` : ''}`;
  }

  async pushDeal({ deal, externalId, fields }: PushInput): Promise<PushResult> {
    const v = deal.values;
    const body: Record<string, unknown> = {
      title: v.business_name,
      value: v.funding_amount_requested ?? null,
      currency: 'USD',
      status: STATUS[stageOf(v)],
      expected_close_date: dateAfter(deal.createdAt, 30),
    };
    const custom: Record<string, unknown> = {};
    if (this.credentials.deal_ref_field) custom[this.credentials.deal_ref_field] = deal.ref;
    for (const [key, value] of Object.entries(fields)) {
      if (TOP_LEVEL.has(key)) body[key] = key === 'value' && value !== null ? Number(value) : value;
      else custom[key] = value;
    }
    if (Object.keys(custom).length) body.custom_fields = custom;
    if (externalId) {
      const res = await this.api('PATCH', `/api/v2/deals/${encodeURIComponent(externalId)}`, body);
      // Deleted in Pipedrive (404/410): create it again below.
      if (res.status !== 404 && res.status !== 410) {
        const data = (this.ok(res).json as { data: { id: number; update_time?: string } }).data;
        return { externalId: String(data.id), created: false, modifiedAt: data.update_time ? new Date(data.update_time) : null };
      }
    }
    const res = this.ok(await this.api('POST', '/api/v2/deals', body));
    const data = (res.json as { data: { id: number; update_time?: string } }).data;
    return { externalId: String(data.id), created: true, modifiedAt: data.update_time ? new Date(data.update_time) : null };
  }

  async pullChanges(since: Date | null, fields: string[]): Promise<PullResult> {
    const records: CrmRecord[] = [];
    let cursor: string | null = null;
    do {
      const query = new URLSearchParams({ sort_by: 'update_time', sort_direction: 'asc', limit: '500' });
      if (since) query.set('updated_since', since.toISOString().replace(/\.\d{3}Z$/, 'Z'));
      if (cursor) query.set('cursor', cursor);
      const res = this.ok(await this.api('GET', `/api/v2/deals?${query.toString()}`));
      const page = res.json as { data: Record<string, unknown>[]; additional_data?: { next_cursor?: string | null } };
      for (const d of page.data ?? []) {
        const custom = (d.custom_fields ?? {}) as Record<string, unknown>;
        const flat: Record<string, unknown> = {};
        for (const f of fields) flat[f] = f in d ? d[f] : custom[f];
        const ref = this.credentials.deal_ref_field ? custom[this.credentials.deal_ref_field] : null;
        records.push({
          externalId: String(d.id),
          ref: typeof ref === 'string' ? ref : null,
          fields: flat,
          modifiedAt: new Date(String(d.update_time)),
        });
      }
      cursor = page.additional_data?.next_cursor ?? null;
    } while (cursor);
    return { records, until: records.length ? records[records.length - 1].modifiedAt : since };
  }

  /**
   * Pipedrive webhooks carry no signature (optional HTTP Basic only): the caller's API key is the
   * authentication. v2 bodies `{meta, data, previous}` and the generic change body are accepted;
   * changes made through the API (`change_source: api`) are our own writes coming back.
   */
  parseWebhook(req: InboundRequest): InboundChange[] {
    const body = req.body as Record<string, any>;
    if (body && body.meta && body.data) {
      const data = body.data as Record<string, unknown>;
      const custom = (data.custom_fields ?? {}) as Record<string, unknown>;
      const changedKeys = body.previous ? Object.keys(body.previous as object) : Object.keys(data);
      const fields: Record<string, unknown> = {};
      for (const key of changedKeys) fields[key] = key in data ? data[key] : custom[key];
      if (body.previous?.custom_fields) for (const key of Object.keys(body.previous.custom_fields as object)) fields[key] = custom[key];
      delete fields.custom_fields;
      const ref = this.credentials.deal_ref_field ? custom[this.credentials.deal_ref_field] : null;
      return [
        {
          externalId: String(data.id ?? body.meta.entity_id),
          ref: typeof ref === 'string' ? ref : null,
          event: `deal.${String(body.meta.action ?? 'change')}`,
          fields,
          occurredAt: data.update_time ? new Date(String(data.update_time)) : new Date(Number(body.meta.timestamp) * 1000),
          echo: body.meta.change_source === 'api',
        },
      ];
    }
    return [
      {
        externalId: String(body.record_id),
        ref: null,
        event: String(body.event ?? 'deal.change'),
        fields: { ...(body.fields ?? {}) },
        occurredAt: new Date(body.timestamp ?? req.now),
        echo: false,
      },
    ];
  }
}

function errorOf(res: CrmResponse): CrmError {
  const body = (res.json ?? {}) as { error?: string; errorCode?: number | string };
  return new CrmError(
    `Pipedrive HTTP ${res.status}: ${body.error ?? res.text.slice(0, 200)}`,
    res.status,
    body.errorCode ? String(body.errorCode) : null,
  );
}
