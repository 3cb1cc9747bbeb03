import { Injectable } from '@nestjs/common';
import { evaluateRuleset, type StoredDealAnalysis, type ReportRecommendation } from '@ledgerlens/underwriting';
import { AuthContext } from '../../../platform/auth/auth-context';
import { Database } from '../../../platform/database/database.service';
import { Scope, scopeFields } from '../../../platform/database/tenant';
import { UnitOfWork } from '../../../platform/database/unit-of-work';
import { ApiError } from '../../../platform/errors/api-error';
import { EventDispatcher } from '../../../platform/events/event-dispatcher';
import { recordEvent } from '../../../platform/events/events';
import { DealRepository } from '../repositories/deal.repository';
import { RecommendationRepository } from '../repositories/recommendation.repository';
import { Deal } from '../entities/deal.entities';
import { Clock } from '../../../platform/clock/clock';
import { EvaluateQueryDto, EvaluationResultDto, RecommendationDto } from '../dto/recommendation.dto';
import { Ruleset } from '../../rulesets/rulesets.entities';
import { RecommendationRecord } from '../entities/recommendation.entity';
import { RulesetsService } from '../../rulesets/rulesets.service';

/** A stored recommendation is served again (`cached: true`) for this long. */
export const RECOMMENDATION_CACHE_MS = 30_000;

@Injectable()
export class RecommendationsService {
  constructor(
    private readonly db: Database,
    private readonly deals: DealRepository,
    private readonly recommendations: RecommendationRepository,
    private readonly events: EventDispatcher,
    private readonly rulesets: RulesetsService,
    private readonly clock: Clock,
  ) {}

  /** The deal's newest stored recommendation in the scope, or null (other modules, in their own unit of work). */
  latestRecord(uow: UnitOfWork, scope: Scope, dealId: number): Promise<RecommendationRecord | null> {
    return this.recommendations.latestForDeal(uow, scope, dealId);
  }

  /**
   * The deal's recommendation with the default ruleset. A stored one is served again for 30 s
   * while the default is still that ruleset: an edit of the ruleset within those 30 s does not
   * change a recommendation already served (spec: cached 30 seconds; a recommendation keeps its
   * ruleset snapshot). Making another ruleset the default takes effect at once.
   */
  async get(auth: AuthContext, dealId: number): Promise<RecommendationDto> {
    const uow = this.db.unitOfWork(auth);
    assertReady(await this.deals.getOr404(uow, dealId));
    const fresh = await this.cached(uow, auth, dealId);
    if (fresh) return toDto(fresh, true);
    const { record, cached } = await uow.transaction(async (tx) => {
      const deal = await this.deals.getOr404(tx, dealId, { lock: true, refresh: true });
      assertReady(deal);
      // A concurrent request may have generated it while this one waited for the row lock.
      const again = await this.cached(tx, auth, dealId);
      if (again) return { record: again, cached: true };
      return { record: await this.generateDefault(tx, auth, deal, auth.actor), cached: false };
    });
    if (!cached) this.events.notify();
    return toDto(record, cached);
  }

  /**
   * Computes the recommendation of a ready deal with the default ruleset, stores it with a snapshot
   * of the ruleset, writes the report's `recommendation` section and records
   * `recommendation.generated` - all in the caller's unit of work (the pipeline calls it inside its
   * transaction when a deal becomes ready; the caller flushes/commits and notifies the dispatcher).
   * `deal.analysis` must be set.
   */
  async generateDefault(tx: UnitOfWork, scope: Scope, deal: Deal, actor: string | null = null): Promise<RecommendationRecord> {
    const ruleset = await this.rulesets.defaultRuleset(tx, scope);
    const result = evaluateRuleset(analysisOf(deal), ruleset);
    const record = this.recommendations.create(tx, {
      ...scopeFields(scope),
      dealId: deal.id,
      rulesetId: ruleset.id,
      rulesetName: ruleset.name,
      rulesetKind: ruleset.kind,
      rulesetVersion: ruleset.version,
      rulesetSnapshot: snapshot(ruleset),
      result,
      generatedAt: this.clock.now(),
    });
    const section: ReportRecommendation = {
      decision: result.decision,
      total_score: result.total_score,
      max_advance: result.max_advance,
      cfcr: result.cfcr,
      ruleset_name: result.ruleset_name,
      ruleset_id: result.ruleset_id,
      grade: result.grade,
      reasons: result.reasons,
    };
    // a deal with an analysis has its report (both are written by the scoring)
    if (deal.report) deal.report = { ...deal.report, recommendation: section };
    deal.recommendation = result.decision;
    recordEvent(tx, scope, 'recommendation.generated', {
      dealId: deal.id,
      actor,
      data: { deal_id: deal.id, ...section },
    });
    return record;
  }

  /** What-if: evaluates the deal with each ruleset asked for (or the default); nothing is stored. */
  async evaluate(auth: AuthContext, dealId: number, query: EvaluateQueryDto): Promise<EvaluationResultDto> {
    const uow = this.db.unitOfWork(auth);
    const deal = await this.deals.getOr404(uow, dealId);
    const ids = [...new Set([...(query.ruleset_id !== undefined ? [query.ruleset_id] : []), ...(query.ruleset_ids ?? [])])];
    const rulesets: Ruleset[] = ids.length ? await this.rulesets.findMany(uow, auth, ids) : [await this.rulesets.defaultRuleset(uow, auth)];
    assertReady(deal);
    const analysis = analysisOf(deal);
    return {
      deal_id: deal.id,
      evaluations: rulesets.map((r) => ({ ...evaluateRuleset(analysis, r), is_default: r.isDefault })),
    };
  }

  private async cached(uow: UnitOfWork, scope: Scope, dealId: number): Promise<RecommendationRecord | null> {
    const latest = await this.recommendations.latestForDeal(uow, scope, dealId);
    if (!latest) return null;
    const age = this.clock.now().getTime() - latest.generatedAt.getTime();
    if (age < 0 || age >= RECOMMENDATION_CACHE_MS) return null;
    const ruleset = await this.rulesets.defaultRuleset(uow, scope);
    return ruleset.id === latest.rulesetId ? latest : null;
  }
}

function assertReady(deal: Deal): void {
  if (deal.status !== 'ready') {
    throw ApiError.conflict(
      `Deal ${deal.id} is not ready (status: ${deal.status}): recommendations are available once every document of the deal has been processed and the deal status is ready`,
    );
  }
}

function analysisOf(deal: Deal): StoredDealAnalysis {
  if (!deal.analysis) throw ApiError.conflict(`Deal ${deal.id} has no stored analysis: reprocess its documents`);
  return deal.analysis;
}

function snapshot(r: Ruleset): Record<string, unknown> {
  return { id: r.id, name: r.name, description: r.description, kind: r.kind, version: r.version, ...r.definition };
}

function toDto(record: RecommendationRecord, cached: boolean): RecommendationDto {
  return { ...record.result, deal_id: record.dealId, generated_at: record.generatedAt.toISOString(), cached };
}
