/** Who is calling, resolved once per request by the authentication hook. */
export type CredentialType = 'api_key' | 'session' | 'oauth';
export type Role = 'admin' | 'manager' | 'underwriter' | 'reviewer';

export interface AuthContext {
  organizationId: number;
  livemode: boolean;
  userId: number | null;
  role: Role | null;
  credential: { type: CredentialType; id: number };
  /** The scopes the credential was granted, in either vocabulary (`read`, `deals:read`, ...). */
  scopes: string[];
  /** Audit name of the caller: `user:12` or `api_key:3`. */
  actor: string;
}

/**
 * Fine scopes (spec Authentication, Form B). The coarse `read` grants every `*:read`, `write` every
 * `*:write`; `keys:manage` is granted by itself, or by `write` on an admin's credential
 * (README, "How the spec's variants became one API", key management scope).
 */
export const FINE_SCOPES = [
  'deals:read',
  'deals:write',
  'documents:read',
  'documents:write',
  'transactions:read',
  'transactions:write',
  'rulesets:read',
  'rulesets:write',
  'webhooks:read',
  'webhooks:write',
  'exports:read',
  'exports:write',
  'crm:read',
  'crm:write',
  'keys:manage',
] as const;
export const COARSE_SCOPES = ['read', 'write'] as const;
export const ALL_SCOPES: readonly string[] = [...COARSE_SCOPES, ...FINE_SCOPES];
export type RequiredScope = (typeof FINE_SCOPES)[number];

export function hasScope(auth: Pick<AuthContext, 'scopes' | 'role'>, required: RequiredScope): boolean {
  if (auth.scopes.includes(required)) return required !== 'keys:manage' || auth.role === 'admin' || auth.role === null;
  if (required === 'keys:manage') return auth.role === 'admin' && auth.scopes.includes('write');
  const [, action] = required.split(':');
  return auth.scopes.includes(action);
}

/** What a user's role allows a session (or a key they create) to do. */
export function roleScopes(role: Role): string[] {
  switch (role) {
    case 'admin':
      return ['read', 'write', 'keys:manage'];
    case 'manager':
    case 'underwriter':
      return ['read', 'write'];
    case 'reviewer':
      return ['read'];
  }
}

/**
 * A user's key can do no more than the user's role now allows: a key made by a manager who is now a
 * reviewer only reads. Fine scopes (`deals:write`) go with their action; `keys:manage` with admin.
 */
export function limitToRole(scopes: string[], role: Role): string[] {
  const allowed = roleScopes(role);
  return scopes.filter((s) => allowed.includes(s) || (s !== 'keys:manage' && s.includes(':') && allowed.includes(s.split(':')[1])));
}

/** The auth context every authenticated request carries, attached by the hook. */
declare module 'fastify' {
  interface FastifyRequest {
    auth?: AuthContext;
    authError?: Error;
  }
}
