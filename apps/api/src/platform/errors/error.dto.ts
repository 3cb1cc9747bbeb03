import { ApiProperty } from '@nestjs/swagger';

export class ValidationEntryDto {
  @ApiProperty({ type: 'array', items: { oneOf: [{ type: 'string' }, { type: 'integer' }] }, example: ['body', 'business_name'] })
  loc: (string | number)[];
  @ApiProperty() msg: string;
  @ApiProperty({ example: 'value_error.missing' }) type: string;
  @ApiProperty({ example: 'business_name' }) field: string;
  @ApiProperty() message: string;
}

/** The one error envelope, `{detail, code, errors}` (README, "The API in short": Errors). */
export class ErrorEnvelopeDto {
  @ApiProperty({ example: 'Validation failed' }) detail: string;
  @ApiProperty({ example: 'VALIDATION_ERROR' }) code: string;
  @ApiProperty({ type: [ValidationEntryDto] }) errors: ValidationEntryDto[];
}
