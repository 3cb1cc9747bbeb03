import { EntityManager } from '@mikro-orm/core';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../platform/config/config';
import { Database } from '../../platform/database/database.service';
import { ApiError, validationEntry } from '../../platform/errors/api-error';
import { AuthContext, hasScope, RequiredScope } from '../../platform/auth/auth-context';
import { CredentialCache } from '../../platform/auth/credential-cache';
import { recordEvent } from '../../platform/events/events';
import { EventDispatcher } from '../../platform/events/event-dispatcher';
import { Page, paginate, pageWindow } from '../../platform/pagination/pagination';
import { randomToken, sha256 } from '../../platform/crypto/credentials';
import { ApiKey } from './keys.entities';
import { CreatedKeyDto, CreateKeyDto, KeyDto } from './dto/key.dto';

export interface IssueKeyParams {
  organizationId: number;
  userId: number | null;
  name: string;
  livemode: boolean;
  scopes: string[];
  expiresAt?: Date | null;
}

export function mapKey(key: ApiKey): KeyDto {
  return {
    id: key.id,
    name: key.name,
    label: key.name,
    key_prefix: key.keyPrefix,
    prefix: key.keyPrefix,
    key_masked: `${key.keyPrefix}...${key.last4}`,
    mode: key.livemode ? 'live' : 'test',
    scopes: key.scopes,
    last_used_at: key.lastUsedAt?.toISOString() ?? null,
    expires_at: key.expiresAt?.toISOString() ?? null,
    created_at: key.createdAt.toISOString(),
  };
}

/**
 * Which keys a credential manages: a live credential those of both modes (it may create test keys),
 * a test credential test keys only, exactly as it may create them. Another mode's key is 404.
 */
function visibleModes(auth: AuthContext): { livemode?: boolean } {
  return auth.livemode ? {} : { livemode: false };
}

@Injectable()
export class KeysService {
  constructor(
    private readonly db: Database,
    private readonly events: EventDispatcher,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly credentials: CredentialCache,
  ) {}

  /** Generates `<prefix>live_<secret>` / `<prefix>test_<secret>`; only its hash is kept. */
  generate(livemode: boolean): { plaintext: string; hash: string; keyPrefix: string; last4: string } {
    const plaintext = `${this.config.apiKeyPrefix}${livemode ? 'live' : 'test'}_${randomToken(24)}`;
    return { plaintext, hash: sha256(plaintext), keyPrefix: plaintext.slice(0, 12), last4: plaintext.slice(-4) };
  }

  /** Creates a key in the caller's unit of work (used by the API, the CLI and the demo bootstrap). */
  issue(em: EntityManager, params: IssueKeyParams): { key: ApiKey; plaintext: string } {
    const generated = this.generate(params.livemode);
    const key = em.create(ApiKey, {
      organizationId: params.organizationId,
      userId: params.userId,
      name: params.name,
      livemode: params.livemode,
      keyHash: generated.hash,
      keyPrefix: generated.keyPrefix,
      last4: generated.last4,
      scopes: params.scopes,
      expiresAt: params.expiresAt ?? null,
    });
    return { key, plaintext: generated.plaintext };
  }

  async create(auth: AuthContext, dto: CreateKeyDto): Promise<CreatedKeyDto> {
    const name = dto.name ?? dto.label;
    if (!name) throw ApiError.validation([validationEntry('body', ['name'], 'name (or label) is required', 'value_error.missing')]);
    const scopes = [...new Set(dto.scopes ?? ['read', 'write'])];
    if (scopes.length === 0)
      throw ApiError.validation([validationEntry('body', ['scopes'], 'scopes must not be empty', 'value_error.list.min_items')]);
    this.assertGrantable(auth, scopes);
    const livemode = dto.mode ? dto.mode === 'live' : auth.livemode;
    if (livemode && !auth.livemode) throw ApiError.forbidden('A test-mode credential can create test keys only');
    const expiresAt = dto.expires_at ? new Date(dto.expires_at) : null;
    if (expiresAt && expiresAt.getTime() <= Date.now()) {
      throw ApiError.validation([validationEntry('body', ['expires_at'], 'expires_at must be in the future', 'value_error.datetime.past')]);
    }
    const em = this.db.forScope(auth);
    const { key, plaintext } = await em.transactional(async (tx) => {
      const issued = this.issue(tx, { organizationId: auth.organizationId, userId: auth.userId, name, livemode, scopes, expiresAt });
      await tx.flush();
      recordEvent(tx, auth, 'key.created', { actor: auth.actor, data: { key_id: issued.key.id } });
      return issued;
    });
    this.events.notify();
    return { ...mapKey(key), key: plaintext, message: 'Store this key now: it will not be shown again.' };
  }

  async list(auth: AuthContext, query: { page?: number; per_page?: number }): Promise<Page<KeyDto>> {
    const em = this.db.forScope(auth);
    const window = pageWindow(query);
    const where = { revokedAt: null, ...visibleModes(auth) };
    return paginate(
      window,
      () => em.count(ApiKey, where),
      async (offset, limit) => (await em.find(ApiKey, where, { orderBy: { id: 'asc' }, offset, limit })).map(mapKey),
    );
  }

  async revoke(auth: AuthContext, id: number): Promise<{ status: 'ok'; success: true; message: string; id: number }> {
    const em = this.db.forScope(auth);
    const key = await this.find(em, auth, id);
    if (auth.credential.type === 'api_key' && auth.credential.id === key.id) {
      throw ApiError.conflict('A key cannot revoke itself: use another credential to revoke this key');
    }
    await em.transactional(async (tx) => {
      key.revokedAt = new Date();
      recordEvent(tx, auth, 'key.revoked', { actor: auth.actor, data: { key_id: key.id } });
    });
    this.credentials.forget('api_key', key.id);
    this.events.notify();
    return { status: 'ok', success: true, message: 'API key revoked', id: key.id };
  }

  async rotate(auth: AuthContext, id: number): Promise<CreatedKeyDto> {
    const em = this.db.forScope(auth);
    const key = await this.find(em, auth, id);
    // Rotating hands the caller the key's new secret, so it is the same as creating that key.
    this.assertGrantable(auth, key.scopes);
    const generated = this.generate(key.livemode);
    await em.transactional(async (tx) => {
      Object.assign(key, { keyHash: generated.hash, keyPrefix: generated.keyPrefix, last4: generated.last4, lastUsedAt: null });
      recordEvent(tx, auth, 'key.rotated', { actor: auth.actor, data: { key_id: key.id } });
    });
    this.credentials.forget('api_key', key.id);
    this.events.notify();
    return { ...mapKey(key), key: generated.plaintext, message: 'Key rotated: the previous value no longer works. Store this key now.' };
  }

  private async find(em: EntityManager, auth: AuthContext, id: number): Promise<ApiKey> {
    const key = await em.findOne(ApiKey, { id, revokedAt: null, ...visibleModes(auth) });
    if (!key) throw ApiError.notFound('API key');
    return key;
  }

  /** A credential cannot mint a key with more power than it has. */
  private assertGrantable(auth: AuthContext, scopes: string[]): void {
    for (const scope of scopes) {
      const ok = scope === 'read' || scope === 'write' ? auth.scopes.includes(scope) : hasScope(auth, scope as RequiredScope);
      if (!ok) throw ApiError.forbidden(`You cannot grant or take over the scope ${scope}: your credential does not hold it`);
    }
  }
}
