import type { LedgerlensCore } from '../core.js';
import type { Ack, CommonRequestOptions, CreateRuleset, Ruleset, RulesetList, UpdateRuleset } from '../types.js';

const id = (rulesetId: number) => ({ path: { ruleset_id: rulesetId } });

/** `client.rulesets`: the funder's underwriting rules that deals are evaluated against. */
export class RulesetsResource {
  constructor(private readonly client: LedgerlensCore) {}

  async list(query: { page?: number; per_page?: number } = {}, options?: CommonRequestOptions): Promise<RulesetList> {
    return (await this.client.GET('/v1/rulesets', { ...options, params: { query } })).data;
  }

  listAll(options?: CommonRequestOptions): AsyncGenerator<Ruleset, void, undefined> {
    return this.client.paginate('/v1/rulesets', { per_page: 100 }, options);
  }

  async create(body: CreateRuleset, options?: CommonRequestOptions): Promise<Ruleset> {
    return (await this.client.POST('/v1/rulesets', { ...options, body })).data;
  }

  async get(rulesetId: number, options?: CommonRequestOptions): Promise<Ruleset> {
    return (await this.client.GET('/v1/rulesets/{ruleset_id}', { ...options, params: id(rulesetId) })).data;
  }

  /** Changes the given fields. */
  async update(rulesetId: number, patch: UpdateRuleset, options?: CommonRequestOptions): Promise<Ruleset> {
    return (await this.client.PATCH('/v1/rulesets/{ruleset_id}', { ...options, params: id(rulesetId), body: patch })).data;
  }

  /** Replaces the whole ruleset. */
  async replace(rulesetId: number, body: CreateRuleset, options?: CommonRequestOptions): Promise<Ruleset> {
    return (await this.client.PUT('/v1/rulesets/{ruleset_id}', { ...options, params: id(rulesetId), body })).data;
  }

  async delete(rulesetId: number, options?: CommonRequestOptions): Promise<Ack> {
    return (await this.client.DELETE('/v1/rulesets/{ruleset_id}', { ...options, params: id(rulesetId) })).data;
  }

  /** Makes this the organization's default ruleset (used when an evaluation names none). */
  async setDefault(rulesetId: number, options?: CommonRequestOptions): Promise<Ruleset> {
    return (await this.client.POST('/v1/rulesets/{ruleset_id}/set-default', { ...options, params: id(rulesetId) })).data;
  }
}
