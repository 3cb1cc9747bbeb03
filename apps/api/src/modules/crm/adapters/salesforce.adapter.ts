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

export interface SalesforceCredentials {
  client_id: string;
  client_secret: string;
  refresh_token: string;
  instance_url: string;
  /** Optional: inbound notifications must name this organization (Outbound Messages carry no signature). */
  organization_id?: string;
}

const API = '/services/data/v62.0';
const EXTERNAL_ID = 'MCA_Deal_Id__c';
const STAGES = { new: 'Prospecting', review: 'Qualification', ready: 'Proposal/Price Quote', won: 'Closed Won', lost: 'Closed Lost' };

/** A Salesforce API limit is a 403 REQUEST_LIMIT_EXCEEDED, not a 429: retried like one. */
const sfRetry = (res: CrmResponse) =>
  res.status === 429 || res.status >= 500 || (res.status === 403 && /REQUEST_LIMIT_EXCEEDED/.test(res.text));

/**
 * Salesforce: OAuth refresh-token flow against the org's My Domain (`instance_url`), then the REST
 * API with the bearer token; Opportunities are upserted by the external id `MCA_Deal_Id__c`. An
 * expired session (401 INVALID_SESSION_ID) refreshes the token once and retries the call.
 */
export class SalesforceAdapter implements CrmProvider {
  readonly name = 'salesforce' as const;
  private token: { accessToken: string; instanceUrl: string } | null = null;

  constructor(
    private readonly http: CrmHttp,
    private readonly credentials: SalesforceCredentials,
  ) {}

  private async authenticate(): Promise<{ accessToken: string; instanceUrl: string }> {
    const base = this.credentials.instance_url.replace(/\/+$/, '');
    const res = await this.http.call({
      method: 'POST',
      url: `${base}/services/oauth2/token`,
      form: {
        grant_type: 'refresh_token',
        client_id: this.credentials.client_id,
        client_secret: this.credentials.client_secret,
        refresh_token: this.credentials.refresh_token,
      },
    });
    const body = (res.json ?? {}) as { access_token?: string; instance_url?: string; error?: string; error_description?: string };
    if (res.status !== 200 || !body.access_token)
      throw new CrmError(
        `Salesforce authentication failed: ${body.error ?? `HTTP ${res.status}`}${body.error_description ? ` (${body.error_description})` : ''}`,
        res.status,
        body.error ?? 'AUTH_FAILED',
      );
    this.token = { accessToken: body.access_token, instanceUrl: (body.instance_url ?? base).replace(/\/+$/, '') };
    return this.token;
  }

  private async api(method: 'GET' | 'PATCH' | 'POST', path: string, json?: unknown): Promise<CrmResponse> {
    for (let refreshed = false; ; refreshed = true) {
      const token = this.token ?? (await this.authenticate());
      const url = path.startsWith('http') ? path : `${token.instanceUrl}${path}`;
      const res = await this.http.call({ method, url, json, headers: { Authorization: `Bearer ${token.accessToken}` } }, sfRetry);
      if (res.status === 401 && !refreshed) {
        this.token = null;
        continue;
      }
      if (res.status >= 300) throw errorOf(res);
      return res;
    }
  }

  async testConnection(): Promise<string> {
    const res = await this.api('GET', `${API}/limits`);
    const daily = (res.json as { DailyApiRequests?: { Max: number; Remaining: number } })?.DailyApiRequests;
    return daily ? `Connected to Salesforce (${daily.Remaining}/${daily.Max} daily API requests left)` : 'Connected to Salesforce';
  }

  async pushDeal({ deal, fields }: PushInput): Promise<PushResult> {
    const v = deal.values;
    const body: Record<string, unknown> = {
      Name: v.business_name,
      StageName: STAGES[stageOf(v)],
      CloseDate: dateAfter(deal.createdAt, 30),
      Amount: v.funding_amount_requested,
      ...fields,
    };
    delete body.Id;
    delete body[EXTERNAL_ID];
    const res = await this.api('PATCH', `${API}/sobjects/Opportunity/${EXTERNAL_ID}/${encodeURIComponent(deal.ref)}`, body);
    const answer = (res.json ?? {}) as { id?: string; created?: boolean };
    let id = answer.id;
    if (!id) {
      // 204 (older API versions): the record existed; read its id back by the external id.
      const found = await this.api('GET', `${API}/sobjects/Opportunity/${EXTERNAL_ID}/${encodeURIComponent(deal.ref)}?fields=Id`);
      id = (found.json as { Id?: string })?.Id;
    }
    if (!id) throw new CrmError('Salesforce upsert answered without an id', res.status);
    return { externalId: id, created: res.status === 201 || answer.created === true, modifiedAt: null };
  }

  async pullChanges(since: Date | null, fields: string[]): Promise<PullResult> {
    const select = [...new Set(['Id', EXTERNAL_ID, 'SystemModstamp', ...fields])].join(',');
    const where = since ? ` WHERE SystemModstamp>${since.toISOString().replace(/\.\d{3}Z$/, 'Z')}` : '';
    const q = `SELECT ${select} FROM Opportunity${where} ORDER BY SystemModstamp`;
    const records: CrmRecord[] = [];
    let next: string | null = `${API}/query?q=${encodeURIComponent(q).replace(/%20/g, '+')}`;
    while (next) {
      const res = await this.api('GET', next);
      const page = res.json as { done: boolean; records: Record<string, unknown>[]; nextRecordsUrl?: string };
      for (const r of page.records ?? []) {
        const { attributes: _a, Id, SystemModstamp, ...rest } = r;
        records.push({
          externalId: String(Id),
          ref: typeof rest[EXTERNAL_ID] === 'string' ? (rest[EXTERNAL_ID] as string) : null,
          fields: rest,
          modifiedAt: parseSfDate(String(SystemModstamp)),
        });
      }
      next = page.done ? null : (page.nextRecordsUrl ?? null);
    }
    return { records, until: records.length ? records[records.length - 1].modifiedAt : since };
  }

  /**
   * Salesforce has no signed JSON webhooks (Outbound Messages are unsigned SOAP): the generic
   * change body is accepted, and when the configuration names the organization, the change must
   * name the same one (`OrganizationId`, as Outbound Messages carry it).
   */
  parseWebhook(req: InboundRequest): InboundChange[] {
    const body = req.body as { event?: string; record_id?: string; fields?: Record<string, unknown>; timestamp?: string };
    const fields = { ...(body.fields ?? {}) };
    if (this.credentials.organization_id) {
      const org = fields.OrganizationId ?? (body as Record<string, unknown>).organization_id;
      if (org !== this.credentials.organization_id)
        throw new CrmSignatureError('OrganizationId does not match the configured Salesforce organization');
    }
    delete fields.OrganizationId;
    return [
      {
        externalId: String(body.record_id),
        ref: typeof fields[EXTERNAL_ID] === 'string' ? (fields[EXTERNAL_ID] as string) : null,
        event: body.event ?? 'updated',
        fields,
        occurredAt: new Date(body.timestamp ?? req.now),
        echo: false,
      },
    ];
  }
}

function parseSfDate(value: string): Date {
  // 2026-11-26T09:00:00.000+0000 -> ISO with a colon in the offset
  return new Date(value.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
}

function errorOf(res: CrmResponse): CrmError {
  const first = Array.isArray(res.json) ? (res.json[0] as { message?: string; errorCode?: string; fields?: string[] }) : null;
  if (first?.errorCode)
    return new CrmError(
      `Salesforce ${first.errorCode}: ${first.message ?? ''}`.trim(),
      res.status,
      first.errorCode,
      first.fields?.[0] ?? null,
    );
  return new CrmError(`Salesforce answered HTTP ${res.status}`, res.status);
}
