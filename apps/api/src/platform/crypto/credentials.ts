import { hash, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

// Credential helpers shared by auth (passwords, sessions, OAuth), keys (API keys) and shares (link
// passwords): hashing and random tokens, nothing of any module.

/** Passwords: scrypt (N=2^15, r=8, p=1), stored as `scrypt$N$r$p$salt$hash`. */
const SCRYPT = { N: 1 << 15, r: 8, p: 1, keylen: 32, maxmem: 64 * 1024 * 1024 };

function scryptAsync(password: string, salt: Buffer, params: { N: number; r: number; p: number }): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password, salt, SCRYPT.keylen, { ...params, maxmem: SCRYPT.maxmem }, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scryptAsync(password, salt, SCRYPT);
  return ['scrypt', SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString('base64'), hash.toString('base64')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await scryptAsync(password, Buffer.from(salt, 'base64'), { N: Number(n), r: Number(r), p: Number(p) });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** A burned-in hash to compare against when the user does not exist, so timing does not reveal emails. */
export const DUMMY_PASSWORD_HASH = 'scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=';

/** SHA-256 for high-entropy secrets (API keys, tokens, client secrets): a lookup by hash, no KDF needed. */
export function sha256(value: string): string {
  // crypto.hash (every Node the engines field allows): one call, no Hash object; on every authenticated request
  return hash('sha256', value, 'hex');
}

export function randomToken(bytes = 24): string {
  return randomBytes(bytes).toString('base64url');
}
