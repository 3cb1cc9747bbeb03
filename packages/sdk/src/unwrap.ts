/**
 * One shape: an operation whose answer wraps one resource in `{data: {...}}` (the webhook and
 * CRM configuration, a delivery, an ingest batch, ...) gives the resource itself from the SDK's
 * methods, like every other operation. Lists keep their `{data: [...], meta}`.
 */
export type Unwrapped<T> = T extends { data: infer D }
  ? [Exclude<keyof T, 'data'>] extends [never]
    ? D extends readonly unknown[]
      ? T
      : D
    : T
  : T;

/** `{data: {...}}` (that key only, an object) -> the object; anything else as it is. */
export function unwrap<T>(body: T): Unwrapped<T> {
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    const keys = Object.keys(body);
    const inner = (body as { data?: unknown }).data;
    if (keys.length === 1 && keys[0] === 'data' && inner && typeof inner === 'object' && !Array.isArray(inner))
      return inner as Unwrapped<T>;
  }
  return body as Unwrapped<T>;
}
