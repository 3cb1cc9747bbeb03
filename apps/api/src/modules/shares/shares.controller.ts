import { Body, Controller, Delete, Get, Headers, HttpCode, Param, Post, Query } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiHeader,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiTags,
  ApiTooManyRequestsResponse,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import type { AuthContext } from '../../platform/auth/auth-context';
import { Auth, Authenticated, Public } from '../../platform/auth/decorators';
import { ErrorEnvelopeDto } from '../../platform/errors/error.dto';
import { IdParam } from '../../platform/http/id-param';
import { PageQueryDto } from '../../platform/pagination/pagination';
import { SharesService } from './shares.service';
import { ActiveShareLinksDto, CreateShareDto, ShareLinkDto, ShareLinkListDto, ShareViewDto } from './dto/share.dto';

@ApiTags('Share links')
@Controller('v1')
export class SharesController {
  constructor(private readonly shares: SharesService) {}

  @Post('deals/:deal_id/share')
  @Authenticated('deals:write')
  @ApiCreatedResponse({ type: ShareLinkDto, description: 'A new link with view_count 0; several links per deal are allowed' })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto })
  createShareLink(@Auth() auth: AuthContext, @IdParam('deal_id') dealId: number, @Body() dto: CreateShareDto): Promise<ShareLinkDto> {
    return this.shares.create(auth, dealId, dto);
  }

  @Get('deals/:deal_id/shares')
  @Authenticated('deals:read')
  @ApiOkResponse({ type: ShareLinkListDto, description: 'Form A: every link, expired and revoked ones included' })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto })
  listShareLinks(@Auth() auth: AuthContext, @IdParam('deal_id') dealId: number, @Query() query: PageQueryDto): Promise<ShareLinkListDto> {
    return this.shares.list(auth, dealId, query);
  }

  @Get('deals/:deal_id/share')
  @Authenticated('deals:read')
  @ApiOkResponse({ type: ActiveShareLinksDto, description: 'Form B: the active links (not expired, not revoked)' })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto })
  listActiveShareLinks(@Auth() auth: AuthContext, @IdParam('deal_id') dealId: number): Promise<ActiveShareLinksDto> {
    return this.shares.listActive(auth, dealId);
  }

  @Delete('share/:share_id')
  @HttpCode(204)
  @Authenticated('deals:write')
  @ApiNoContentResponse({ description: 'Revoked: the link answers 404 from now on' })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto, description: 'Unknown or already revoked link' })
  async revokeShareLink(@Auth() auth: AuthContext, @IdParam('share_id') shareId: number): Promise<void> {
    await this.shares.revoke(auth, shareId);
  }

  @Get('share/:token')
  @Public()
  // the name as @Headers() reads it (lowercase): one optional header in the document, not a required twin
  @ApiHeader({ name: 'x-share-password', required: false, description: 'The password of a protected link (X-Share-Password)' })
  @ApiOkResponse({ type: ShareViewDto, description: 'No credential needed. Counts one view. No transactions, flags or notes' })
  @ApiUnauthorizedResponse({ type: ErrorEnvelopeDto, description: 'SHARE_PASSWORD_REQUIRED or SHARE_PASSWORD_INVALID' })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto, description: 'Unknown, expired or revoked link' })
  @ApiTooManyRequestsResponse({ type: ErrorEnvelopeDto, description: '60 requests per minute per token' })
  viewSharedDeal(@Param('token') token: string, @Headers('x-share-password') password?: string): Promise<ShareViewDto> {
    return this.shares.view(token, password);
  }
}
