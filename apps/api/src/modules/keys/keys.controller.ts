import { Body, Controller, Delete, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiConflictResponse, ApiCreatedResponse, ApiNotFoundResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { Auth, Authenticated } from '../../platform/auth/decorators';
import type { AuthContext } from '../../platform/auth/auth-context';
import { PageQueryDto } from '../../platform/pagination/pagination';
import { AckDto } from '../../platform/http/ack.dto';
import { IdParam } from '../../platform/http/id-param';
import { ErrorEnvelopeDto } from '../../platform/errors/error.dto';
import { CreatedKeyDto, CreateKeyDto, KeyListDto } from './dto/key.dto';
import { KeysService } from './keys.service';

@ApiTags('API keys')
@Controller('v1/keys')
export class KeysController {
  constructor(private readonly keys: KeysService) {}

  @Post()
  @Authenticated('keys:manage')
  @ApiCreatedResponse({ type: CreatedKeyDto })
  createKey(@Auth() auth: AuthContext, @Body() dto: CreateKeyDto): Promise<CreatedKeyDto> {
    return this.keys.create(auth, dto);
  }

  @Get()
  @Authenticated('keys:manage')
  @ApiOkResponse({ type: KeyListDto })
  listKeys(@Auth() auth: AuthContext, @Query() query: PageQueryDto): Promise<KeyListDto> {
    return this.keys.list(auth, query);
  }

  @Delete(':key_id')
  @Authenticated('keys:manage')
  @ApiOkResponse({ type: AckDto })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto })
  @ApiConflictResponse({ type: ErrorEnvelopeDto, description: 'The key authenticating this request cannot revoke itself' })
  revokeKey(@Auth() auth: AuthContext, @IdParam('key_id') id: number): Promise<AckDto> {
    return this.keys.revoke(auth, id);
  }

  @Post(':key_id/rotate')
  @HttpCode(200)
  @Authenticated('keys:manage')
  @ApiOkResponse({ type: CreatedKeyDto })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto })
  rotateKey(@Auth() auth: AuthContext, @IdParam('key_id') id: number): Promise<CreatedKeyDto> {
    return this.keys.rotate(auth, id);
  }
}
