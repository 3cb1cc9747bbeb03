import { Controller, Get, Headers, Inject, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Public } from '../auth/decorators';
import { APP_CONFIG, AppConfig } from '../config/config';
import { Metrics } from './metrics';
import { metricsAccess } from './metrics-access';

/** Prometheus text exposition of this process (an operational endpoint like /health: not in the API reference). */
@ApiExcludeController()
@Controller()
export class MetricsController {
  constructor(
    private readonly metrics: Metrics,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get('metrics')
  @Public()
  async scrape(@Headers('authorization') authorization: string | undefined, @Res({ passthrough: true }) reply: FastifyReply) {
    const refused = metricsAccess(this.config, authorization, 'api');
    if (refused) throw refused;
    const text = await this.metrics.text();
    reply.header('Content-Type', this.metrics.contentType).header('Cache-Control', 'no-store');
    return text;
  }
}
