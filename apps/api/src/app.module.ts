import { DynamicModule, Module } from '@nestjs/common';
import { PlatformModule, PlatformResources } from './platform/platform.module';
import { AuthModule } from './modules/auth/auth.module';
import { KeysModule } from './modules/keys/keys.module';
import { DealsModule } from './modules/deals/deals.module';

@Module({})
export class AppModule {
  static forRoot(resources: PlatformResources): DynamicModule {
    return { module: AppModule, imports: [PlatformModule.forRoot(resources), AuthModule, KeysModule, DealsModule] };
  }
}
