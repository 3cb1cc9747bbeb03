import { createHmac, timingSafeEqual } from 'node:crypto';
import { CrmHttp, CrmResponse } from './crm-http';
import {
  CrmError,
  CrmProvider,
  CrmRecord,
  CrmSignatureError,
  dateAfter,
  InboundChange,
  InboundRequest,
  PullResult,
  PushInput,
  PushResult,
  stageOf,
} from './crm-provider';

export interface HubspotCredentials {
  access_token: string;
  /** The app's client secret: when set, inbound webhooks must carry a valid v3 signature. */
  client_secret?: string;
  /** API base (default https://api.hubapi.com). */
  base_url?: string;
}

export const HUBSPOT_API = 'https://api.hubapi.com';
const EXTERNAL_ID = 'mca_deal_id';
const STAGES = {
  new: 'appointmentscheduled',
  review: 'qualifiedtobuy',
  ready: 'presentationscheduled',
  won: 'closedwon',
  lost: 'closedlost',
};
/** Signed requests older than this are refused (HubSpot's documented window). */
const MAX_SIGNATURE_AGE_MS = 5 * 60_000;

/**
 * HubSpot: private app token as bearer, CRM v3 deals; a deal is upserted by the unique property
 * `mca_deal_id` (batch upsert), changes are pulled with the search API on `hs_lastmodifieddate`.
 */
export class HubspotAdapter implements CrmProvider {
  readonly name = 'hubspot' as const;
  private readonly base: string;

  constructor(
    private readonly http: CrmHttp,
    private readonly credentials: HubspotCredentials,
  ) {
    this.base = (credentials.base_url ?? HUBSPOT_API).replace(/\/+$/, '');
  }

  private async api(method: 'GET' | 'POST' | 'PATCH', path: string, json?: unknown): Promise<CrmResponse> {
    const res = await this.http.call({
      method,
      url: `${this.base}${path}`,
      json,
      headers: { Authorization: `Bearer ${this.credentials.access_token}` },
    });
    if (res.status >= 300) throw errorOf(res);
    return res;
  }

  async testConnection(): Promise<string> {
    await this.api('GET', '/crm/v3/objects/deals?limit=1');
    return 'Connected to HubSpot (deals readable with this token)';
  }

  async pushDeal({ deal, fields }: PushInput): Promise<PushResult> {
    const v = deal.values;
    const properties: Record<string, unknown> = {
      dealname: v.business_name,
      amount: v.funding_amount_requested === null || v.funding_amount_requested === undefined ? null : String(v.funding_amount_requested),
      pipeline: 'default',
      dealstage: STAGES[stageOf(v)],
      closedate: dateAfter(deal.createdAt, 30),
      ...Object.fromEntries(Object.entries(fields).map(([k, val]) => [k, val === null || val === undefined ? null : String(val)])),
    };
    delete properties[EXTERNAL_ID];
    const res = await this.api('POST', '/crm/v3/objects/deals/batch/upsert', {
      inputs: [{ id: deal.ref, idProperty: EXTERNAL_ID, properties }],
    });
    const result = (res.json as { results?: { id: string; new?: boolean; updatedAt?: string }[] })?.results?.[0];
    if (!result?.id) throw new CrmError('HubSpot upsert answered without a result', res.status);
    return { externalId: result.id, created: result.new === true, modifiedAt: result.updatedAt ? new Date(result.updatedAt) : null };
  }

  async pullChanges(since: Date | null, fields: string[]): Promise<PullResult> {
    const records: CrmRecord[] = [];
    let after: string | undefined = '0';
    const properties = [...new Set([EXTERNAL_ID, 'hs_lastmodifieddate', ...fields])];
    while (after !== undefined) {
      const res = await this.api('POST', '/crm/v3/objects/deals/search', {
        filterGroups: since ? [{ filters: [{ propertyName: 'hs_lastmodifieddate', operator: 'GT', value: String(since.getTime()) }] }] : [],
        sorts: [{ propertyName: 'hs_lastmodifieddate', direction: 'ASCENDING' }],
        properties,
        limit: 100,
        after,
      });
      const page = res.json as {
        results: { id: string; properties: Record<string, unknown>; updatedAt: string }[];
        paging?: { next?: { after: string } };
      };
      for (const r of page.results ?? []) {
        const { hs_lastmodifieddate, hs_object_id: _id, ...rest } = r.properties;
        records.push({
          externalId: r.id,
          ref: typeof rest[EXTERNAL_ID] === 'string' ? (rest[EXTERNAL_ID] as string) : null,
          fields: rest,
          modifiedAt: new Date(String(hs_lastmodifieddate ?? r.updatedAt)),
        });
      }
      after = page.paging?.next?.after;
    }
    return { records, until: records.length ? records[records.length - 1].modifiedAt : since };
  }

  /**
   * HubSpot signs webhooks (v3): base64 HMAC-SHA256 of method + URI + raw body + timestamp with the
   * app's client secret, timestamp no older than 5 minutes. Native bodies are arrays of
   * `deal.propertyChange` events; the generic change body is accepted too.
   */
  parseWebhook(req: InboundRequest): InboundChange[] {
    if (this.credentials.client_secret) this.verify(req);
    if (Array.isArray(req.body)) {
      return (
        req.body as {
          objectId: number | string;
          propertyName?: string;
          propertyValue?: unknown;
          occurredAt?: number;
          subscriptionType?: string;
          changeSource?: string;
        }[]
      )
        .filter((e) => e && e.objectId !== undefined)
        .map((e) => ({
          externalId: String(e.objectId),
          ref: e.propertyName === EXTERNAL_ID ? String(e.propertyValue) : null,
          event: e.subscriptionType ?? 'deal.propertyChange',
          fields: e.propertyName ? { [e.propertyName]: e.propertyValue } : {},
          occurredAt: new Date(e.occurredAt ?? req.now.getTime()),
          // Our own writes come back as INTEGRATION changes: applying them again would loop.
          echo: e.changeSource === 'INTEGRATION' || e.changeSource === 'API',
        }));
    }
    const body = req.body as { event?: string; record_id?: string; fields?: Record<string, unknown>; timestamp?: string };
    return [
      {
        externalId: String(body.record_id),
        ref: typeof body.fields?.[EXTERNAL_ID] === 'string' ? (body.fields[EXTERNAL_ID] as string) : null,
        event: body.event ?? 'deal.propertyChange',
        fields: { ...(body.fields ?? {}) },
        occurredAt: new Date(body.timestamp ?? req.now),
        echo: false,
      },
    ];
  }

  private verify(req: InboundRequest): void {
    const header = (name: string) => {
      const v = req.headers[name];
      return Array.isArray(v) ? v[0] : v;
    };
    const signature = header('x-hubspot-signature-v3');
    const timestamp = header('x-hubspot-request-timestamp');
    if (!signature || !timestamp) throw new CrmSignatureError('X-HubSpot-Signature-v3 and X-HubSpot-Request-Timestamp are required');
    const age = req.now.getTime() - Number(timestamp);
    if (!Number.isFinite(age) || Math.abs(age) > MAX_SIGNATURE_AGE_MS)
      throw new CrmSignatureError('X-HubSpot-Request-Timestamp is older than 5 minutes');
    const expected = createHmac('sha256', this.credentials.client_secret!)
      .update(`${req.method}${req.uri}${req.rawBody}${timestamp}`, 'utf8')
      .digest();
    const given = Buffer.from(signature, 'base64');
    if (given.length !== expected.length || !timingSafeEqual(given, expected))
      throw new CrmSignatureError('X-HubSpot-Signature-v3 does not match');
  }
}

function errorOf(res: CrmResponse): CrmError {
  const body = (res.json ?? {}) as { message?: string; category?: string; errorType?: string; errors?: { in?: string; code?: string }[] };
  const code = body.errorType ?? body.category ?? null;
  return new CrmError(
    `HubSpot ${code ?? `HTTP ${res.status}`}: ${body.message ?? res.text.slice(0, 200)}`,
    res.status,
    code,
    body.errors?.[0]?.in ?? null,
  );
}
