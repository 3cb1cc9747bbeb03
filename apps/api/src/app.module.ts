import { DynamicModule, Module } from '@nestjs/common';
import { PlatformModule, PlatformResources } from './platform/platform.module';
import { AuthModule } from './modules/auth/auth.module';
import { KeysModule } from './modules/keys/keys.module';
import { PipelineModule } from './modules/pipeline/pipeline.module';
import { RulesetsModule } from './modules/rulesets/rulesets.module';
import { LendersModule } from './modules/lenders/lenders.module';
import { WebhooksModule } from './modules/webhooks/webhooks.module';
import { StreamModule } from './modules/stream/stream.module';
import { SharesModule } from './modules/shares/shares.module';
import { ExportsModule } from './modules/exports/exports.module';
import { CrmModule } from './modules/crm/crm.module';
import { UsageModule } from './modules/usage/usage.module';
import { CollaborationModule } from './modules/collaboration/collaboration.module';
import { IngestModule } from './modules/ingest/ingest.module';

@Module({})
export class AppModule {
  static forRoot(resources: PlatformResources): DynamicModule {
    return {
      module: AppModule,
      imports: [
        PlatformModule.forRoot(resources),
        AuthModule,
        KeysModule,
        RulesetsModule,
        LendersModule,
        PipelineModule,
        WebhooksModule,
        StreamModule,
        SharesModule,
        ExportsModule,
        CrmModule,
        UsageModule,
        CollaborationModule,
        IngestModule,
      ],
    };
  }
}
