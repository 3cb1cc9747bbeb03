import { Controller, Get, Query, StreamableFile } from '@nestjs/common';
import { ApiConflictResponse, ApiNotFoundResponse, ApiOkResponse, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { AuthContext } from '../../platform/auth/auth-context';
import { Auth, Authenticated } from '../../platform/auth/decorators';
import { ErrorEnvelopeDto } from '../../platform/errors/error.dto';
import { contentDisposition } from '../../platform/http/content-disposition';
import { IdParam } from '../../platform/http/id-param';
import { DocumentExportDto, UnderwritingCsvQueryDto } from './dto/export.dto';
import { ExportFile, ExportsService } from './exports.service';

const PDF = {
  description: 'The PDF underwriting report (attachment)',
  content: { 'application/pdf': { schema: { type: 'string', format: 'binary' } } },
};
const csv = (description: string) => ({ description, content: { 'text/csv': { schema: { type: 'string' } } } });
const NOT_READY = { type: ErrorEnvelopeDto, description: 'The deal is not ready' };

function attachment(file: ExportFile): StreamableFile {
  const options = {
    type: file.contentType,
    disposition: contentDisposition('attachment', file.filename),
    ...(Buffer.isBuffer(file.body) ? { length: file.body.length } : {}),
  };
  return Buffer.isBuffer(file.body) ? new StreamableFile(file.body, options) : new StreamableFile(file.body, options);
}

/** Exports stream the file itself (no JSON wrapper) with Content-Disposition: attachment (spec: Exports). */
@ApiTags('Exports')
@Controller('v1')
export class ExportsController {
  constructor(private readonly exports: ExportsService) {}

  @Get('deals/:deal_id/export/pdf')
  @Authenticated('exports:read')
  @ApiProduces('application/pdf')
  @ApiOkResponse(PDF)
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto })
  @ApiConflictResponse(NOT_READY)
  async exportDealPdf(@Auth() auth: AuthContext, @IdParam('deal_id') id: number): Promise<StreamableFile> {
    return attachment(await this.exports.dealPdf(auth, id));
  }

  /** Form B path of the same report. */
  @Get('deals/:deal_id/report')
  @Authenticated('exports:read')
  @ApiProduces('application/pdf')
  @ApiOkResponse(PDF)
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto })
  @ApiConflictResponse(NOT_READY)
  async getDealReportPdf(@Auth() auth: AuthContext, @IdParam('deal_id') id: number): Promise<StreamableFile> {
    return attachment(await this.exports.dealPdf(auth, id));
  }

  @Get('deals/:deal_id/export/csv')
  @Authenticated('exports:read')
  @ApiProduces('text/csv')
  @ApiOkResponse(
    csv(
      "Form A columns: Statement, Date, Description, Amount, Balance, Type, NSF Fee, ... Flag Reason, then Revenue Class and Revenue Rule (a deposit's class and the rule that decided it, docs/revenue.md; empty for a debit). Columns are only ever appended; streamed",
    ),
  )
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto })
  async exportDealCsv(@Auth() auth: AuthContext, @IdParam('deal_id') id: number): Promise<StreamableFile> {
    return attachment(await this.exports.dealCsv(auth, id));
  }

  @Get('deals/:deal_id/export/underwriting/csv')
  @Authenticated('exports:read')
  @ApiProduces('text/csv')
  @ApiOkResponse(
    csv(
      "One of the deal report's underwriting tables (`table`): positions (lender, cadence, payment, first/last seen, funding, estimated remaining, renewals, missed and bounced payments, stacking, the stored transaction ids it stands on), revenue (true revenue per month by class, then a total row), transfers (both sides of each own-account transfer) or affordability (item, value: each input and step). The same figures as GET /v1/deals/{deal_id}",
    ),
  )
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto })
  @ApiConflictResponse(NOT_READY)
  async exportDealUnderwritingCsv(
    @Auth() auth: AuthContext,
    @IdParam('deal_id') id: number,
    @Query() query: UnderwritingCsvQueryDto,
  ): Promise<StreamableFile> {
    return attachment(await this.exports.dealUnderwritingCsv(auth, id, query.table));
  }

  @Get('deals/:deal_id/transactions/csv')
  @Authenticated('exports:read')
  @ApiProduces('text/csv')
  @ApiOkResponse(
    csv(
      "Form B columns: date, description, amount, balance, transaction_type, ... document_id, then revenue_class and revenue_rule (a deposit's class and the rule that decided it, docs/revenue.md; empty for a debit). Columns are only ever appended; streamed",
    ),
  )
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto })
  async exportDealTransactionsCsv(@Auth() auth: AuthContext, @IdParam('deal_id') id: number): Promise<StreamableFile> {
    return attachment(await this.exports.dealTransactionsCsv(auth, id));
  }

  @Get('documents/:document_id/export/csv')
  @Authenticated('exports:read')
  @ApiProduces('text/csv')
  @ApiOkResponse(csv('The deal CSV (Form A) columns, Revenue Class and Revenue Rule included, for one document; streamed'))
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto })
  @ApiConflictResponse({ type: ErrorEnvelopeDto, description: 'The document is not completed' })
  async exportDocumentCsv(@Auth() auth: AuthContext, @IdParam('document_id') id: number): Promise<StreamableFile> {
    return attachment(await this.exports.documentCsv(auth, id));
  }

  @Get('documents/:document_id/export')
  @Authenticated('exports:read')
  @ApiOkResponse({ type: DocumentExportDto })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto })
  exportDocument(@Auth() auth: AuthContext, @IdParam('document_id') id: number): Promise<DocumentExportDto> {
    return this.exports.documentJson(auth, id);
  }
}
