import { Module } from '@nestjs/common';
import { AssignmentsService } from './assignments.service';
import { CollaborationFeed } from './collaboration-feed.service';
import { AssignmentsController, CommentsController, DocumentRequestsController } from './collaboration.controller';
import { CommentsService } from './comments.service';
import { DocumentRequestsService } from './document-requests.service';
import { TimelineController } from './timeline.controller';
import { TimelineService } from './timeline.service';

@Module({
  controllers: [AssignmentsController, CommentsController, DocumentRequestsController, TimelineController],
  providers: [AssignmentsService, CommentsService, DocumentRequestsService, TimelineService, CollaborationFeed],
  exports: [CollaborationFeed],
})
export class CollaborationModule {}
