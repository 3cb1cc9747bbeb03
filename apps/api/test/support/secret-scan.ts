import { createHash } from 'node:crypto';
import { Writable } from 'node:stream';

/** Shapes of every secret the service issues or stores, whatever its value. */
export const SECRET_PATTERNS: [string, RegExp][] = [
  ['API key', /\b[A-Za-z0-9]{1,12}_(?:live|test)_[A-Za-z0-9_-]{16,}/g],
  ['session token', /\bsess_[A-Za-z0-9_-]{16,}/g],
  ['OAuth access token', /\boat_[A-Za-z0-9_-]{16,}/g],
  ['OAuth client secret', /\bcs_[A-Za-z0-9_-]{16,}/g],
  ['share link token', /\bshr_[A-Za-z0-9_-]{16,}/g],
  ['SHA-256 hash (key, token or secret hash)', /\b[0-9a-f]{64}\b/g],
  ['password hash', /scrypt\$\d+\$/g],
];

export const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

/**
 * Every place a log text shows a secret: a known value (a key, a password, its hash) or anything
 * shaped like one. Returns readable findings with some context, empty when the text is clean.
 */
export function findSecrets(text: string, known: string[] = []): string[] {
  const findings: string[] = [];
  const around = (at: number) => JSON.stringify(text.slice(Math.max(0, at - 80), at + 80));
  for (const value of new Set(known.filter((v) => v && v.length >= 6))) {
    for (const candidate of [value, sha256(value)]) {
      const at = text.indexOf(candidate);
      if (at !== -1) findings.push(`known secret ${candidate.slice(0, 10)}... at ${around(at)}`);
    }
  }
  for (const [name, pattern] of SECRET_PATTERNS) {
    for (const match of text.matchAll(pattern)) findings.push(`${name} ${match[0].slice(0, 14)}... at ${around(match.index ?? 0)}`);
  }
  return findings;
}

/** A pino destination that keeps what the app logs, for tests that read the logs back. */
export class LogCapture extends Writable {
  private readonly chunks: string[] = [];

  override _write(chunk: Buffer | string, _encoding: BufferEncoding, callback: () => void): void {
    this.chunks.push(chunk.toString());
    callback();
  }

  get text(): string {
    return this.chunks.join('');
  }

  get lines(): Record<string, unknown>[] {
    return this.text
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  }
}
