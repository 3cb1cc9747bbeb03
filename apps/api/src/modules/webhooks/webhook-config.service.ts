import { Injectable } from '@nestjs/common';
import { AuthContext } from '../../platform/auth/auth-context';
import { Clock } from '../../platform/clock/clock';
import { SecretBox } from '../../platform/crypto/secret-box';
import { Database } from '../../platform/database/database.service';
import { scopeFields } from '../../platform/database/tenant';
import { ApiError, validationEntry } from '../../platform/errors/api-error';
import { OutboundHttp } from '../../platform/outbound/outbound-http';
import { validateDto } from '../../platform/validation/validation.pipe';
import { WebhookConfig, WebhookDelivery } from './webhooks.entities';
import { WebhookConfigDto, WebhookConfigInputDto } from './dto/webhook.dto';
import { mapConfig } from './webhooks.mapper';

/** The endpoint of an organization + mode: create/replace, read (never the secret), delete. */
@Injectable()
export class WebhookConfigService {
  constructor(
    private readonly db: Database,
    private readonly box: SecretBox,
    private readonly outbound: OutboundHttp,
    private readonly clock: Clock,
  ) {}

  async get(auth: AuthContext): Promise<{ data: WebhookConfigDto }> {
    return { data: mapConfig(await this.find(auth)) };
  }

  async put(auth: AuthContext, body: unknown): Promise<{ data: WebhookConfigDto }> {
    const dto = await this.validated(body);
    const em = this.db.forScope(auth);
    const now = this.clock.now();
    const fields = {
      url: dto.url,
      secretSealed: this.box.seal(dto.secret),
      events: [...new Set(dto.events)],
      enabled: dto.enabled ?? dto.active ?? true,
      updatedAt: now,
    };
    const config = await em.transactional(async (tx) => {
      // Serialized per organization + mode, so two concurrent first PUTs do not both insert.
      await tx.execute('select pg_advisory_xact_lock(?, ?)', [7313, auth.organizationId * 2 + (auth.livemode ? 1 : 0)]);
      const existing = await tx.findOne(WebhookConfig, {});
      if (existing) return Object.assign(existing, fields);
      const created = tx.create(WebhookConfig, { ...scopeFields(auth), ...fields, createdAt: now });
      tx.persist(created);
      return created;
    });
    return { data: mapConfig(config) };
  }

  /** Deletes the endpoint; pending deliveries stop (failed, with the reason). */
  async remove(auth: AuthContext): Promise<{ status: 'ok'; success: true; message: string }> {
    const em = this.db.forScope(auth);
    const config = await this.find(auth);
    await em.transactional(async (tx) => {
      await tx.nativeDelete(WebhookConfig, { id: config.id });
      await tx.nativeUpdate(
        WebhookDelivery,
        { ...scopeFields(auth), status: 'pending', targetUrl: null },
        { status: 'failed', nextAttemptAt: null, lastError: 'webhook configuration deleted', updatedAt: this.clock.now() },
      );
    });
    return { status: 'ok', success: true, message: 'Webhook configuration deleted; pending deliveries were stopped' };
  }

  /**
   * The DTO's rules, the URL policy (no connection is made: an IP literal is judged as written, a
   * name later, at each delivery) and the enabled/active agreement, all reported in one 422.
   */
  private async validated(body: unknown): Promise<WebhookConfigInputDto> {
    if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body))
      throw ApiError.validation([validationEntry('body', [], 'Request body must be a JSON object', 'type_error.object')]);
    const { instance: dto, problems } = await validateDto(WebhookConfigInputDto, body, 'body');
    const urlProblem = typeof dto.url === 'string' && !problems.some((p) => p.field === 'url') ? this.outbound.urlProblem(dto.url) : null;
    if (urlProblem) problems.unshift(validationEntry('body', ['url'], `url ${urlProblem}`, 'value_error.url.scheme'));
    if (typeof dto.enabled === 'boolean' && typeof dto.active === 'boolean' && dto.enabled !== dto.active)
      problems.push(
        validationEntry(
          'body',
          ['active'],
          'enabled and active name the same setting: send one, or the same value',
          'value_error.conflict',
        ),
      );
    if (problems.length) throw ApiError.validation(problems);
    return dto;
  }

  private async find(auth: AuthContext): Promise<WebhookConfig> {
    const config = await this.db.forScope(auth).findOne(WebhookConfig, {});
    if (!config) throw ApiError.notFound('Webhook configuration');
    return config;
  }
}
