import { Module } from '@nestjs/common';
import { Authenticator } from '../../platform/auth/authenticator';
import { KeysModule } from '../keys/keys.module';
import { AuthController } from './auth.controller';
import { AuthService } from './auth.service';
import { ProvisioningService } from './provisioning.service';
import { UsersController } from './users.controller';
import { UsersService } from './users.service';

@Module({
  imports: [KeysModule],
  controllers: [AuthController, UsersController],
  providers: [AuthService, ProvisioningService, UsersService, { provide: Authenticator, useExisting: AuthService }],
  exports: [Authenticator, ProvisioningService],
})
export class AuthModule {}
