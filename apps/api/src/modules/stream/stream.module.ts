import { Module } from '@nestjs/common';
import { PipelineModule } from '../pipeline/pipeline.module';
import { StreamController } from './stream.controller';
import { StreamService } from './stream.service';

/** The SSE event stream (`/v1/events/stream`, `/v1/events/deals/{id}`). */
@Module({ imports: [PipelineModule], controllers: [StreamController], providers: [StreamService], exports: [StreamService] })
export class StreamModule {}
