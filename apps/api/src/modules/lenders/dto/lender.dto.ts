import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import { LENDER_KINDS, type LenderKind } from '@ledgerlens/underwriting';
import { PageMetaDto, PageQueryDto } from '../../../platform/pagination/pagination';
import { ValidateBoolean, ValidateEnum, ValidateString } from '../../../platform/validation/decorators';

const KIND_DESCRIPTION =
  'mca or lender: a funder (its debits are positions, a deposit from it starts one); bank, fintech_bank, card, processor, payroll, broker, other or not_lender: never a lender';
const ALIASES_DESCRIPTION =
  'Other names and ACH descriptor forms (e.g. "ACME CAP FUND"); each needs 3 letters or digits. Matching ignores case, spacing and punctuation.';

const DIRECTORY_ID_DESCRIPTION =
  'The directory lender (GET /v1/lenders?include_directory=true) the name and aliases are more forms of: a match is that lender, with its id and name';

export class LenderListQueryDto extends PageQueryDto {
  @ValidateBoolean({ optional: true, query: true, description: 'true: the shipped directory too (`directory`), whole, in one response' })
  include_directory?: boolean;
}

export class CreateLenderDto {
  @ValidateString({
    minLength: 1,
    maxLength: 200,
    description: 'Unique within the organization and mode (case-insensitive)',
    example: 'Acme Merchant Funding',
  })
  name: string;

  @ApiProperty({ type: [String], required: false, maxItems: 50, description: ALIASES_DESCRIPTION, example: ['ACME MERCH FUND', 'AMF LLC'] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @MinLength(1, { each: true })
  @MaxLength(200, { each: true })
  aliases?: string[];

  @ValidateEnum(LENDER_KINDS, {
    optional: true,
    description: `Default: the directory lender's kind with directory_id, else mca. ${KIND_DESCRIPTION}`,
  })
  kind?: LenderKind;

  @ValidateString({ optional: true, nullable: true, maxLength: 64, description: DIRECTORY_ID_DESCRIPTION, example: 'ondeck' })
  directory_id?: string | null;
}

export class UpdateLenderDto {
  @ValidateString({ optional: true, minLength: 1, maxLength: 200 })
  name?: string;

  @ApiProperty({ type: [String], required: false, maxItems: 50, description: `Replaces the aliases. ${ALIASES_DESCRIPTION}` })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @MinLength(1, { each: true })
  @MaxLength(200, { each: true })
  aliases?: string[];

  @ValidateEnum(LENDER_KINDS, { optional: true, description: KIND_DESCRIPTION })
  kind?: LenderKind;

  @ValidateString({
    optional: true,
    nullable: true,
    maxLength: 64,
    description: `${DIRECTORY_ID_DESCRIPTION}; null: a lender of the organization's own`,
  })
  directory_id?: string | null;
}

export class LenderDto {
  @ApiProperty({ type: 'integer' }) id: number;
  @ApiProperty() name: string;
  @ApiProperty({ type: [String] }) aliases: string[];
  @ApiProperty({ enum: LENDER_KINDS, description: KIND_DESCRIPTION }) kind: LenderKind;
  @ApiProperty({ description: 'kind is mca or lender' }) is_funder: boolean;
  @ApiProperty({ type: String, nullable: true, description: 'The directory lender this entry adds forms to; null: a lender of its own' })
  directory_id: string | null;
  @ApiProperty({
    description:
      'The id a position of this lender carries in the deal report (lender_positions.positions[].lender_id): the directory id with directory_id, else org:<id>',
    example: 'org:12',
  })
  lender_id: string;
  @ApiProperty({ enum: ['live', 'test'] }) mode: 'live' | 'test';
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}

export class DirectoryLenderDto {
  @ApiProperty({ description: 'Stable id (lender_positions.positions[].lender_id)', example: 'ondeck' }) id: string;
  @ApiProperty() name: string;
  @ApiProperty({ enum: LENDER_KINDS }) kind: LenderKind;
  @ApiProperty({ type: [String] }) aliases: string[];
  @ApiProperty({ type: [String], description: 'Forms seen in ACH descriptors' }) descriptors: string[];
}

export class LenderDirectoryDto {
  @ApiProperty({ description: 'Directory version (also lender_positions.directory_version in a deal report)', example: '2026.11.1' })
  version: string;
  @ApiProperty({ type: [DirectoryLenderDto] }) entries: DirectoryLenderDto[];
}

export class LenderListDto {
  @ApiProperty({ type: [LenderDto], description: "The organization's own entries, oldest first" }) data: LenderDto[];
  @ApiProperty({ type: PageMetaDto }) meta: PageMetaDto;
  @ApiProperty({ type: LenderDirectoryDto, nullable: true, description: 'The shipped directory, with include_directory=true; else null' })
  directory: LenderDirectoryDto | null;
}
