import { QueryOrder, UniqueConstraintViolationException } from '@mikro-orm/core';
import { EntityManager } from '@mikro-orm/postgresql';
import { Injectable } from '@nestjs/common';
import {
  LENDER_DIRECTORY_VERSION,
  MIN_NAME_CHARS,
  directoryEntry,
  isFunderKind,
  lenderDirectory,
  nameWords,
  type LenderKind,
  type OrgLenderEntry,
} from '@ledgerlens/underwriting';
import { AuthContext } from '../../platform/auth/auth-context';
import { Clock } from '../../platform/clock/clock';
import { Database } from '../../platform/database/database.service';
import { Scope, scopeFields } from '../../platform/database/tenant';
import { entityManagerOf, UnitOfWork } from '../../platform/database/unit-of-work';
import { ApiError, ErrorCode, validationEntry, ValidationEntry } from '../../platform/errors/api-error';
import { EventDispatcher } from '../../platform/events/event-dispatcher';
import { recordEvent } from '../../platform/events/events';
import { AckDto } from '../../platform/http/ack.dto';
import { paginate, pageWindow } from '../../platform/pagination/pagination';
import { CreateLenderDto, LenderDirectoryDto, LenderDto, LenderListDto, LenderListQueryDto, UpdateLenderDto } from './dto/lender.dto';
import { OrgLender } from './lenders.entities';

export function mapLender(l: OrgLender): LenderDto {
  return {
    id: l.id,
    name: l.name,
    aliases: l.aliases,
    kind: l.kind,
    is_funder: isFunderKind(l.kind),
    directory_id: l.directoryId,
    lender_id: l.directoryId ?? `org:${l.id}`,
    mode: l.livemode ? 'live' : 'test',
    created_at: l.createdAt.toISOString(),
    updated_at: l.updatedAt.toISOString(),
  };
}

function directoryDto(): LenderDirectoryDto {
  return {
    version: LENDER_DIRECTORY_VERSION,
    entries: lenderDirectory().map((e) => ({ id: e.id, name: e.name, kind: e.kind, aliases: e.aliases, descriptors: e.descriptors })),
  };
}

/** A name the matcher can use: trimmed, with at least MIN_NAME_CHARS letters or digits. */
function checkName(value: string, loc: (string | number)[], errors: ValidationEntry[]): string {
  const name = value.trim().replace(/\s+/g, ' ');
  if (nameWords(name).join('').length < MIN_NAME_CHARS) {
    errors.push(
      validationEntry(
        'body',
        loc,
        `'${value}' needs at least ${MIN_NAME_CHARS} letters or digits to be matched safely`,
        'value_error.too_short',
      ),
    );
  }
  return name;
}

interface LenderInput {
  name: string;
  aliases: string[];
  kind: LenderKind;
  directoryId: string | null;
}

/** The body's fields (the stored ones where a PATCH sends none); kind defaults to the directory lender's, else mca. */
function parseInput(body: { name: string; aliases: string[]; kind?: LenderKind; directoryId: string | null }): LenderInput {
  const errors: ValidationEntry[] = [];
  const directory = body.directoryId ? directoryEntry(body.directoryId) : null;
  if (body.directoryId && !directory) {
    errors.push(
      validationEntry(
        'body',
        ['directory_id'],
        `'${body.directoryId}' is no lender of the directory ${LENDER_DIRECTORY_VERSION} (GET /v1/lenders?include_directory=true)`,
        'value_error.unknown',
      ),
    );
  }
  const name = checkName(body.name, ['name'], errors);
  const seen = new Set([nameWords(name).join('')]);
  const aliases: string[] = [];
  body.aliases.forEach((a, i) => {
    const alias = checkName(a, ['aliases', i], errors);
    const key = nameWords(alias).join('');
    if (!seen.has(key)) aliases.push(alias);
    seen.add(key);
  });
  if (errors.length) throw ApiError.validation(errors);
  return { name, aliases, kind: body.kind ?? directory?.kind ?? 'mca', directoryId: directory?.id ?? null };
}

/**
 * The organization's own lender names (GET/POST /v1/lenders, PATCH/DELETE /v1/lenders/{id}), per
 * organization and mode. The deal analysis reads them (`entriesFor`) at every scoring: a change
 * applies from the next analysis or rescore of a deal.
 */
@Injectable()
export class LendersService {
  constructor(
    private readonly db: Database,
    private readonly events: EventDispatcher,
    private readonly clock: Clock,
  ) {}

  async list(auth: AuthContext, query: LenderListQueryDto): Promise<LenderListDto> {
    const em = this.db.forScope(auth);
    const page = await paginate(
      pageWindow(query),
      () => em.count(OrgLender, {}),
      async (offset, limit) =>
        (await em.find(OrgLender, {}, { orderBy: [{ createdAt: QueryOrder.ASC }, { id: QueryOrder.ASC }], offset, limit })).map(mapLender),
    );
    return { ...page, directory: query.include_directory ? directoryDto() : null };
  }

  async get(auth: AuthContext, id: number): Promise<LenderDto> {
    return mapLender(await this.find(this.db.forScope(auth), auth, id));
  }

  async create(auth: AuthContext, body: CreateLenderDto): Promise<LenderDto> {
    const input = parseInput({ name: body.name, aliases: body.aliases ?? [], kind: body.kind, directoryId: body.directory_id ?? null });
    const em = this.db.forScope(auth);
    const lender = await this.unique(input.name, () =>
      em.transactional(async (tx) => {
        const now = this.clock.now();
        const created = tx.create(OrgLender, { ...scopeFields(auth), ...input, createdAt: now, updatedAt: now });
        await tx.flush();
        recordEvent(tx, auth, 'lender.created', {
          actor: auth.actor,
          data: {
            lender_id: created.id,
            name: created.name,
            kind: created.kind,
            aliases: created.aliases,
            directory_id: created.directoryId,
          },
        });
        return created;
      }),
    );
    this.events.notify();
    return mapLender(lender);
  }

  async update(auth: AuthContext, id: number, body: UpdateLenderDto): Promise<LenderDto> {
    const em = this.db.forScope(auth);
    const lender = await this.find(em, auth, id);
    const directoryId = body.directory_id !== undefined ? body.directory_id : lender.directoryId;
    const input = parseInput({
      name: body.name ?? lender.name,
      aliases: body.aliases ?? lender.aliases,
      kind: body.kind ?? (body.directory_id !== undefined ? undefined : lender.kind),
      directoryId,
    });
    const changed =
      input.name !== lender.name ||
      input.kind !== lender.kind ||
      input.directoryId !== lender.directoryId ||
      input.aliases.join('\n') !== lender.aliases.join('\n');
    if (!changed) return mapLender(lender);
    await this.unique(input.name, () =>
      em.transactional(async (tx) => {
        const previous = { name: lender.name, kind: lender.kind, aliases: lender.aliases, directory_id: lender.directoryId };
        Object.assign(lender, input, { updatedAt: this.clock.now() });
        await tx.flush();
        recordEvent(tx, auth, 'lender.updated', {
          actor: auth.actor,
          data: {
            lender_id: lender.id,
            name: lender.name,
            kind: lender.kind,
            aliases: lender.aliases,
            directory_id: lender.directoryId,
            previous,
          },
        });
      }),
    );
    this.events.notify();
    return mapLender(lender);
  }

  async remove(auth: AuthContext, id: number): Promise<AckDto> {
    const em = this.db.forScope(auth);
    const lender = await this.find(em, auth, id);
    await em.transactional(async (tx) => {
      recordEvent(tx, auth, 'lender.deleted', { actor: auth.actor, data: { lender_id: id, name: lender.name, kind: lender.kind } });
      tx.remove(lender);
    });
    this.events.notify();
    return { status: 'ok', success: true, message: `Lender ${id} was deleted; deals use it no more from their next analysis`, id };
  }

  /** The scope's entries as the deal analysis takes them, in id order (works inside a caller's unit of work). */
  async entriesFor(work: EntityManager | UnitOfWork, scope: Scope): Promise<OrgLenderEntry[]> {
    const em = work instanceof UnitOfWork ? entityManagerOf(work) : work;
    const rows = await em.find(OrgLender, { ...scopeFields(scope) }, { filters: false, orderBy: { id: QueryOrder.ASC } });
    return rows.map((r) => ({ id: r.id, name: r.name, aliases: r.aliases, kind: r.kind, directoryId: r.directoryId }));
  }

  private async unique<T>(name: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      if (err instanceof UniqueConstraintViolationException && err.message.includes('lenders_name_unique')) {
        throw new ApiError(ErrorCode.DUPLICATE_RESOURCE, `A lender named '${name}' already exists`, [
          validationEntry('body', ['name'], `A lender named '${name}' already exists`, 'value_error.duplicate'),
        ]);
      }
      throw err;
    }
  }

  private async find(em: EntityManager, scope: Scope, id: number): Promise<OrgLender> {
    const lender = await em.findOne(OrgLender, { ...scopeFields(scope), id }, { filters: false, refresh: true });
    if (!lender) throw ApiError.notFound('Lender');
    return lender;
  }
}
