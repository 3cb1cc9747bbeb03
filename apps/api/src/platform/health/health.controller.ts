import { Controller, Get, Inject, Optional } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Redis } from 'ioredis';
import { Public } from '../auth/decorators';
import { Database } from '../database/database.service';
import { ApiError, ErrorCode } from '../errors/api-error';
import { REDIS } from '../redis/redis';
import { HttpDrain } from '../http/drain';

/** Liveness (`/health`: the process answers) and readiness (`/ready`: its database and Redis answer). */
@ApiExcludeController()
@Controller()
export class HealthController {
  constructor(
    private readonly db: Database,
    private readonly drain: HttpDrain,
    @Optional() @Inject(REDIS) private readonly redis: Redis | null,
  ) {}

  @Get('health')
  @Public()
  health() {
    return { status: 'ok' };
  }

  @Get('ready')
  @Public()
  async ready() {
    // stopping (SIGTERM): out of the load balancer's rotation while requests in flight finish
    if (this.drain.draining) throw new ApiError(ErrorCode.SERVICE_UNAVAILABLE, 'Not ready: shutting down');
    const checks: Record<string, string> = {};
    try {
      await this.db.ping();
      checks.database = 'ok';
    } catch (err) {
      checks.database = `error: ${(err as Error).message}`;
    }
    if (this.redis) {
      try {
        await this.redis.ping();
        checks.redis = 'ok';
      } catch (err) {
        checks.redis = `error: ${(err as Error).message}`;
      }
    }
    if (Object.values(checks).some((v) => v !== 'ok')) {
      throw new ApiError(ErrorCode.SERVICE_UNAVAILABLE, `Not ready: ${JSON.stringify(checks)}`);
    }
    return { status: 'ok', checks };
  }
}
