import { Injectable } from '@nestjs/common';
import { AuthContext } from '../../platform/auth/auth-context';
import { Clock } from '../../platform/clock/clock';
import { SecretBox } from '../../platform/crypto/secret-box';
import { Database } from '../../platform/database/database.service';
import { Scope, scopeFields } from '../../platform/database/tenant';
import { ApiError, ErrorCode, validationEntry, ValidationEntry } from '../../platform/errors/api-error';
import { OutboundHttp } from '../../platform/outbound/outbound-http';
import { createAdapter, CREDENTIAL_KEYS } from './adapters/adapter-factory';
import { CrmHttp } from './adapters/crm-http';
import { CrmError, CrmProvider } from './adapters/crm-provider';
import { ALL_CRM_PROVIDERS, CRM_PROVIDERS, CrmConfig, CrmFieldMapping, CrmLink, CrmProviderName, Direction } from './crm.entities';
import { bareCrmField, canonicalDirection, DEAL_FIELDS, DEAL_FIELD_NAMES, inbound } from './crm.fields';
import { mapConfig, mapMapping, mapMappingFormB, mapSingleConfig } from './crm.mapper';
import {
  CrmConfigDto,
  CrmConfigInputDto,
  CrmMappingListDto,
  CrmMappingSetDto,
  CrmSingleConfigInputDto,
  CrmSingleConfigResponseDto,
  CrmTestResultDto,
} from './dto/crm.dto';

export const DEFAULT_INTERVAL_MINUTES = 60;
const LOCK_NAMESPACE = 7316;

/** The Form A view of a provider with no configuration. */
function unconfigured(provider: CrmProviderName): CrmConfigDto {
  return {
    provider,
    enabled: false,
    has_credentials: false,
    sync_interval_minutes: DEFAULT_INTERVAL_MINUTES,
    last_sync_at: null,
    last_sync_status: null,
    next_sync_at: null,
  };
}

/** Provider configurations (both forms), their sealed credentials and field mappings. */
@Injectable()
export class CrmConfigService {
  constructor(
    private readonly db: Database,
    private readonly box: SecretBox,
    private readonly outbound: OutboundHttp,
    private readonly http: CrmHttp,
    private readonly clock: Clock,
  ) {}

  // ------------------------------------------------------------------ Form A

  /** A provider never configured (or deleted) reads as disabled, without credentials: 200, not 404. */
  async get(auth: AuthContext, provider: string): Promise<CrmConfigDto> {
    const name = this.formAProvider(provider);
    const config = await this.db.forScope(auth).findOne(CrmConfig, { provider: name });
    return config ? mapConfig(config) : unconfigured(name);
  }

  async put(auth: AuthContext, provider: string, dto: CrmConfigInputDto): Promise<CrmConfigDto> {
    const name = this.formAProvider(provider);
    const credentials = this.checkCredentials(name, dto.credentials, ['credentials']);
    const config = await this.save(auth, name, {
      enabled: dto.enabled ?? true,
      credentials,
      syncIntervalMinutes: dto.sync_interval_minutes ?? DEFAULT_INTERVAL_MINUTES,
      baseUrl: credentials.instance_url ?? credentials.base_url ?? null,
    });
    return mapConfig(config);
  }

  /**
   * Removes the configuration, its credentials, mappings and links; interval syncs stop (no config,
   * no job). Mappings saved before any credentials go too; with nothing at all to remove, 404.
   */
  async remove(auth: AuthContext, provider: string): Promise<{ status: 'ok'; success: true; message: string }> {
    const name = this.formAProvider(provider);
    const removed = await this.db.forScope(auth).transactional(async (tx) => {
      const mappings = await tx.nativeDelete(CrmFieldMapping, { provider: name });
      await tx.nativeDelete(CrmLink, { provider: name });
      return mappings + (await tx.nativeDelete(CrmConfig, { provider: name }));
    });
    if (!removed) throw new ApiError(ErrorCode.CRM_NOT_CONFIGURED, `No ${name} configuration in this mode`);
    return { status: 'ok', success: true, message: `CRM configuration for ${name} deleted with its credentials and field mappings` };
  }

  async test(auth: AuthContext, provider: string): Promise<CrmTestResultDto> {
    const config = await this.find(auth, this.formAProvider(provider));
    return this.probe(this.adapter(config));
  }

  // ------------------------------------------------------------------ Form B

  async getSingle(auth: AuthContext): Promise<CrmSingleConfigResponseDto> {
    return { data: mapSingleConfig(await this.findPrimary(auth)) };
  }

  /** Validated by a test call with the new credentials before anything is saved. */
  async putSingle(auth: AuthContext, dto: CrmSingleConfigInputDto): Promise<CrmSingleConfigResponseDto> {
    const provider = dto.provider as CrmProviderName;
    const raw: Record<string, unknown> =
      provider === 'salesforce'
        ? { client_id: dto.client_id, client_secret: dto.client_secret, refresh_token: dto.api_key, instance_url: dto.base_url }
        : provider === 'hubspot'
          ? { access_token: dto.api_key, base_url: dto.base_url }
          : provider === 'pipedrive'
            ? { api_token: dto.api_key, base_url: dto.base_url }
            : { api_key: dto.api_key, base_url: dto.base_url };
    const credentials = this.checkCredentials(
      provider,
      raw,
      [],
      provider === 'salesforce'
        ? { refresh_token: 'api_key', instance_url: 'base_url' }
        : { access_token: 'api_key', api_token: 'api_key', api_key: 'api_key', base_url: 'base_url' },
    );
    const result = await this.probe(createAdapter(provider, this.http, credentials));
    if (!result.success) throw new ApiError(ErrorCode.CRM_CONNECTION_FAILED, `The ${provider} connection test failed: ${result.message}`);
    const config = await this.save(auth, provider, {
      enabled: dto.enabled ?? true,
      credentials,
      syncIntervalMinutes: dto.sync_interval_minutes,
      baseUrl: dto.base_url,
      primary: true,
    });
    return { data: mapSingleConfig(config) };
  }

  // ------------------------------------------------------------------ mappings

  /** Mappings of a provider, whether or not its credentials are saved yet (none: an empty list). */
  async getMappings(auth: AuthContext, provider: string): Promise<CrmMappingSetDto> {
    const name = this.formAProvider(provider);
    return { provider: name, mappings: (await this.mappings(auth, name)).map(mapMapping) };
  }

  /** Accepted before the credentials are saved: a funder can prepare the mappings first. */
  async putMappings(auth: AuthContext, provider: string, body: unknown): Promise<CrmMappingSetDto> {
    const name = this.formAProvider(provider);
    const list = (body as { mappings?: unknown } | null)?.mappings;
    const saved = await this.replaceMappings(auth, name, list, ['mappings']);
    return { provider: name, mappings: saved.map(mapMapping) };
  }

  async getSingleMappings(auth: AuthContext): Promise<CrmMappingListDto> {
    const config = await this.findPrimary(auth);
    return { data: (await this.mappings(auth, config.provider)).map(mapMappingFormB) };
  }

  async putSingleMappings(auth: AuthContext, body: unknown): Promise<CrmMappingListDto> {
    const config = await this.findPrimary(auth);
    // Form B sends a bare array; `{mappings: [...]}` (Form A's body) is accepted too.
    const list = Array.isArray(body) ? body : (body as { mappings?: unknown } | null)?.mappings;
    const saved = await this.replaceMappings(auth, config.provider, list, Array.isArray(body) ? [] : ['mappings']);
    return { data: saved.map(mapMappingFormB) };
  }

  mappings(scope: Scope, provider: CrmProviderName): Promise<CrmFieldMapping[]> {
    return this.db.forScope(scope).find(CrmFieldMapping, { provider }, { orderBy: { position: 'asc' } });
  }

  /** Full replacement: the given list becomes the whole set (an empty list clears it). */
  private async replaceMappings(
    scope: Scope,
    provider: CrmProviderName,
    list: unknown,
    at: (string | number)[],
  ): Promise<CrmFieldMapping[]> {
    if (!Array.isArray(list)) throw ApiError.validation([validationEntry('body', at, 'mappings must be an array', 'type_error.list')]);
    if (list.length > 200) throw ApiError.validation([validationEntry('body', at, 'at most 200 mappings', 'value_error.list.max_items')]);
    const problems: ValidationEntry[] = [];
    const rows: { dealField: string; crmField: string; direction: Direction }[] = [];
    list.forEach((item: unknown, i) => {
      const m = (item ?? {}) as Record<string, unknown>;
      const loc = [...at, i];
      const dealField = m.banklyze_field;
      const crmField = m.crm_field;
      const direction = typeof m.direction === 'string' ? canonicalDirection(m.direction) : null;
      if (typeof dealField !== 'string' || !DEAL_FIELDS[dealField])
        problems.push(
          validationEntry(
            'body',
            [...loc, 'banklyze_field'],
            `banklyze_field must be one of: ${DEAL_FIELD_NAMES.join(', ')}`,
            'value_error.enum',
          ),
        );
      if (typeof crmField !== 'string' || !crmField.trim() || crmField.length > 255)
        problems.push(validationEntry('body', [...loc, 'crm_field'], 'crm_field must be a non-empty string (max 255)', 'type_error.str'));
      if (!direction)
        problems.push(
          validationEntry(
            'body',
            [...loc, 'direction'],
            'direction must be one of: to_crm, from_crm, both, banklyze_to_crm, crm_to_banklyze, bidirectional',
            'value_error.enum',
          ),
        );
      else if (typeof dealField === 'string' && DEAL_FIELDS[dealField] && inbound(direction) && !DEAL_FIELDS[dealField].writable)
        problems.push(
          validationEntry(
            'body',
            [...loc, 'direction'],
            `${dealField} is computed by the service: it can only be sent to the CRM (to_crm)`,
            'value_error.read_only',
          ),
        );
      if (direction && typeof dealField === 'string' && typeof crmField === 'string')
        rows.push({ dealField, crmField: bareCrmField(provider, crmField.trim()), direction });
    });
    if (problems.length) throw ApiError.validation(problems);
    const em = this.db.forScope(scope);
    return em.transactional(async (tx) => {
      await tx.nativeDelete(CrmFieldMapping, { provider });
      const created = rows.map((r, position) => tx.create(CrmFieldMapping, { ...scopeFields(scope), provider, position, ...r }));
      return created;
    });
  }

  // ------------------------------------------------------------------ shared

  /** The adapter of a saved configuration (credentials opened here, only for the call). */
  adapter(config: CrmConfig): CrmProvider {
    return createAdapter(config.provider, this.http, JSON.parse(this.box.open(config.credentialsSealed)) as Record<string, string>);
  }

  enabledConfigs(scope: Scope, provider?: CrmProviderName | null): Promise<CrmConfig[]> {
    return this.db.forScope(scope).find(CrmConfig, { enabled: true, ...(provider ? { provider } : {}) }, { orderBy: { id: 'asc' } });
  }

  async find(scope: Scope, provider: CrmProviderName): Promise<CrmConfig> {
    const config = await this.db.forScope(scope).findOne(CrmConfig, { provider });
    if (!config) throw new ApiError(ErrorCode.CRM_NOT_CONFIGURED, `No ${provider} configuration in this mode`);
    return config;
  }

  private async findPrimary(scope: Scope): Promise<CrmConfig> {
    const em = this.db.forScope(scope);
    const config =
      (await em.findOne(CrmConfig, { isPrimary: true })) ?? (await em.findOne(CrmConfig, {}, { orderBy: { updatedAt: 'desc' } }));
    if (!config) throw new ApiError(ErrorCode.CRM_NOT_CONFIGURED, 'No CRM configuration in this mode');
    return config;
  }

  private async probe(adapter: CrmProvider): Promise<CrmTestResultDto> {
    try {
      return { success: true, message: await adapter.testConnection() };
    } catch (err) {
      if (err instanceof CrmError) return { success: false, message: err.message };
      throw err;
    }
  }

  private formAProvider(provider: string): CrmProviderName {
    if (!(CRM_PROVIDERS as readonly string[]).includes(provider)) {
      // `custom` exists only in the single-config form; an unknown name is an unknown resource.
      throw new ApiError(
        ErrorCode.NOT_FOUND,
        (ALL_CRM_PROVIDERS as readonly string[]).includes(provider)
          ? `${provider} is configured through PUT /v1/crm/config (single configuration)`
          : `Unknown CRM provider "${provider}": one of ${CRM_PROVIDERS.join(', ')}`,
      );
    }
    return provider as CrmProviderName;
  }

  /** Credential object of a provider: required keys present, strings, URLs acceptable to the SSRF guard. */
  private checkCredentials(
    provider: CrmProviderName,
    raw: unknown,
    at: string[],
    rename: Record<string, string> = {},
  ): Record<string, string> {
    const spec = CREDENTIAL_KEYS[provider];
    const given = (raw && typeof raw === 'object' && !Array.isArray(raw) ? raw : {}) as Record<string, unknown>;
    const problems: ValidationEntry[] = [];
    const loc = (key: string) => [...at, rename[key] ?? key];
    const out: Record<string, string> = {};
    for (const key of spec.required)
      if (typeof given[key] !== 'string' || !(given[key] as string).trim())
        problems.push(validationEntry('body', loc(key), `${rename[key] ?? key} is required for ${provider}`, 'value_error.missing'));
    for (const [key, value] of Object.entries(given)) {
      if (value === undefined || value === null) continue;
      if (![...spec.required, ...spec.optional].includes(key)) {
        problems.push(
          validationEntry(
            'body',
            loc(key),
            `${key} is not a ${provider} credential (${[...spec.required, ...spec.optional].join(', ')})`,
            'value_error.extra',
          ),
        );
        continue;
      }
      if (typeof value !== 'string' || value.length > 4096) {
        problems.push(validationEntry('body', loc(key), `${key} must be a string (max 4096)`, 'type_error.str'));
        continue;
      }
      if (spec.urls.includes(key)) {
        const problem = this.outbound.urlProblem(value);
        if (problem) problems.push(validationEntry('body', loc(key), `${rename[key] ?? key} ${problem}`, 'value_error.url'));
      }
      out[key] = value;
    }
    if (problems.length) throw ApiError.validation(problems);
    return out;
  }

  private async save(
    scope: Scope,
    provider: CrmProviderName,
    input: {
      enabled: boolean;
      credentials: Record<string, string>;
      syncIntervalMinutes?: number;
      baseUrl: string | null;
      primary?: boolean;
    },
  ): Promise<CrmConfig> {
    const now = this.clock.now();
    return this.db.forScope(scope).transactional(async (tx) => {
      // Serialized per organization + mode, so two concurrent first PUTs do not both insert.
      await tx.execute('select pg_advisory_xact_lock(?, ?)', [LOCK_NAMESPACE, scope.organizationId * 2 + (scope.livemode ? 1 : 0)]);
      if (input.primary) await tx.nativeUpdate(CrmConfig, { isPrimary: true, provider: { $ne: provider } }, { isPrimary: false });
      const existing = await tx.findOne(CrmConfig, { provider });
      const interval = input.syncIntervalMinutes ?? existing?.syncIntervalMinutes ?? DEFAULT_INTERVAL_MINUTES;
      const fields = {
        enabled: input.enabled,
        credentialsSealed: this.box.seal(JSON.stringify(input.credentials)),
        syncIntervalMinutes: interval,
        baseUrl: input.baseUrl,
        nextSyncAt: new Date(now.getTime() + interval * 60_000),
        updatedAt: now,
        ...(input.primary ? { isPrimary: true } : {}),
      };
      if (existing) return Object.assign(existing, fields);
      const created = tx.create(CrmConfig, { ...scopeFields(scope), provider, connectedAt: now, createdAt: now, ...fields });
      tx.persist(created);
      return created;
    });
  }
}
