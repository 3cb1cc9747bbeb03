import { AuthContext } from './auth-context';
import { CredentialCache } from './credential-cache';

const auth = (id: number): AuthContext => ({
  organizationId: 1,
  livemode: true,
  userId: null,
  role: null,
  credential: { type: 'api_key', id },
  scopes: ['read'],
  actor: `api_key:${id}`,
});

describe('CredentialCache', () => {
  let now = 1_000_000;
  const clock = () => now;

  it('reuses a resolved key for the TTL only', () => {
    const cache = new CredentialCache(5000, clock);
    cache.set('h1', auth(1), null, now);
    now += 4999;
    expect(cache.get('h1')?.auth.credential.id).toBe(1);
    now += 1;
    expect(cache.get('h1')).toBeNull();
  });

  it("never outlives the key's own expiry", () => {
    const cache = new CredentialCache(5000, clock);
    cache.set('h2', auth(2), new Date(now + 1000), now);
    now += 1000;
    expect(cache.get('h2')).toBeNull();
  });

  it('forgets a revoked or rotated key at once, under every hash it was cached by', () => {
    const cache = new CredentialCache(5000, clock);
    cache.set('old', auth(3), null, now);
    cache.set('new', auth(3), null, now);
    cache.set('other', auth(4), null, now);
    cache.forget('api_key', 3);
    expect([cache.get('old'), cache.get('new'), cache.get('other')?.auth.credential.id]).toEqual([null, null, 4]);
  });

  it('caches nothing with a TTL of 0', () => {
    const cache = new CredentialCache(0, clock);
    cache.set('h', auth(5), null, now);
    expect(cache.get('h')).toBeNull();
  });
});
