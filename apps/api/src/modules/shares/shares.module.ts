import { Module } from '@nestjs/common';
import { PipelineModule } from '../pipeline/pipeline.module';
import { SharePageController } from './share-page.controller';
import { SharesController } from './shares.controller';
import { SharesService } from './shares.service';

/** Read-only share links of a deal: management API, public JSON view and the human page. */
@Module({
  imports: [PipelineModule],
  controllers: [SharesController, SharePageController],
  providers: [SharesService],
})
export class SharesModule {}
