import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { AuthContext } from '../../platform/auth/auth-context';
import { Clock } from '../../platform/clock/clock';
import { APP_CONFIG, AppConfig } from '../../platform/config/config';
import { Database } from '../../platform/database/database.service';
import { Scope, scopeFields } from '../../platform/database/tenant';
import { ApiError, ErrorCode } from '../../platform/errors/api-error';
import { EventDispatcher } from '../../platform/events/event-dispatcher';
import { DomainEvent, DomainEventType } from '../../platform/events/events';
import { JobQueue, QUEUES } from '../../platform/queue/job-queue';
import { flatten } from '../../platform/validation/validation.pipe';
import { UnitOfWork } from '../../platform/database/unit-of-work';
import type { DealRecord } from '../pipeline/records';
import { DealsService } from '../pipeline/services/deals.service';
import { UpdateDealDto } from '../pipeline/dto/deal.dto';
import { CrmError, CrmRecord, DealSnapshot, dealIdOfRef, dealRef } from './adapters/crm-provider';
import { CrmConfigService } from './crm-config.service';
import { CrmConfig, CrmFieldMapping, CrmLink, CrmProviderName, CrmSyncLog, CrmSyncRun, Direction, RunDetails } from './crm.entities';
import { dealValues, DEAL_FIELDS, inbound, outbound, toFormB } from './crm.fields';
import { CrmDealSyncResultDto, CrmProviderResultDto, CrmRunStartedDto } from './dto/crm.dto';

/** Domain events after which the deal is pushed to every enabled CRM (spec: Events). */
export const CRM_TRIGGERS: readonly DomainEventType[] = ['deal.ready', 'deal.decision', 'recommendation.generated'];
/** Sync log and runs are kept this long (spec: CRM sync log retention). */
export const RETENTION_DAYS = 90;
const SWEEP_INTERVAL_MS = 60_000;

export type CrmJob =
  | { kind: 'run'; runId: number; organizationId: number; livemode: boolean }
  | { kind: 'event'; eventId: string; dealId: number; organizationId: number; livemode: boolean };

/** A run: every enabled provider (or one), all deals (or one); `exclude` skips the provider a change came from. */
export interface RunOptions {
  trigger: CrmSyncRun['trigger'];
  provider?: CrmProviderName | null;
  dealId?: number | null;
  direction: Direction;
  exclude?: CrmProviderName;
}

export interface PushOutcome extends CrmProviderResultDto {
  created: boolean;
  field: string | null;
}

const emptyDetails = (): RunDetails => ({
  created_in_crm: 0,
  updated_in_crm: 0,
  created_in_banklyze: 0,
  updated_in_banklyze: 0,
  skipped: 0,
  errors: [],
});

/** The service acting on a deal for a CRM (audit actor `crm:<provider>`). */
function systemAuth(scope: Scope, provider: CrmProviderName): AuthContext {
  return { ...scopeFields(scope), userId: null, role: null, credential: { type: 'api_key', id: 0 }, scopes: [], actor: `crm:${provider}` };
}

/**
 * Moves deals between the service and the CRMs: synchronous push of one deal (Form A), runs
 * (Form B: full or partial, on the `crm` queue), automatic pushes after deal events (outbox
 * subscriber), interval syncs per provider (the schedule is `crm_configs.next_sync_at`, claimed by
 * the sweep, so each interval runs once however many workers sweep), and the 90-day purge.
 * Conflicts: last write wins on mapped fields, comparing the CRM's modification time with the
 * deal's `updated_at`.
 */
@Injectable()
export class CrmSyncService implements OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('CrmSync');
  private sweeper: NodeJS.Timeout | null = null;

  constructor(
    private readonly db: Database,
    private readonly configs: CrmConfigService,
    private readonly deals: DealsService,
    private readonly events: EventDispatcher,
    private readonly queue: JobQueue,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.events.subscribe('crm', (event) => this.onEvent(event));
  }

  onApplicationBootstrap(): void {
    if (this.config.role === 'api') return;
    this.queue.process<CrmJob>(QUEUES.crm, (job) => this.runJob(job), 2);
    this.sweeper = setInterval(
      () => void this.sweep().catch((err: Error) => this.logger.error(`CRM sweep failed: ${err.message}`)),
      SWEEP_INTERVAL_MS,
    );
    this.sweeper.unref();
  }

  onApplicationShutdown(): void {
    if (this.sweeper) clearInterval(this.sweeper);
  }

  // ------------------------------------------------------------------ triggers

  /** Outbox subscriber: a deal that became ready, got a decision or a recommendation is pushed. */
  private async onEvent(event: DomainEvent): Promise<void> {
    if (!CRM_TRIGGERS.includes(event.type) || !event.dealId) return;
    const scope = { organizationId: event.organizationId, livemode: event.livemode };
    if ((await this.configs.enabledConfigs(scope)).length === 0) return;
    const job: CrmJob = { kind: 'event', eventId: event.id, dealId: event.dealId, ...scope };
    await this.queue.enqueue(QUEUES.crm, `event-${event.id}`, job);
  }

  /**
   * Interval syncs that are due (claimed: `next_sync_at` moves forward in the same statement, so
   * one sweep wins each interval) and the retention purge. Runs every minute; tests call it.
   */
  async sweep(): Promise<number> {
    const now = this.clock.now();
    const em = this.db.system();
    const due = await em.find(CrmConfig, { enabled: true, nextSyncAt: { $lte: now } }, { filters: false, limit: 200 });
    let started = 0;
    for (const config of due) {
      const claimed = await em.nativeUpdate(
        CrmConfig,
        { id: config.id, nextSyncAt: config.nextSyncAt },
        { nextSyncAt: new Date(now.getTime() + config.syncIntervalMinutes * 60_000) },
        { filters: false },
      );
      if (claimed === 0) continue;
      const scope = { organizationId: config.organizationId, livemode: config.livemode };
      await this.startRun(scope, { trigger: 'interval', provider: config.provider, direction: 'both' });
      started++;
    }
    await this.purge();
    return started;
  }

  /** Deletes sync log rows and runs older than the retention period. */
  async purge(): Promise<{ logs: number; runs: number }> {
    const cutoff = new Date(this.clock.now().getTime() - RETENTION_DAYS * 86_400_000);
    const em = this.db.system();
    const logs = await em.nativeDelete(CrmSyncLog, { syncedAt: { $lt: cutoff } }, { filters: false });
    const runs = await em.nativeDelete(CrmSyncRun, { startedAt: { $lt: cutoff } }, { filters: false });
    return { logs, runs };
  }

  private async runJob(job: CrmJob): Promise<void> {
    const scope = { organizationId: job.organizationId, livemode: job.livemode };
    if (job.kind === 'run') return this.executeRun(scope, job.runId);
    const deal = await this.deals.findById(this.db.unitOfWork(scope), job.dealId);
    if (!deal) return;
    const run = await this.createRun(scope, { trigger: 'event', dealId: deal.id, direction: 'to_crm' });
    await this.executeRun(scope, run.id);
  }

  // ------------------------------------------------------------------ Form A: one deal, now

  async syncDeal(auth: AuthContext, dealId: number): Promise<CrmDealSyncResultDto> {
    const deal = await this.deals.findOr404(UnitOfWork.of(this.db.forScope(auth)), dealId);
    const configs = await this.configs.enabledConfigs(auth);
    if (configs.length === 0) throw new ApiError(ErrorCode.CRM_NOT_CONFIGURED, 'No enabled CRM provider in this mode');
    const results: PushOutcome[] = [];
    for (const config of configs) results.push(await this.push(auth, config, deal, null));
    const failed = results.filter((r) => r.status === 'error');
    return {
      status: failed.length ? 'error' : 'success',
      external_id: results.find((r) => r.external_id)?.external_id ?? null,
      error: failed.length ? failed.map((r) => `${r.provider}: ${r.error}`).join('; ') : null,
      deal_id: deal.id,
      results: results.map(({ provider, status, external_id, error }) => ({ provider, status, external_id, error })),
    };
  }

  // ------------------------------------------------------------------ Form B: runs

  /** Starts an asynchronous run (202): full, or partial for one deal. */
  async startRun(scope: Scope, opts: RunOptions): Promise<CrmRunStartedDto> {
    const run = await this.createRun(scope, opts);
    await this.queue.enqueue(QUEUES.crm, `run-${run.id}`, { kind: 'run', runId: run.id, ...scopeFields(scope) } satisfies CrmJob);
    return {
      sync_id: run.id,
      status: run.status,
      started_at: run.startedAt.toISOString(),
      direction: toFormB(run.direction),
      records_queued: run.recordsQueued,
    };
  }

  private async createRun(scope: Scope, opts: RunOptions): Promise<CrmSyncRun> {
    const em = this.db.forScope(scope);
    const configs = (await this.configs.enabledConfigs(scope, opts.provider)).filter((c) => c.provider !== opts.exclude);
    const deals = opts.dealId ? 1 : await this.deals.count(UnitOfWork.of(em));
    const run = em.create(CrmSyncRun, {
      ...scopeFields(scope),
      status: 'running',
      direction: opts.direction,
      trigger: opts.trigger,
      provider: opts.provider ?? (opts.exclude && configs.length === 1 ? configs[0].provider : null),
      dealId: opts.dealId ?? null,
      recordsQueued: outbound(opts.direction) ? deals * configs.length : 0,
      details: { ...emptyDetails(), ...(opts.exclude ? { excluded_provider: opts.exclude } : {}) } as RunDetails,
      startedAt: this.clock.now(),
    });
    await em.persistAndFlush(run);
    return run;
  }

  /** Pulls (full runs with inbound mappings) then pushes, per enabled provider; records counts and errors. */
  async executeRun(scope: Scope, runId: number): Promise<void> {
    const em = this.db.forScope(scope);
    const run = await em.findOne(CrmSyncRun, { id: runId, status: 'running' });
    if (!run) return;
    const details = run.details ?? emptyDetails();
    const exclude = (details as RunDetails & { excluded_provider?: string }).excluded_provider;
    let synced = 0;
    let failed = 0;
    const configs = (await this.configs.enabledConfigs(scope, run.provider)).filter((c) => c.provider !== exclude);
    for (const config of configs) {
      const mappings = await this.configs.mappings(scope, config.provider);
      let providerOk = true;
      if (inbound(run.direction) && !run.dealId && mappings.some((m) => inbound(m.direction))) {
        try {
          const pulled = await this.pull(scope, config, mappings, run, details);
          synced += pulled.synced;
          failed += pulled.failed;
        } catch (err) {
          providerOk = false;
          failed++;
          details.errors.push({
            record_id: '*',
            field: null,
            error: messageOf(err),
            direction: toFormB('from_crm'),
            provider: config.provider,
          });
        }
      }
      if (outbound(run.direction)) {
        const one = run.dealId ? await this.deals.findById(UnitOfWork.of(em), run.dealId) : null;
        const deals = run.dealId ? (one ? [one] : []) : await this.dealsToPush(scope, config);
        for (const deal of deals) {
          const outcome = await this.push(scope, config, deal, run.id, mappings);
          if (outcome.status === 'success') {
            synced++;
            if (outcome.created) details.created_in_crm++;
            else details.updated_in_crm++;
          } else {
            failed++;
            providerOk = false;
            details.errors.push({
              record_id: String(deal.id),
              field: outcome.field,
              error: outcome.error ?? 'failed',
              direction: toFormB('to_crm'),
              provider: config.provider,
            });
          }
        }
        if (!run.dealId) details.skipped += Math.max(0, (await this.deals.count(UnitOfWork.of(em))) - deals.length);
      }
      await em.nativeUpdate(
        CrmConfig,
        { id: config.id },
        { lastSyncAt: this.clock.now(), lastSyncStatus: providerOk ? 'success' : 'error' },
      );
    }
    const completedAt = this.clock.now();
    Object.assign(run, {
      status: failed > 0 && synced === 0 ? 'failed' : 'completed',
      recordsSynced: synced,
      recordsFailed: failed,
      details: { ...details },
      completedAt,
      durationMs: Math.max(0, completedAt.getTime() - run.startedAt.getTime()),
    });
    await em.flush();
  }

  /** Deals changed since they were last exchanged with this provider (never exchanged: all). */
  private async dealsToPush(scope: Scope, config: CrmConfig): Promise<DealRecord[]> {
    const em = this.db.forScope(scope);
    const links = new Map((await em.find(CrmLink, { provider: config.provider })).map((l) => [l.dealId, l]));
    const deals = await this.deals.listAll(UnitOfWork.of(em));
    return deals.filter((d) => {
      const link = links.get(d.id);
      return !link || !link.syncedAt || d.updatedAt.getTime() > link.syncedAt.getTime();
    });
  }

  // ------------------------------------------------------------------ push / pull

  /** Pushes one deal to one provider; writes the link and a sync log row. Never throws for CRM errors. */
  async push(scope: Scope, config: CrmConfig, deal: DealRecord, runId: number | null, mappings?: CrmFieldMapping[]): Promise<PushOutcome> {
    const em = this.db.forScope(scope);
    const maps = mappings ?? (await this.configs.mappings(scope, config.provider));
    const values = dealValues(deal);
    const fields: Record<string, unknown> = {};
    for (const m of maps) if (outbound(m.direction)) fields[m.crmField] = values[m.dealField];
    const link = await em.findOne(CrmLink, { provider: config.provider, dealId: deal.id });
    const snapshot: DealSnapshot = {
      id: deal.id,
      ref: dealRef(deal.id, scope.livemode),
      values,
      createdAt: deal.createdAt,
      updatedAt: deal.updatedAt,
    };
    const syncedAt = this.clock.now();
    try {
      const result = await this.configs.adapter(config).pushDeal({ deal: snapshot, externalId: link?.externalId ?? null, fields });
      await em.transactional(async (tx) => {
        const current = link ? await tx.findOne(CrmLink, { id: link.id }) : null;
        if (current)
          Object.assign(current, {
            externalId: result.externalId,
            syncedAt: deal.updatedAt,
            remoteModifiedAt: result.modifiedAt ?? current.remoteModifiedAt,
          });
        else
          tx.persist(
            tx.create(CrmLink, {
              ...scopeFields(scope),
              provider: config.provider,
              dealId: deal.id,
              externalId: result.externalId,
              syncedAt: deal.updatedAt,
              remoteModifiedAt: result.modifiedAt,
            }),
          );
        tx.persist(
          this.log(tx, scope, { deal, config, direction: 'to_crm', status: 'success', externalId: result.externalId, runId, syncedAt }),
        );
      });
      if (!runId) await em.nativeUpdate(CrmConfig, { id: config.id }, { lastSyncAt: syncedAt, lastSyncStatus: 'success' });
      return {
        provider: config.provider,
        status: 'success',
        external_id: result.externalId,
        error: null,
        created: result.created,
        field: null,
      };
    } catch (err) {
      const error = messageOf(err);
      await em.persistAndFlush(
        this.log(em, scope, {
          deal,
          config,
          direction: 'to_crm',
          status: 'error',
          externalId: link?.externalId ?? null,
          runId,
          syncedAt,
          error,
        }),
      );
      if (!runId) await em.nativeUpdate(CrmConfig, { id: config.id }, { lastSyncAt: syncedAt, lastSyncStatus: 'error' });
      return {
        provider: config.provider,
        status: 'error',
        external_id: link?.externalId ?? null,
        error,
        created: false,
        field: err instanceof CrmError ? err.field : null,
      };
    }
  }

  /** Pulls records changed in the CRM since the last pull and applies the newer ones to their deals. */
  private async pull(
    scope: Scope,
    config: CrmConfig,
    mappings: CrmFieldMapping[],
    run: CrmSyncRun,
    details: RunDetails,
  ): Promise<{ synced: number; failed: number }> {
    const inboundMaps = mappings.filter((m) => inbound(m.direction));
    const result = await this.configs.adapter(config).pullChanges(config.pulledUntil, [...new Set(inboundMaps.map((m) => m.crmField))]);
    let synced = 0;
    let failed = 0;
    for (const record of result.records) {
      const outcome = await this.applyRemote(scope, config.provider, inboundMaps, record, run.id);
      if (outcome.action === 'updated') {
        synced++;
        details.updated_in_banklyze++;
      } else if (outcome.action === 'error') {
        failed++;
        details.errors.push({
          record_id: record.externalId,
          field: outcome.field,
          error: outcome.error!,
          direction: toFormB('from_crm'),
          provider: config.provider,
        });
      } else details.skipped++;
    }
    if (result.until) await this.db.forScope(scope).nativeUpdate(CrmConfig, { id: config.id }, { pulledUntil: result.until });
    return { synced, failed };
  }

  /**
   * Applies a CRM record's mapped fields to its deal when the CRM's change is the later write
   * (last write wins against the deal's `updated_at`); the deal is changed through the deals
   * service (validated like a PATCH, `deal.updated` recorded with actor `crm:<provider>`).
   */
  async applyRemote(
    scope: Scope,
    provider: CrmProviderName,
    inboundMaps: CrmFieldMapping[],
    record: CrmRecord,
    runId: number | null,
  ): Promise<{
    action: 'updated' | 'skipped' | 'ignored' | 'error';
    dealId: number | null;
    fields: string[];
    error?: string;
    field: string | null;
  }> {
    const em = this.db.forScope(scope);
    const link =
      (await em.findOne(CrmLink, { provider, externalId: record.externalId })) ??
      (dealIdOfRef(record.ref, scope.livemode)
        ? await em.findOne(CrmLink, { provider, dealId: dealIdOfRef(record.ref, scope.livemode)! })
        : null);
    const dealId = link?.dealId ?? dealIdOfRef(record.ref, scope.livemode);
    const deal = dealId ? await this.deals.findById(UnitOfWork.of(em), dealId) : null;
    if (!deal) return { action: 'ignored', dealId: null, fields: [], field: null };
    if (record.modifiedAt.getTime() <= deal.updatedAt.getTime()) return { action: 'skipped', dealId: deal.id, fields: [], field: null };
    const values = dealValues(deal);
    const changes: Record<string, unknown> = {};
    for (const m of inboundMaps) {
      if (!(m.crmField in record.fields) || !DEAL_FIELDS[m.dealField]?.writable) continue;
      const value = coerce(m.dealField, record.fields[m.crmField]);
      if (value !== values[m.dealField]) changes[m.dealField] = value;
    }
    const syncedAt = this.clock.now();
    if (Object.keys(changes).length === 0) {
      await this.saveLink(scope, provider, deal, record, link);
      return { action: 'skipped', dealId: deal.id, fields: [], field: null };
    }
    const dto = plainToInstance(UpdateDealDto, changes);
    const problems = await validate(dto, { whitelist: true });
    if (problems.length) {
      const entries = flatten(problems, 'body', []);
      const error = entries.map((e) => `${e.field}: ${e.msg}`).join('; ');
      await em.persistAndFlush(
        this.log(em, scope, {
          deal,
          provider,
          direction: 'from_crm',
          status: 'error',
          externalId: record.externalId,
          runId,
          syncedAt,
          error,
        }),
      );
      return { action: 'error', dealId: deal.id, fields: [], error, field: entries[0]?.field ?? null };
    }
    await this.deals.update(systemAuth(scope, provider), deal.id, dto);
    const updated = await this.deals.findOr404(UnitOfWork.of(em), deal.id, { refresh: true });
    await this.saveLink(scope, provider, updated, record, link);
    await em.persistAndFlush(
      this.log(em, scope, { deal, provider, direction: 'from_crm', status: 'success', externalId: record.externalId, runId, syncedAt }),
    );
    return { action: 'updated', dealId: deal.id, fields: Object.keys(changes), field: null };
  }

  private async saveLink(
    scope: Scope,
    provider: CrmProviderName,
    deal: DealRecord,
    record: CrmRecord,
    link: CrmLink | null,
  ): Promise<void> {
    const em = this.db.forScope(scope);
    if (link)
      await em.nativeUpdate(
        CrmLink,
        { id: link.id },
        { externalId: record.externalId, syncedAt: deal.updatedAt, remoteModifiedAt: record.modifiedAt },
      );
    else
      await em.persistAndFlush(
        em.create(CrmLink, {
          ...scopeFields(scope),
          provider,
          dealId: deal.id,
          externalId: record.externalId,
          syncedAt: deal.updatedAt,
          remoteModifiedAt: record.modifiedAt,
        }),
      );
  }

  private log(
    em: ReturnType<Database['forScope']>,
    scope: Scope,
    row: {
      deal: DealRecord;
      config?: CrmConfig;
      provider?: CrmProviderName;
      direction: 'to_crm' | 'from_crm';
      status: 'success' | 'error';
      externalId: string | null;
      runId: number | null;
      syncedAt: Date;
      error?: string;
    },
  ): CrmSyncLog {
    return em.create(CrmSyncLog, {
      ...scopeFields(scope),
      dealId: row.deal.id,
      provider: row.config?.provider ?? row.provider!,
      direction: row.direction,
      status: row.status,
      externalId: row.externalId,
      error: row.error?.slice(0, 2000) ?? null,
      runId: row.runId,
      syncedAt: row.syncedAt,
    });
  }
}

function messageOf(err: unknown): string {
  if (err instanceof CrmError) return err.message;
  return `${(err as Error).name}: ${(err as Error).message}`;
}

/** CRM values arrive as strings (HubSpot) or typed (Salesforce, Pipedrive): numbers for amounts, null for empty. */
function coerce(field: string, value: unknown): unknown {
  if (value === '' || value === undefined) return null;
  if (field === 'funding_amount_requested' && value !== null) {
    const n = typeof value === 'number' ? value : Number(value);
    return Number.isFinite(n) ? n : value;
  }
  return value === null ? null : typeof value === 'string' ? value : String(value);
}
