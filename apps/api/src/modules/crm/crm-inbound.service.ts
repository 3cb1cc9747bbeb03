import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../platform/config/config';
import { AuthContext } from '../../platform/auth/auth-context';
import { Clock } from '../../platform/clock/clock';
import { ApiError, ErrorCode, validationEntry, ValidationEntry } from '../../platform/errors/api-error';
import { CrmSignatureError, InboundRequest } from './adapters/crm-provider';
import { CrmConfigService } from './crm-config.service';
import { ALL_CRM_PROVIDERS, CrmProviderName } from './crm.entities';
import { inbound } from './crm.fields';
import { CrmSyncService } from './crm-sync.service';
import { CrmWebhookResponseDto } from './dto/crm.dto';

export type InboundInput = Omit<InboundRequest, 'now'> & { query: Record<string, string | undefined> };

/**
 * POST /crm/webhooks: a change made in a CRM. The provider is named in the body (generic form)
 * or recognised from its native payload (HubSpot event array, Pipedrive v2 `{meta, data}`);
 * its adapter checks the signature where the provider signs and lists the changes; mapped
 * inbound fields are applied to the linked deal (last write wins), then a partial sync pushes
 * the deal to the other enabled providers.
 */
@Injectable()
export class CrmInboundService {
  constructor(
    private readonly configs: CrmConfigService,
    private readonly sync: CrmSyncService,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async receive(auth: AuthContext, input: InboundInput): Promise<CrmWebhookResponseDto> {
    const provider = this.providerOf(input);
    const config = await this.configs.find(auth, provider);
    let changes;
    try {
      // Providers sign the full URL they called: the public URL of this server plus the path.
      changes = this.configs.adapter(config).parseWebhook({ ...input, uri: `${this.config.publicUrl}${input.uri}`, now: this.clock.now() });
    } catch (err) {
      if (err instanceof CrmSignatureError) throw new ApiError(ErrorCode.CRM_SIGNATURE_INVALID, `Webhook rejected: ${err.message}`);
      throw err;
    }
    const maps = (await this.configs.mappings(auth, provider)).filter((m) => inbound(m.direction));
    let dealId: number | null = null;
    let action: 'updated' | 'skipped' | 'ignored' = 'ignored';
    const fields = new Set<string>();
    for (const change of changes) {
      if (change.echo) {
        if (action === 'ignored') action = 'skipped';
        continue;
      }
      const outcome = await this.sync.applyRemote(
        auth,
        provider,
        maps,
        { externalId: change.externalId, ref: change.ref, fields: change.fields, modifiedAt: change.occurredAt },
        null,
      );
      if (outcome.action === 'error')
        throw ApiError.validation([
          validationEntry('body', ['fields', outcome.field ?? ''], outcome.error ?? 'invalid value', 'value_error'),
        ]);
      dealId ??= outcome.dealId;
      outcome.fields.forEach((f) => fields.add(f));
      if (outcome.action === 'updated') action = 'updated';
      else if (outcome.action === 'skipped' && action === 'ignored') action = 'skipped';
    }
    let syncId: number | null = null;
    if (action === 'updated' && dealId !== null) {
      const run = await this.sync.startRun(auth, { trigger: 'webhook', dealId, direction: 'to_crm', exclude: provider });
      syncId = run.sync_id;
    }
    return { data: { received: true, deal_id: dealId, action, fields_mapped: [...fields], sync_id: syncId } };
  }

  private providerOf(input: InboundInput): CrmProviderName {
    const body = input.body as Record<string, unknown> | unknown[] | null | undefined;
    const named = input.query.provider ?? (body && !Array.isArray(body) ? (body.provider as string | undefined) : undefined);
    if (named !== undefined) {
      if (!(ALL_CRM_PROVIDERS as readonly string[]).includes(named))
        throw ApiError.validation([
          validationEntry('body', ['provider'], `provider must be one of: ${ALL_CRM_PROVIDERS.join(', ')}`, 'value_error.enum'),
        ]);
      if (body && !Array.isArray(body) && body.provider !== undefined) this.checkGeneric(body);
      return named as CrmProviderName;
    }
    if (Array.isArray(body) && input.headers['x-hubspot-signature-v3']) return 'hubspot';
    if (body && !Array.isArray(body) && body.meta && body.data) return 'pipedrive';
    this.checkGeneric((body ?? {}) as Record<string, unknown>);
    throw ApiError.validation([validationEntry('body', ['provider'], 'provider is required', 'value_error.missing')]);
  }

  /** The generic body: `{provider, event, record_id, fields, timestamp}`, all required. */
  private checkGeneric(body: Record<string, unknown>): void {
    const problems: ValidationEntry[] = [];
    const need = (key: string, ok: boolean, msg: string) => {
      if (!ok) problems.push(validationEntry('body', [key], msg, body[key] === undefined ? 'value_error.missing' : 'type_error'));
    };
    need('provider', typeof body.provider === 'string', 'provider is required');
    need('event', typeof body.event === 'string' && body.event.length > 0 && body.event.length <= 100, 'event must be a string');
    need(
      'record_id',
      (typeof body.record_id === 'string' && body.record_id.length > 0) || typeof body.record_id === 'number',
      'record_id must be a string',
    );
    need('fields', !!body.fields && typeof body.fields === 'object' && !Array.isArray(body.fields), 'fields must be an object');
    need(
      'timestamp',
      typeof body.timestamp === 'string' && !Number.isNaN(Date.parse(body.timestamp)),
      'timestamp must be an ISO 8601 date-time',
    );
    if (problems.length) throw ApiError.validation(problems);
  }
}
