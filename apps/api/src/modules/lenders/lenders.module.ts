import { Module } from '@nestjs/common';
import { LendersController } from './lenders.controller';
import { LendersService } from './lenders.service';

/**
 * Lenders: the organization's own lender names, on top of the directory shipped with
 * @ledgerlens/underwriting. The pipeline passes them to the deal analysis (LendersService.entriesFor).
 */
@Module({
  controllers: [LendersController],
  providers: [LendersService],
  exports: [LendersService],
})
export class LendersModule {}
