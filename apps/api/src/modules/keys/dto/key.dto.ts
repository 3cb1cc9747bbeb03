import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsIn, IsOptional } from 'class-validator';
import { ALL_SCOPES } from '../../../platform/auth/auth-context';
import { ValidateDateTime, ValidateEnum, ValidateString } from '../../../platform/validation/decorators';
import { PageMetaDto } from '../../../platform/pagination/pagination';

/** Create request: `name` (Form A/C) or `label` (Form B); `scopes` optional (default read, write). */
export class CreateKeyDto {
  @ValidateString({ optional: true, minLength: 1, maxLength: 255, description: 'Key name (Form A/C); `label` is accepted as well' })
  name?: string;

  @ValidateString({ optional: true, minLength: 1, maxLength: 255, description: 'Key name (Form B)' })
  label?: string;

  @ApiPropertyOptional({
    type: [String],
    enum: ALL_SCOPES,
    default: ['read', 'write'],
    description: '`read`/`write` or fine scopes such as `deals:read`',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(ALL_SCOPES.length)
  @IsIn(ALL_SCOPES as string[], { each: true, message: `each value in scopes must be one of: ${ALL_SCOPES.join(', ')}` })
  scopes?: string[];

  @ValidateDateTime({ optional: true, nullable: true, description: 'When the key stops working (ISO 8601)' })
  expires_at?: string | null;

  @ValidateEnum(['live', 'test'] as const, {
    optional: true,
    description: "Data the key sees; defaults to the caller's mode. A test credential can create test keys only.",
  })
  mode?: 'live' | 'test';
}

export class KeyDto {
  @ApiProperty({ type: 'integer' }) id: number;
  @ApiProperty() name: string;
  @ApiProperty({ description: 'Same as name (Form B)' }) label: string;
  @ApiProperty({ description: 'First 12 characters of the key' }) key_prefix: string;
  @ApiProperty({ description: 'Same as key_prefix (Form C)' }) prefix: string;
  @ApiProperty({ description: 'key_prefix + "..." + last 4 characters' }) key_masked: string;
  @ApiProperty({ enum: ['live', 'test'] }) mode: 'live' | 'test';
  @ApiProperty({ type: [String] }) scopes: string[];
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) last_used_at: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) expires_at: string | null;
  @ApiProperty({ type: String, format: 'date-time' }) created_at: string;
}

export class CreatedKeyDto extends KeyDto {
  @ApiProperty({ description: 'The full key. Shown only in this response: store it now.' }) key: string;
  @ApiProperty() message: string;
}

export class KeyListDto {
  @ApiProperty({ type: [KeyDto] }) data: KeyDto[];
  @ApiProperty({ type: PageMetaDto }) meta: PageMetaDto;
}
