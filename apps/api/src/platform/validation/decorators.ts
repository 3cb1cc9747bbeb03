import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, ApiPropertyOptions } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsISO8601,
  IsNumber,
  IsOptional,
  IsPositive,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateIf,
} from 'class-validator';

/**
 * One decorator both validates and documents a field, so the OpenAPI schema and validation cannot
 * drift (docs/architecture.md, "Where each rule lives": validation). `nullable` lets an explicit null
 * through (PATCH clearing a field).
 */
interface Common {
  optional?: boolean;
  nullable?: boolean;
  description?: string;
  example?: unknown;
}

function presence({ optional, nullable }: Common): PropertyDecorator[] {
  if (optional && nullable) return [IsOptional()];
  if (optional) return [ValidateIf((_, v) => v !== undefined)];
  if (nullable) return [ValidateIf((_, v) => v !== null)];
  return [];
}

function doc(options: Common, extra: ApiPropertyOptions): PropertyDecorator {
  const base = {
    description: options.description,
    example: options.example,
    nullable: options.nullable || undefined,
    ...extra,
  } as ApiPropertyOptions;
  return options.optional ? ApiPropertyOptional(base) : ApiProperty(base);
}

export function ValidateString(
  options: Common & { maxLength?: number; minLength?: number; pattern?: RegExp; patternMessage?: string } = {},
): PropertyDecorator {
  const decorators = [...presence(options), IsString()];
  if (options.minLength !== undefined) decorators.push(MinLength(options.minLength));
  if (options.maxLength !== undefined) decorators.push(MaxLength(options.maxLength));
  if (options.pattern) decorators.push(Matches(options.pattern, { message: options.patternMessage }));
  return applyDecorators(
    ...decorators,
    doc(options, { type: String, maxLength: options.maxLength, minLength: options.minLength, pattern: options.pattern?.source }),
  );
}

export function ValidateEnum<T extends string>(values: readonly T[], options: Common & { enumName?: string } = {}): PropertyDecorator {
  return applyDecorators(
    ...presence(options),
    IsIn(values as T[], { message: `$property must be one of: ${values.join(', ')}` }),
    doc(options, { enum: options.nullable ? [...values, null] : (values as T[]), enumName: options.enumName }),
  );
}

export function ValidateNumber(options: Common & { min?: number; max?: number; positive?: boolean } = {}): PropertyDecorator {
  const decorators = [...presence(options), IsNumber({ allowNaN: false, allowInfinity: false })];
  if (options.positive) decorators.push(IsPositive({ message: '$property must be greater than 0' }));
  if (options.min !== undefined) decorators.push(Min(options.min));
  if (options.max !== undefined) decorators.push(Max(options.max));
  const extra: ApiPropertyOptions = { type: Number, minimum: options.positive ? 0 : options.min, maximum: options.max };
  if (options.positive) Object.assign(extra, { exclusiveMinimum: true });
  return applyDecorators(...decorators, doc(options, extra));
}

export function ValidateInt(options: Common & { min?: number; max?: number; query?: boolean } = {}): PropertyDecorator {
  const decorators = [...presence(options), IsInt()];
  if (options.query)
    decorators.unshift(Transform(({ value }) => (typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value)));
  if (options.min !== undefined) decorators.push(Min(options.min));
  if (options.max !== undefined) decorators.push(Max(options.max));
  return applyDecorators(...decorators, doc(options, { type: 'integer', minimum: options.min, maximum: options.max }));
}

export function ValidateBoolean(options: Common & { query?: boolean } = {}): PropertyDecorator {
  const decorators = [...presence(options), IsBoolean()];
  if (options.query) decorators.unshift(Transform(({ value }) => (value === 'true' ? true : value === 'false' ? false : value)));
  return applyDecorators(...decorators, doc(options, { type: Boolean }));
}

export function ValidateDateTime(options: Common = {}): PropertyDecorator {
  return applyDecorators(
    ...presence(options),
    IsISO8601({ strict: true }),
    Type(() => String),
    doc(options, { type: String, format: 'date-time' }),
  );
}

const toIntList = ({ value }: { value: unknown }): unknown => {
  if (value === undefined) return undefined;
  const parts = (Array.isArray(value) ? value : [value]).flatMap((v) => (typeof v === 'string' ? v.split(',') : [v]));
  return parts.map((v) => (typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : v));
};

/** An optional list of positive ids in the query: the parameter repeated (`ids=1&ids=2`) or comma-separated. */
export function IntListQuery(name: string, maxItems: number, description: string): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ type: 'array', items: { type: 'integer', minimum: 1 }, maxItems, description }),
    Transform(toIntList),
    ValidateIf((_, v) => v !== undefined),
    IsArray(),
    ArrayMaxSize(maxItems),
    IsInt({ each: true, message: `each value in ${name} must be a positive integer` }),
    Min(1, { each: true, message: `each value in ${name} must be a positive integer` }),
    Max(2147483647, { each: true }),
  );
}
