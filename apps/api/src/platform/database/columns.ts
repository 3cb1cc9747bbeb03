import { DecimalType, Property, PropertyOptions } from '@mikro-orm/core';

/** Column helpers: explicit types, because reflected metadata cannot see through `T | null`. */
function prop(options: PropertyOptions<object>): PropertyDecorator {
  const defined = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined));
  return Property(defined) as PropertyDecorator;
}

export const Timestamp = (opts: { nullable?: boolean } = {}) => prop({ type: 'Date', columnType: 'timestamptz', nullable: opts.nullable });

export const Money = (opts: { nullable?: boolean } = {}) =>
  prop({ type: new DecimalType('number'), columnType: 'numeric(16,2)', nullable: opts.nullable });

export const Text = (opts: { nullable?: boolean; length?: number; unique?: boolean } = {}) =>
  prop({ type: 'string', columnType: opts.length ? `varchar(${opts.length})` : 'text', nullable: opts.nullable, unique: opts.unique });

export const Int = (opts: { nullable?: boolean; default?: number } = {}) =>
  prop({ type: 'integer', nullable: opts.nullable, default: opts.default });

export const Bool = (opts: { default?: boolean; nullable?: boolean } = {}) =>
  prop({ type: 'boolean', default: opts.default, nullable: opts.nullable });

export const Json = (opts: { nullable?: boolean } = {}) => prop({ type: 'json', columnType: 'jsonb', nullable: opts.nullable });

export const Double = (opts: { nullable?: boolean } = {}) => prop({ type: 'double', nullable: opts.nullable });
