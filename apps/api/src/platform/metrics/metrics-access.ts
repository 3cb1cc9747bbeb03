import { timingSafeEqual } from 'node:crypto';
import { AppConfig } from '../config/config';
import { ApiError, ErrorCode } from '../errors/api-error';

/**
 * Who may read /metrics (aggregates only, never per organization). With METRICS_TOKEN set, every
 * listener wants `Authorization: Bearer <token>`. Without it, the METRICS_PORT listener answers
 * anyone who can reach its address (loopback by default), and the API port serves /metrics
 * outside production only: a production API port is public behind the proxy.
 */
export function metricsAccess(config: AppConfig, authorization: string | undefined, listener: 'api' | 'metrics_port'): ApiError | null {
  const token = config.metrics.token;
  if (token === null) {
    if (listener === 'api' && config.nodeEnv === 'production')
      return new ApiError(
        ErrorCode.FORBIDDEN,
        '/metrics on the API port needs METRICS_TOKEN in production (or scrape the METRICS_PORT listener)',
      );
    return null;
  }
  const presented = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
  if (!presented) return new ApiError(ErrorCode.AUTH_REQUIRED, '/metrics needs Authorization: Bearer <METRICS_TOKEN>');
  const a = Buffer.from(presented);
  const b = Buffer.from(token);
  if (a.length !== b.length || !timingSafeEqual(a, b)) return new ApiError(ErrorCode.INVALID_CREDENTIALS, 'Invalid metrics token');
  return null;
}
