import { QueryOrder, UniqueConstraintViolationException } from '@mikro-orm/core';
import { EntityManager } from '@mikro-orm/postgresql';
import { Injectable } from '@nestjs/common';
import {
  AFFORDABILITY_FIELDS,
  DEFAULT_RULESET,
  validateFactorRuleset,
  validateFlatRuleset,
  type RulesetValidationResult,
} from '@ledgerlens/underwriting';
import { AuthContext } from '../../platform/auth/auth-context';
import { Database } from '../../platform/database/database.service';
import { Scope, scopeFields } from '../../platform/database/tenant';
import { entityManagerOf, UnitOfWork } from '../../platform/database/unit-of-work';
import { ApiError, ErrorCode, validationEntry, ValidationEntry } from '../../platform/errors/api-error';
import { EventDispatcher } from '../../platform/events/event-dispatcher';
import { recordEvent } from '../../platform/events/events';
import { Page, paginate, pageWindow } from '../../platform/pagination/pagination';
import { AckDto } from '../../platform/http/ack.dto';
import { Clock } from './clock';
import { CreateRulesetDto, RulesetDto, UpdateRulesetDto } from './dto/ruleset.dto';
import { FACTOR_FIELDS, FLAT_FIELDS, mapRuleset } from './rulesets.mapper';
import { Ruleset, RulesetKind } from './rulesets.entities';
import { PageQueryDto } from '../../platform/pagination/pagination';

/** Namespace of the per organization + mode advisory lock that serializes default changes. */
const DEFAULT_LOCK_NAMESPACE = 0x52554c45;

interface RulesetInput {
  name: string;
  description: string | null;
  kind: RulesetKind;
  definition: Record<string, unknown>;
}

const present = (body: object, field: string) => (body as Record<string, unknown>)[field] !== undefined;

@Injectable()
export class RulesetsService {
  constructor(
    private readonly db: Database,
    private readonly events: EventDispatcher,
    private readonly clock: Clock,
  ) {}

  async list(auth: AuthContext, query: PageQueryDto): Promise<Page<RulesetDto>> {
    const em = this.db.forScope(auth);
    await this.ensureDefault(em, auth);
    return paginate(
      pageWindow(query),
      () => em.count(Ruleset, {}),
      async (offset, limit) =>
        (await em.find(Ruleset, {}, { orderBy: [{ createdAt: QueryOrder.ASC }, { id: QueryOrder.ASC }], offset, limit })).map(mapRuleset),
    );
  }

  async get(auth: AuthContext, id: number): Promise<RulesetDto> {
    const em = this.db.forScope(auth);
    await this.ensureDefault(em, auth);
    return mapRuleset(await this.find(em, auth, id));
  }

  async create(auth: AuthContext, body: CreateRulesetDto): Promise<RulesetDto> {
    const input = parseRuleset(body);
    const em = this.db.forScope(auth);
    await this.ensureDefault(em, auth);
    const ruleset = await this.unique(input.name, () =>
      em.transactional(async (tx) => {
        const now = this.clock.now();
        const created = tx.create(Ruleset, { ...scopeFields(auth), ...input, createdAt: now, updatedAt: now });
        await tx.flush();
        recordEvent(tx, auth, 'ruleset.created', {
          actor: auth.actor,
          data: { ruleset_id: created.id, name: created.name, kind: created.kind },
        });
        return created;
      }),
    );
    this.events.notify();
    return mapRuleset(ruleset);
  }

  /** PUT: full replacement (either form); the default flag is kept. */
  async replace(auth: AuthContext, id: number, body: CreateRulesetDto): Promise<RulesetDto> {
    const em = this.db.forScope(auth);
    const ruleset = await this.find(em, auth, id);
    return this.save(em, auth, ruleset, parseRuleset(body));
  }

  /** PATCH: the fields sent are merged into the ruleset and the result validated as a whole. */
  async update(auth: AuthContext, id: number, body: UpdateRulesetDto): Promise<RulesetDto> {
    const em = this.db.forScope(auth);
    const ruleset = await this.find(em, auth, id);
    const flatSent = FLAT_FIELDS.filter((f) => present(body, f));
    const factorSent = FACTOR_FIELDS.filter((f) => present(body, f));
    if (flatSent.length && factorSent.length) throw mixedKinds(flatSent, factorSent);
    const kind: RulesetKind = factorSent.length ? 'factors' : flatSent.length ? 'flat' : ruleset.kind;
    const fields: readonly string[] = kind === 'flat' ? FLAT_FIELDS : FACTOR_FIELDS;
    // A change of kind starts from an empty definition: every field of the new kind is then required.
    const merged: Record<string, unknown> = kind === ruleset.kind ? { ...ruleset.definition } : termsOf(ruleset.definition);
    for (const f of [...fields, ...AFFORDABILITY_FIELDS]) if (present(body, f)) merged[f] = (body as Record<string, unknown>)[f];
    const input = parseRuleset({
      ...merged,
      name: present(body, 'name') ? body.name : ruleset.name,
      description: present(body, 'description') ? body.description : ruleset.description,
    });
    return this.save(em, auth, ruleset, input);
  }

  async remove(auth: AuthContext, id: number): Promise<AckDto> {
    const em = this.db.forScope(auth);
    await this.ensureDefault(em, auth);
    await this.find(em, auth, id);
    await em.transactional(async (tx) => {
      await this.lockDefault(tx, auth);
      const ruleset = await this.find(tx, auth, id);
      if (ruleset.isDefault) {
        throw ApiError.conflict(
          `Ruleset ${id} is the default ruleset and cannot be deleted: make another ruleset the default first (POST /v1/rulesets/{ruleset_id}/set-default)`,
        );
      }
      recordEvent(tx, auth, 'ruleset.deleted', { actor: auth.actor, data: { ruleset_id: id, name: ruleset.name } });
      tx.remove(ruleset);
    });
    this.events.notify();
    return { status: 'ok', success: true, message: `Ruleset ${id} was deleted; recommendations made with it keep their snapshot`, id };
  }

  /**
   * Makes the ruleset the default and demotes the previous one in one transaction. An advisory
   * lock per organization + mode serializes concurrent calls (the last one wins, none fails); the
   * partial unique index guarantees at most one default even if some other path got it wrong.
   */
  async setDefault(auth: AuthContext, id: number): Promise<RulesetDto> {
    const em = this.db.forScope(auth);
    await this.ensureDefault(em, auth);
    await this.find(em, auth, id);
    const ruleset = await em.transactional(async (tx) => {
      await this.lockDefault(tx, auth);
      const target = await this.find(tx, auth, id);
      if (target.isDefault) return target;
      const now = this.clock.now();
      const previous = await tx.findOne(Ruleset, { ...scopeFields(auth), isDefault: true }, { filters: false });
      // Demote first, natively: the partial unique index allows no moment with two defaults.
      await tx.nativeUpdate(Ruleset, { ...scopeFields(auth), isDefault: true }, { isDefault: false, updatedAt: now }, { filters: false });
      if (previous) Object.assign(previous, { isDefault: false, updatedAt: now });
      target.isDefault = true;
      target.updatedAt = now;
      recordEvent(tx, auth, 'ruleset.default_changed', {
        actor: auth.actor,
        data: { ruleset_id: target.id, name: target.name, previous_ruleset_id: previous?.id ?? null },
      });
      return target;
    });
    this.events.notify();
    return mapRuleset(ruleset);
  }

  /**
   * The default ruleset of the scope, creating the documented default on first use. Works on any
   * entity manager or unit of work (scoped or not, inside a caller's transaction or not).
   */
  async defaultRuleset(work: EntityManager | UnitOfWork, scope: Scope): Promise<Ruleset> {
    const em = work instanceof UnitOfWork ? entityManagerOf(work) : work;
    const existing = await em.findOne(Ruleset, { ...scopeFields(scope), isDefault: true }, { filters: false });
    if (existing) return existing;
    await this.seedDefault(em, scope);
    const seeded = await em.findOne(Ruleset, { ...scopeFields(scope), isDefault: true }, { filters: false, refresh: true });
    if (!seeded) throw new Error(`no default ruleset for organization ${scope.organizationId} after seeding`);
    return seeded;
  }

  /** Rulesets by id in the order asked; any id unknown to the scope is 404. */
  async findMany(work: EntityManager | UnitOfWork, scope: Scope, ids: number[]): Promise<Ruleset[]> {
    const em = work instanceof UnitOfWork ? entityManagerOf(work) : work;
    await this.ensureDefault(em, scope);
    const rows = await em.find(Ruleset, { ...scopeFields(scope), id: { $in: ids } }, { filters: false });
    const byId = new Map(rows.map((r) => [r.id, r]));
    return ids.map((id) => {
      const r = byId.get(id);
      if (!r) throw new ApiError(ErrorCode.NOT_FOUND, `Ruleset ${id} not found`);
      return r;
    });
  }

  private async ensureDefault(em: EntityManager, scope: Scope): Promise<void> {
    const count = await em.count(Ruleset, { ...scopeFields(scope), isDefault: true }, { filters: false });
    if (count === 0) await this.seedDefault(em, scope);
  }

  /**
   * Inserts the documented default ruleset. Concurrent first uses race on the partial unique
   * index: the loser's insert does nothing and it reads the winner's row.
   */
  private async seedDefault(em: EntityManager, scope: Scope): Promise<void> {
    const { name, description, ...definition } = DEFAULT_RULESET;
    const now = this.clock.now();
    await em.execute(
      `insert into "rulesets" ("organization_id", "livemode", "name", "description", "kind", "definition", "is_default", "version", "created_at", "updated_at")
       values (?, ?, ?, ?, 'flat', ?::jsonb, true, 1, ?, ?) on conflict do nothing`,
      [scope.organizationId, scope.livemode, name ?? 'Default', description ?? null, JSON.stringify(definition), now, now],
      'run',
    );
  }

  private async lockDefault(em: EntityManager, scope: Scope): Promise<void> {
    await em.execute(`select pg_advisory_xact_lock(?, ?)`, [DEFAULT_LOCK_NAMESPACE, scope.organizationId * 2 + (scope.livemode ? 1 : 0)]);
  }

  private async save(em: EntityManager, auth: AuthContext, ruleset: Ruleset, input: RulesetInput): Promise<RulesetDto> {
    const changed =
      input.name !== ruleset.name ||
      input.description !== ruleset.description ||
      input.kind !== ruleset.kind ||
      JSON.stringify(input.definition) !== JSON.stringify(ruleset.definition);
    if (!changed) return mapRuleset(ruleset);
    await this.unique(input.name, () =>
      em.transactional(async (tx) => {
        Object.assign(ruleset, input, { version: ruleset.version + 1, updatedAt: this.clock.now() });
        await tx.flush();
        recordEvent(tx, auth, 'ruleset.updated', {
          actor: auth.actor,
          data: { ruleset_id: ruleset.id, name: ruleset.name, kind: ruleset.kind },
        });
      }),
    );
    this.events.notify();
    return mapRuleset(ruleset);
  }

  private async unique<T>(name: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      if (err instanceof UniqueConstraintViolationException && err.message.includes('rulesets_name_unique')) {
        throw new ApiError(ErrorCode.DUPLICATE_RESOURCE, `A ruleset named '${name}' already exists`, [
          validationEntry('body', ['name'], `A ruleset named '${name}' already exists`, 'value_error.duplicate'),
        ]);
      }
      throw err;
    }
  }

  private async find(em: EntityManager, scope: Scope, id: number): Promise<Ruleset> {
    const ruleset = await em.findOne(Ruleset, { ...scopeFields(scope), id }, { filters: false, refresh: true });
    if (!ruleset) throw ApiError.notFound('Ruleset');
    return ruleset;
  }
}

function mixedKinds(flat: readonly string[], factors: readonly string[]): ApiError {
  const msg = `Send either the flat ruleset fields (${flat.join(', ')}) or the factor-list fields (${factors.join(', ')}), not both`;
  return ApiError.validation([validationEntry('body', [factors[0]], msg, 'value_error.conflict')]);
}

/** `factors[2].weight` -> ['factors', 2, 'weight'] */
function fieldPath(field: string): (string | number)[] {
  if (field === 'body') return [];
  return field
    .split(/[.[\]]+/)
    .filter(Boolean)
    .map((p) => (/^\d+$/.test(p) ? Number(p) : p));
}

function toApiError(result: RulesetValidationResult, extra: ValidationEntry[]): ApiError {
  const entries = [
    ...extra,
    ...result.errors.map((e) =>
      validationEntry('body', fieldPath(e.field), e.message, e.code === 'WEIGHT_SUM_INVALID' ? 'value_error.weight_sum' : 'value_error'),
    ),
  ];
  if (!extra.length && result.code === 'WEIGHT_SUM_INVALID')
    return new ApiError(ErrorCode.WEIGHT_SUM_INVALID, result.errors[0].message, entries);
  return ApiError.validation(entries);
}

/**
 * A complete ruleset body of either kind: `factors`, approval_threshold or decline_threshold make
 * it a factor-list ruleset (Form B), anything else is flat (Form A). The underwriting package's
 * validators are the one source of the rules; this adds the API-level ones (name required).
 */
export function parseRuleset(body: object): RulesetInput {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw ApiError.validation([validationEntry('body', [], 'Request body must be a JSON object', 'type_error.object')]);
  }
  const b = body as Record<string, unknown>;
  const flatSent = FLAT_FIELDS.filter((f) => present(b, f));
  const factorSent = FACTOR_FIELDS.filter((f) => present(b, f));
  if (flatSent.length && factorSent.length) throw mixedKinds(flatSent, factorSent);
  const kind: RulesetKind = factorSent.length ? 'factors' : 'flat';
  const extra: ValidationEntry[] = [];
  if (b.name === undefined || b.name === null) extra.push(validationEntry('body', ['name'], 'name is required', 'value_error.missing'));
  const name = typeof b.name === 'string' ? b.name.trim() : b.name;
  const description = b.description === undefined ? null : b.description;
  const candidate = { ...b, name, description: description ?? undefined };
  const result = kind === 'flat' ? validateFlatRuleset(candidate) : validateFactorRuleset(candidate);
  if (!result.valid || extra.length) throw toApiError(result, extra);
  const definition: Record<string, unknown> =
    kind === 'flat'
      ? Object.fromEntries(FLAT_FIELDS.map((f) => [f, b[f]]))
      : {
          factors: (b.factors as { name: string; weight: number; threshold: number }[]).map((f) => ({
            name: f.name,
            weight: f.weight,
            threshold: f.threshold,
          })),
          approval_threshold: b.approval_threshold,
          decline_threshold: b.decline_threshold,
        };
  return { name: name as string, description: (description as string | null) ?? null, kind, definition: { ...definition, ...termsOf(b) } };
}

/** The affordability terms a body or definition sets (null: back to the default, left out). */
function termsOf(b: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(AFFORDABILITY_FIELDS.filter((f) => b[f] !== undefined && b[f] !== null).map((f) => [f, b[f]]));
}
