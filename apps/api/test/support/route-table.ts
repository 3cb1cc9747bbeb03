import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { ModulesContainer, Reflector } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { PUBLIC_ROUTE, REQUIRED_SCOPE } from '../../src/platform/auth/decorators';

export interface RouteInfo {
  method: string;
  /** Fastify form: `/v1/deals/:deal_id` */
  path: string;
  params: string[];
  /** The scope @Authenticated() names; null on @Public() routes. */
  scope: string | null;
  isPublic: boolean;
}

const joinPath = (...parts: string[]) =>
  '/' +
  parts
    .flatMap((p) => p.split('/'))
    .filter(Boolean)
    .join('/');
const paramsOf = (path: string) => [...path.matchAll(/:(\w+)/g)].map((m) => m[1]);

/** Every route the running app serves through a Nest controller, read from Nest's own metadata. */
export function nestRoutes(app: NestFastifyApplication): RouteInfo[] {
  const reflector = new Reflector();
  const routes: RouteInfo[] = [];
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as (new (...args: unknown[]) => unknown) | null;
      if (!controller) continue;
      const bases = [Reflect.getMetadata(PATH_METADATA, controller) ?? ''].flat() as string[];
      for (const name of Object.getOwnPropertyNames(controller.prototype)) {
        const handler = (controller.prototype as Record<string, unknown>)[name];
        if (name === 'constructor' || typeof handler !== 'function') continue;
        const paths = Reflect.getMetadata(PATH_METADATA, handler) as string | string[] | undefined;
        const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
        if (paths === undefined || method === undefined) continue;
        const targets = [handler, controller];
        const isPublic = !!reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, targets);
        const scope = isPublic ? null : (reflector.getAllAndOverride<string>(REQUIRED_SCOPE, targets) ?? null);
        for (const base of bases) {
          for (const sub of [paths].flat()) {
            const path = joinPath(base, sub);
            routes.push({ method: RequestMethod[method], path, params: paramsOf(path), scope, isPublic });
          }
        }
      }
    }
  }
  return routes;
}

/**
 * Every (method, path) in Fastify's router, parsed from `printRoutes()`: catches a route added
 * outside a Nest controller (a plugin, a raw handler), which the Nest table would not show.
 */
export function fastifyRoutes(app: NestFastifyApplication): { method: string; path: string; alternatives: string[] }[] {
  const tree = app.getHttpAdapter().getInstance().printRoutes({ commonPrefix: false });
  const stack: string[] = [];
  const routes: { method: string; path: string; alternatives: string[] }[] = [];
  for (const line of tree.split('\n')) {
    const match = /^(.*?)(?:├── |└── )(.+?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!match) continue;
    const depth = [...match[1]].length / 4;
    stack.length = depth;
    stack.push(match[2]);
    const path = stack.join('');
    // Fastify prints one node for routes that differ only in a parameter's name (`:share_id|:token`,
    // one name per method): each spelling is a candidate, matched against the Nest table.
    const alternatives = expand(path);
    for (const method of match[3]?.split(', ') ?? [])
      if (method !== 'HEAD' && method !== 'OPTIONS') for (const alt of alternatives) routes.push({ method, path: alt, alternatives });
  }
  return routes;
}

/** `/a/:x|:y/b` -> [`/a/:x/b`, `/a/:y/b`]; a path without alternatives as it is. */
function expand(path: string): string[] {
  if (!path.includes('|')) return [path];
  return path
    .split('/')
    .map((segment) => segment.split('|'))
    .reduce<string[]>((acc, options) => acc.flatMap((prefix) => options.map((o) => `${prefix}/${o}`)), [''])
    .map((p) => p.replace(/^\/\//, '/'));
}
