import type { LedgerlensCore } from '../core.js';
import type { Ack, CommonRequestOptions, CreateLender, Lender, LenderList, UpdateLender } from '../types.js';

const id = (lenderId: number) => ({ path: { lender_id: lenderId } });

/** `client.lenders`: the organization's own lender names, on top of the shipped lender directory. */
export class LendersResource {
  constructor(private readonly client: LedgerlensCore) {}

  /** The organization's entries; `include_directory: true` adds the shipped directory (`directory`). */
  async list(
    query: { page?: number; per_page?: number; include_directory?: boolean } = {},
    options?: CommonRequestOptions,
  ): Promise<LenderList> {
    return (await this.client.GET('/v1/lenders', { ...options, params: { query } })).data;
  }

  listAll(options?: CommonRequestOptions): AsyncGenerator<Lender, void, undefined> {
    return this.client.paginate('/v1/lenders', { per_page: 100 }, options);
  }

  /** Adds a name (kind mca by default); it wins over the directory from the next analysis or rescore of a deal. */
  async create(body: CreateLender, options?: CommonRequestOptions): Promise<Lender> {
    return (await this.client.POST('/v1/lenders', { ...options, body })).data;
  }

  async get(lenderId: number, options?: CommonRequestOptions): Promise<Lender> {
    return (await this.client.GET('/v1/lenders/{lender_id}', { ...options, params: id(lenderId) })).data;
  }

  /** Changes the given fields (`aliases` replaces the list). */
  async update(lenderId: number, patch: UpdateLender, options?: CommonRequestOptions): Promise<Lender> {
    return (await this.client.PATCH('/v1/lenders/{lender_id}', { ...options, params: id(lenderId), body: patch })).data;
  }

  async delete(lenderId: number, options?: CommonRequestOptions): Promise<Ack> {
    return (await this.client.DELETE('/v1/lenders/{lender_id}', { ...options, params: id(lenderId) })).data;
  }
}
