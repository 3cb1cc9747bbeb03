import { ArgumentMetadata, Injectable, PipeTransform } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validate, ValidationError } from 'class-validator';
import { ApiError, validationEntry, ValidationEntry } from '../errors/api-error';

const SOURCES = { body: 'body', query: 'query', param: 'path', custom: 'body' } as const;
const PRIMITIVES: unknown[] = [String, Boolean, Number, Array, Object];

/**
 * Global validation: transforms to the DTO class, strips unknown properties, and reports every
 * problem as {loc, msg, type, field, message} with loc[0] the request part (body/query/path).
 */
@Injectable()
export class ApiValidationPipe implements PipeTransform {
  // Not async: a path id or the auth context is returned as it is, without a promise per parameter;
  // only a DTO to validate returns one.
  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    const { metatype, type } = metadata;
    const source = SOURCES[type] ?? 'body';
    const nul = type === 'custom' ? null : findNul(value, metadata.data ? [metadata.data] : []);
    if (nul)
      throw ApiError.validation([
        nul.surrogate
          ? validationEntry(source, nul.path, 'must be valid Unicode (an unpaired surrogate such as \\ud800)', 'value_error.str.surrogate')
          : validationEntry(source, nul.path, 'must not contain the NUL character (\\u0000)', 'value_error.str.nul'),
      ]);
    const reserved = type === 'body' ? findReservedKey(value, []) : null;
    if (reserved)
      throw ApiError.validation([
        validationEntry(source, reserved, `${String(reserved[reserved.length - 1])} is not an accepted field name`, 'value_error.extra'),
      ]);
    if (!metatype || PRIMITIVES.includes(metatype)) return value;
    if (type === 'body' && (value === undefined || value === null || typeof value !== 'object' || Array.isArray(value))) {
      throw ApiError.validation([validationEntry('body', [], 'Request body must be a JSON object', 'type_error.object')]);
    }
    return this.validated(metatype, value, source);
  }

  private async validated(
    metatype: NonNullable<ArgumentMetadata['metatype']>,
    value: unknown,
    source: 'body' | 'query' | 'path',
  ): Promise<unknown> {
    const { instance, problems } = await validateDto(metatype as new () => object, value, source);
    if (problems.length) throw ApiError.validation(problems);
    return instance;
  }
}

/**
 * The pipe's DTO validation, returning the problems instead of throwing: for a route that adds
 * its own rules (a policy needing a service) and reports them in the same 422 as the DTO's.
 */
export async function validateDto<T extends object>(
  metatype: new () => T,
  value: unknown,
  source: 'body' | 'query' | 'path',
): Promise<{ instance: T; problems: ValidationEntry[] }> {
  const instance = plainToInstance(metatype, value ?? {}, { enableImplicitConversion: false, exposeDefaultValues: true });
  const errors = await validate(instance, { whitelist: true, forbidUnknownValues: false, validationError: { target: false } });
  return { instance, problems: errors.length ? flatten(errors, source, []) : [] };
}

const RESERVED_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * The path to a key that object machinery gives a meaning (`constructor` inside a nested object
 * makes class-transformer read it as the object's class and throw): refused as a field name.
 */
function findReservedKey(value: unknown, path: (string | number)[]): (string | number)[] | null {
  if (!value || typeof value !== 'object' || path.length > 32) return null;
  for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
    const at = [...path, Array.isArray(value) ? Number(key) : key];
    if (!Array.isArray(value) && RESERVED_KEYS.has(key)) return at;
    const deeper = findReservedKey(child, at);
    if (deeper) return deeper;
  }
  return null;
}

const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * The path to the first string (or key) holding U+0000 or an unpaired surrogate (JSON `"\ud800"`),
 * which PostgreSQL cannot store in text: checked here, for every body, query and path value of
 * every route, so it is a 422 and never a driver error.
 */
function findNul(value: unknown, root: (string | number)[]): { path: (string | number)[]; surrogate: boolean } | null {
  const stack: { value: unknown; path: (string | number)[] }[] = [{ value, path: root }];
  while (stack.length) {
    const { value: v, path } = stack.pop()!;
    if (typeof v === 'string') {
      if (v.includes('\u0000')) return { path, surrogate: false };
      if (UNPAIRED_SURROGATE.test(v)) return { path, surrogate: true };
    } else if (Array.isArray(v)) {
      v.forEach((item, i) => stack.push({ value: item, path: [...path, i] }));
    } else if (v && typeof v === 'object') {
      for (const [key, item] of Object.entries(v as Record<string, unknown>)) {
        if (key.includes('\u0000')) return { path: [...path, key.split('\u0000').join('\\u0000')], surrogate: false };
        if (UNPAIRED_SURROGATE.test(key))
          return { path: [...path, key.replace(new RegExp(UNPAIRED_SURROGATE, 'g'), '\uFFFD')], surrogate: true };
        stack.push({ value: item, path: [...path, key] });
      }
    }
  }
  return null;
}

export function flatten(errors: ValidationError[], source: 'body' | 'query' | 'path', parent: (string | number)[]): ValidationEntry[] {
  const out: ValidationEntry[] = [];
  for (const e of errors) {
    const key = /^\d+$/.test(e.property) ? Number(e.property) : e.property;
    const path = [...parent, key];
    for (const [constraint, msg] of Object.entries(e.constraints ?? {})) {
      out.push(validationEntry(source, path, msg, constraintType(constraint)));
    }
    if (e.children?.length) out.push(...flatten(e.children, source, path));
  }
  return out;
}

function constraintType(constraint: string): string {
  const map: Record<string, string> = {
    isDefined: 'value_error.missing',
    isNotEmpty: 'value_error.missing',
    isString: 'type_error.str',
    isInt: 'type_error.integer',
    isNumber: 'type_error.number',
    isBoolean: 'type_error.bool',
    isArray: 'type_error.list',
    isIn: 'value_error.enum',
    isEnum: 'value_error.enum',
    maxLength: 'value_error.any_str.max_length',
    minLength: 'value_error.any_str.min_length',
    matches: 'value_error.str.regex',
    min: 'value_error.number.not_ge',
    max: 'value_error.number.not_le',
    isPositive: 'value_error.number.not_gt',
    arrayMaxSize: 'value_error.list.max_items',
    arrayMinSize: 'value_error.list.min_items',
    isDateString: 'value_error.datetime',
    isISO8601: 'value_error.datetime',
    whitelistValidation: 'value_error.extra',
  };
  return map[constraint] ?? `value_error.${constraint}`;
}
