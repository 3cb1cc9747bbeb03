import type { FastifyInstance } from 'fastify';
import { Metrics } from './metrics';

/** Counts every answered request by its route template (`/v1/deals/:deal_id`), never by its URL. */
export function installHttpMetrics(fastify: FastifyInstance, metrics: Metrics): void {
  // a callback hook, not an async one: no promise per response
  fastify.addHook('onResponse', (request, reply, done) => {
    metrics.httpRequest(request.method, request.routeOptions.url, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
}
