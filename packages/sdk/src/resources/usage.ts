import type { LedgerlensCore } from '../core.js';
import type { CommonRequestOptions, components } from '../types.js';

/** `client.usage`: requests and documents this month against the plan's limits. */
export class UsageResource {
  constructor(private readonly client: LedgerlensCore) {}

  async me(options?: CommonRequestOptions): Promise<components['schemas']['UsageDto']> {
    return (await this.client.GET('/v1/usage/me', options)).data;
  }
}
