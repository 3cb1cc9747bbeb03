import { AuthContext, CredentialType } from './auth-context';

interface Entry {
  auth: AuthContext;
  /** ms: the entry is not used after this (the TTL, or the credential's own expiry if sooner). */
  until: number;
  /** ms: when the credential's last-used time was last written. */
  touchedAt: number;
}

/**
 * Resolved credentials by hash, for a few seconds: an API key used for many requests is looked up
 * (two queries and an entity hydration) once per TTL instead of once per request. Revoking or
 * rotating a key forgets it at once in this process; other api replicas stop accepting it within
 * the TTL (AUTH_CACHE_SECONDS, 0 disables the cache).
 */
export class CredentialCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  get(hash: string): Entry | null {
    const entry = this.entries.get(hash);
    if (!entry) return null;
    if (entry.until <= this.now()) {
      this.entries.delete(hash);
      return null;
    }
    return entry;
  }

  set(hash: string, auth: AuthContext, expiresAt: Date | null, touchedAt: number): void {
    if (this.ttlMs <= 0) return;
    if (this.entries.size >= 10_000) this.entries.clear();
    const until = Math.min(this.now() + this.ttlMs, expiresAt ? expiresAt.getTime() : Infinity);
    this.entries.set(hash, { auth, until, touchedAt });
  }

  /** Every cached credential of a user (their role changed: the scopes follow at once in this process). */
  forgetUser(userId: number): void {
    for (const [hash, entry] of this.entries) if (entry.auth.userId === userId) this.entries.delete(hash);
  }

  forget(type: CredentialType, id: number): void {
    for (const [hash, entry] of this.entries)
      if (entry.auth.credential.type === type && entry.auth.credential.id === id) this.entries.delete(hash);
  }
}
