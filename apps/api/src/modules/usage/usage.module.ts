import { Module } from '@nestjs/common';
import { UsageController } from './usage.controller';

/** GET /v1/usage/me and /api/v1/usage/me; the counting itself is platform (request hook, document creation). */
@Module({ controllers: [UsageController] })
export class UsageModule {}
