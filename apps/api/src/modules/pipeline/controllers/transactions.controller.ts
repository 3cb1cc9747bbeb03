import { Body, Controller, Delete, Get, Patch, Post, Query } from '@nestjs/common';
import {
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiForbiddenResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { AuthContext } from '../../../platform/auth/auth-context';
import { Auth, Authenticated } from '../../../platform/auth/decorators';
import { ErrorEnvelopeDto } from '../../../platform/errors/error.dto';
import { IdParam } from '../../../platform/http/id-param';
import { TransactionsService } from '../services/transactions.service';
import {
  AddTransactionDto,
  CorrectionTrailDto,
  CorrectTransactionDto,
  DeletedTransactionDto,
  DeleteTransactionDto,
  TransactionDto,
  TransactionListDto,
  TransactionQueryDto,
} from '../dto/transaction.dto';

@ApiTags('Transactions')
@Controller('v1')
export class TransactionsController {
  constructor(private readonly transactions: TransactionsService) {}

  @Get('documents/:document_id/transactions')
  @Authenticated('transactions:read')
  @ApiOkResponse({ type: TransactionListDto })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto })
  @ApiConflictResponse({ type: ErrorEnvelopeDto, description: 'The document is not completed' })
  listDocumentTransactions(
    @Auth() auth: AuthContext,
    @IdParam('document_id') id: number,
    @Query() query: TransactionQueryDto,
  ): Promise<TransactionListDto> {
    return this.transactions.forDocument(auth, id, query);
  }

  @Get('deals/:deal_id/transactions')
  @Authenticated('transactions:read')
  @ApiOkResponse({ type: TransactionListDto })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto })
  listDealTransactions(
    @Auth() auth: AuthContext,
    @IdParam('deal_id') id: number,
    @Query() query: TransactionQueryDto,
  ): Promise<TransactionListDto> {
    return this.transactions.forDeal(auth, id, query);
  }

  @Patch('documents/:document_id/transactions/:transaction_id')
  @Authenticated('transactions:write')
  @ApiOkResponse({ type: TransactionDto })
  @ApiForbiddenResponse({ type: ErrorEnvelopeDto, description: 'Only an admin or a manager may correct transactions' })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto })
  correctTransaction(
    @Auth() auth: AuthContext,
    @IdParam('document_id') documentId: number,
    @IdParam('transaction_id') transactionId: number,
    @Body() dto: CorrectTransactionDto,
  ): Promise<TransactionDto> {
    return this.transactions.correct(auth, documentId, transactionId, dto);
  }

  @Post('documents/:document_id/transactions')
  @Authenticated('transactions:write')
  @ApiCreatedResponse({ type: TransactionDto })
  @ApiOperation({
    summary: 'Add a row the reader missed',
    description:
      'The row goes after `after_transaction_id` (or first); the audit trail records it (field `row`) with the reason, and the deal is rescored. It survives a new reading of the file. Admin or manager.',
  })
  @ApiForbiddenResponse({ type: ErrorEnvelopeDto, description: 'Only an admin or a manager may correct transactions' })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto })
  @ApiConflictResponse({ type: ErrorEnvelopeDto, description: 'The document is not a completed bank statement' })
  addTransaction(
    @Auth() auth: AuthContext,
    @IdParam('document_id') documentId: number,
    @Body() dto: AddTransactionDto,
  ): Promise<TransactionDto> {
    return this.transactions.add(auth, documentId, dto);
  }

  @Delete('documents/:document_id/transactions/:transaction_id')
  @Authenticated('transactions:write')
  @ApiOkResponse({ type: DeletedTransactionDto })
  @ApiOperation({
    summary: 'Delete a row the reader invented or read twice',
    description:
      'The audit trail keeps the row (field `row`) with the reason and outlives it; a new reading of the file drops the same row again. The deal is rescored. Admin or manager.',
  })
  @ApiForbiddenResponse({ type: ErrorEnvelopeDto, description: 'Only an admin or a manager may correct transactions' })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto })
  deleteTransaction(
    @Auth() auth: AuthContext,
    @IdParam('document_id') documentId: number,
    @IdParam('transaction_id') transactionId: number,
    @Body() dto: DeleteTransactionDto,
  ): Promise<DeletedTransactionDto> {
    return this.transactions.delete(auth, documentId, transactionId, dto);
  }

  @Get('transactions/:transaction_id/corrections')
  @Authenticated('transactions:read')
  @ApiOkResponse({ type: CorrectionTrailDto })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto })
  listTransactionCorrections(@Auth() auth: AuthContext, @IdParam('transaction_id') id: number): Promise<CorrectionTrailDto> {
    return this.transactions.corrections(auth, id);
  }
}
