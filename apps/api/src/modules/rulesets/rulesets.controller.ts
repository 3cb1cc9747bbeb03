import { Body, Controller, Delete, Get, HttpCode, Patch, Post, Put, Query } from '@nestjs/common';
import {
  ApiBody,
  ApiExtraModels,
  getSchemaPath,
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
import { PageQueryDto } from '../../platform/pagination/pagination';
import {
  CreateRulesetDto,
  FactorRulesetInputDto,
  FlatRulesetInputDto,
  RulesetDto,
  RulesetListDto,
  UpdateRulesetDto,
} from './dto/ruleset.dto';
import { RulesetsService } from './rulesets.service';

const INVALID = { type: ErrorEnvelopeDto, description: 'VALIDATION_ERROR (field-level errors) or WEIGHT_SUM_INVALID' };

@ApiTags('Rulesets')
@Controller('v1/rulesets')
export class RulesetsController {
  constructor(private readonly rulesets: RulesetsService) {}

  @Get()
  @Authenticated('rulesets:read')
  @ApiOkResponse({
    type: RulesetListDto,
    description: 'Ordered by created_at ascending; the documented default ruleset exists from the start',
  })
  listRulesets(@Auth() auth: AuthContext, @Query() query: PageQueryDto): Promise<RulesetListDto> {
    return this.rulesets.list(auth, query);
  }

  @Post()
  @Authenticated('rulesets:write')
  @ApiExtraModels(FlatRulesetInputDto, FactorRulesetInputDto)
  @ApiBody({
    description: 'A flat ruleset (Form A) or a factor-list ruleset (Form B); a body with `factors` is Form B',
    schema: { oneOf: [{ $ref: getSchemaPath(FlatRulesetInputDto) }, { $ref: getSchemaPath(FactorRulesetInputDto) }] },
  })
  @ApiCreatedResponse({ type: RulesetDto })
  @ApiConflictResponse({ type: ErrorEnvelopeDto, description: 'DUPLICATE_RESOURCE: the name is taken' })
  @ApiUnprocessableEntityResponse(INVALID)
  createRuleset(@Auth() auth: AuthContext, @Body() dto: CreateRulesetDto): Promise<RulesetDto> {
    return this.rulesets.create(auth, dto);
  }

  @Get(':ruleset_id')
  @Authenticated('rulesets:read')
  @ApiOkResponse({ type: RulesetDto })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto })
  getRuleset(@Auth() auth: AuthContext, @IdParam('ruleset_id') id: number): Promise<RulesetDto> {
    return this.rulesets.get(auth, id);
  }

  @Put(':ruleset_id')
  @Authenticated('rulesets:write')
  @ApiExtraModels(FlatRulesetInputDto, FactorRulesetInputDto)
  @ApiBody({
    description: 'A flat ruleset (Form A) or a factor-list ruleset (Form B); a body with `factors` is Form B',
    schema: { oneOf: [{ $ref: getSchemaPath(FlatRulesetInputDto) }, { $ref: getSchemaPath(FactorRulesetInputDto) }] },
  })
  @ApiOkResponse({ type: RulesetDto, description: 'Full replacement; existing recommendations keep their snapshot' })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto })
  @ApiConflictResponse({ type: ErrorEnvelopeDto, description: 'DUPLICATE_RESOURCE' })
  @ApiUnprocessableEntityResponse(INVALID)
  replaceRuleset(@Auth() auth: AuthContext, @IdParam('ruleset_id') id: number, @Body() dto: CreateRulesetDto): Promise<RulesetDto> {
    return this.rulesets.replace(auth, id, dto);
  }

  @Patch(':ruleset_id')
  @Authenticated('rulesets:write')
  @ApiOkResponse({ type: RulesetDto })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto })
  @ApiConflictResponse({ type: ErrorEnvelopeDto, description: 'DUPLICATE_RESOURCE' })
  @ApiUnprocessableEntityResponse(INVALID)
  updateRuleset(@Auth() auth: AuthContext, @IdParam('ruleset_id') id: number, @Body() dto: UpdateRulesetDto): Promise<RulesetDto> {
    return this.rulesets.update(auth, id, dto);
  }

  @Delete(':ruleset_id')
  @Authenticated('rulesets:write')
  @ApiOkResponse({ type: AckDto })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto })
  @ApiConflictResponse({ type: ErrorEnvelopeDto, description: 'CONFLICT: the default ruleset cannot be deleted' })
  deleteRuleset(@Auth() auth: AuthContext, @IdParam('ruleset_id') id: number): Promise<AckDto> {
    return this.rulesets.remove(auth, id);
  }

  @Post(':ruleset_id/set-default')
  @HttpCode(200)
  @Authenticated('rulesets:write')
  @ApiOkResponse({ type: RulesetDto, description: 'The ruleset, now the default; the previous default is demoted in the same transaction' })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto })
  setDefaultRuleset(@Auth() auth: AuthContext, @IdParam('ruleset_id') id: number): Promise<RulesetDto> {
    return this.rulesets.setDefault(auth, id);
  }
}
