import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** Acknowledgement: union of Form A `{status: "ok", message, ...ids}` and Form B/C `{success: true, message}`. */
export class AckDto {
  @ApiProperty({ enum: ['ok'] }) status: 'ok';
  @ApiProperty({ enum: [true] }) success: true;
  @ApiProperty() message: string;
  @ApiPropertyOptional({ type: 'integer' }) id?: number;
  @ApiPropertyOptional({ type: 'integer' }) deal_id?: number;
}
