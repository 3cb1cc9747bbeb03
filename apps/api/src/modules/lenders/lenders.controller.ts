import { Body, Controller, Delete, Get, Patch, Post, Query } from '@nestjs/common';
import {
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiTags,
  ApiUnprocessableEntityResponse,
} from '@nestjs/swagger';
import type { AuthContext } from '../../platform/auth/auth-context';
import { Auth, Authenticated } from '../../platform/auth/decorators';
import { ErrorEnvelopeDto } from '../../platform/errors/error.dto';
import { AckDto } from '../../platform/http/ack.dto';
import { IdParam } from '../../platform/http/id-param';
import { CreateLenderDto, LenderDto, LenderListDto, LenderListQueryDto, UpdateLenderDto } from './dto/lender.dto';
import { LendersService } from './lenders.service';

const INVALID = {
  type: ErrorEnvelopeDto,
  description: 'VALIDATION_ERROR: a name or alias with fewer than 3 letters or digits, an unknown kind',
};
const DUPLICATE = { type: ErrorEnvelopeDto, description: 'DUPLICATE_RESOURCE: the name is taken' };

/** Lender names are scoring configuration, as rulesets are: the same scopes (reads rulesets:read, writes rulesets:write). */
@ApiTags('Lenders')
@Controller('v1/lenders')
export class LendersController {
  constructor(private readonly lenders: LendersService) {}

  @Get()
  @Authenticated('rulesets:read')
  @ApiOkResponse({
    type: LenderListDto,
    description: "The organization's own entries, oldest first; with include_directory=true the shipped directory too",
  })
  listLenders(@Auth() auth: AuthContext, @Query() query: LenderListQueryDto): Promise<LenderListDto> {
    return this.lenders.list(auth, query);
  }

  @Post()
  @Authenticated('rulesets:write')
  @ApiCreatedResponse({ type: LenderDto, description: 'Used from the next analysis or rescore of a deal' })
  @ApiConflictResponse(DUPLICATE)
  @ApiUnprocessableEntityResponse(INVALID)
  createLender(@Auth() auth: AuthContext, @Body() dto: CreateLenderDto): Promise<LenderDto> {
    return this.lenders.create(auth, dto);
  }

  @Get(':lender_id')
  @Authenticated('rulesets:read')
  @ApiOkResponse({ type: LenderDto })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto })
  getLender(@Auth() auth: AuthContext, @IdParam('lender_id') id: number): Promise<LenderDto> {
    return this.lenders.get(auth, id);
  }

  @Patch(':lender_id')
  @Authenticated('rulesets:write')
  @ApiOkResponse({ type: LenderDto, description: 'The fields sent replace the stored ones (aliases as a whole)' })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto })
  @ApiConflictResponse(DUPLICATE)
  @ApiUnprocessableEntityResponse(INVALID)
  updateLender(@Auth() auth: AuthContext, @IdParam('lender_id') id: number, @Body() dto: UpdateLenderDto): Promise<LenderDto> {
    return this.lenders.update(auth, id, dto);
  }

  @Delete(':lender_id')
  @Authenticated('rulesets:write')
  @ApiOkResponse({ type: AckDto })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto })
  deleteLender(@Auth() auth: AuthContext, @IdParam('lender_id') id: number): Promise<AckDto> {
    return this.lenders.remove(auth, id);
  }
}
