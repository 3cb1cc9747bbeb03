import { Module } from '@nestjs/common';
import { PipelineModule } from '../pipeline/pipeline.module';
import { CrmHttp } from './adapters/crm-http';
import { CrmConfigService } from './crm-config.service';
import { CrmController } from './crm.controller';
import { CrmInboundService } from './crm-inbound.service';
import { CrmSyncService } from './crm-sync.service';

/** CRM sync: Salesforce, HubSpot, Pipedrive and custom adapters behind one port; config, mappings, sync, inbound webhooks. */
@Module({
  imports: [PipelineModule],
  controllers: [CrmController],
  providers: [CrmHttp, CrmConfigService, CrmSyncService, CrmInboundService],
  exports: [CrmSyncService, CrmHttp],
})
export class CrmModule {}
