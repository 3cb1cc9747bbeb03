import { Filter } from '@mikro-orm/core';

/**
 * Organization and live/test scoping, applied in one place: entities carry `@TenantScoped()`
 * (organization + mode) or `@OrgScoped()` (organization only). The filters are on by default and
 * need their parameters, so a query on an entity manager that was not opened for a caller fails
 * loudly instead of leaking another organization's rows. `Database.forScope()` sets them.
 */
export const TENANT_FILTER = 'tenant';
export const ORG_FILTER = 'org';

export interface Scope {
  organizationId: number;
  livemode: boolean;
}

export function TenantScoped(): ClassDecorator {
  return Filter({
    name: TENANT_FILTER,
    cond: (args: Scope) => ({ organizationId: args.organizationId, livemode: args.livemode }),
    default: true,
  }) as ClassDecorator;
}

export function OrgScoped(): ClassDecorator {
  return Filter({ name: ORG_FILTER, cond: (args: Scope) => ({ organizationId: args.organizationId }), default: true }) as ClassDecorator;
}

/** The columns a new scoped row gets from its creator's scope. */
export function scopeFields(scope: Scope): { organizationId: number; livemode: boolean } {
  return { organizationId: scope.organizationId, livemode: scope.livemode };
}
