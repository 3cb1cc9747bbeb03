import { createServer, Server } from 'node:http';
import { AppConfig } from '../config/config';
import { toEnvelope } from '../errors/error.filter';
import { ApiError } from '../errors/api-error';
import { Metrics } from './metrics';
import { metricsAccess } from './metrics-access';

/**
 * METRICS_PORT: a tiny plain-HTTP listener serving only GET /metrics, so that every process,
 * including a worker (no API port), can be scraped. Resolves with the port it listens on.
 */
export async function startMetricsListener(config: AppConfig, metrics: Metrics): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => {
    const send = (err: ApiError) => {
      const { status, body } = toEnvelope(err);
      res
        .writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'X-Content-Type-Options': 'nosniff' })
        .end(JSON.stringify(body));
    };
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) return send(ApiError.notFound('Route'));
    const refused = metricsAccess(config, req.headers.authorization, 'metrics_port');
    if (refused) return send(refused);
    metrics.text().then(
      (text) =>
        res
          .writeHead(200, { 'Content-Type': metrics.contentType, 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' })
          .end(req.method === 'HEAD' ? undefined : text),
      (err: Error) => {
        res
          .writeHead(500, { 'Content-Type': 'text/plain', 'X-Content-Type-Options': 'nosniff' })
          .end(`metrics collection failed: ${err.message}\n`);
      },
    );
  });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.metrics.port ?? 0, config.metrics.host, () => resolve());
  });
  return { server, port: (server.address() as { port: number }).port };
}

export async function stopMetricsListener(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}
