import { Module } from '@nestjs/common';
import { DealsModule } from '../deals/deals.module';
import { TransactionsController } from './transactions.controller';
import { TransactionsService } from './transactions.service';

@Module({ imports: [DealsModule], controllers: [TransactionsController], providers: [TransactionsService] })
export class TransactionsModule {}
