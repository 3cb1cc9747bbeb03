import { Module } from '@nestjs/common';
import { PipelineModule } from '../pipeline/pipeline.module';
import { AssignmentsService } from './assignments.service';
import { CollaborationFeed } from './collaboration-feed.service';
import { AssignmentsController, CommentsController, DocumentRequestsController } from './collaboration.controller';
import { CommentsService } from './comments.service';
import { DocumentRequestsService } from './document-requests.service';
import { TimelineController } from './timeline.controller';
import { TimelineService } from './timeline.service';

@Module({
  imports: [PipelineModule],
  controllers: [AssignmentsController, CommentsController, DocumentRequestsController, TimelineController],
  providers: [AssignmentsService, CommentsService, DocumentRequestsService, TimelineService, CollaborationFeed],
  exports: [CollaborationFeed],
})
export class CollaborationModule {}
