import type { FastifyInstance } from 'fastify';
import { Metrics } from './metrics';

/** Counts every answered request by its route template (`/v1/deals/:deal_id`), never by its URL. */
export function installHttpMetrics(fastify: FastifyInstance, metrics: Metrics): void {
  fastify.addHook('onResponse', async (request, reply) => {
    metrics.httpRequest(request.method, request.routeOptions.url, reply.statusCode, reply.elapsedTime / 1000);
  });
}
