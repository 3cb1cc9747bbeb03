import { Module } from '@nestjs/common';
import { StreamController } from './stream.controller';
import { StreamService } from './stream.service';

/** The SSE event stream (`/v1/events/stream`, `/v1/events/deals/{id}`). */
@Module({ controllers: [StreamController], providers: [StreamService], exports: [StreamService] })
export class StreamModule {}
