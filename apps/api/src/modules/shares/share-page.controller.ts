import { Body, Controller, Get, Param, Post, Res } from '@nestjs/common';
import { ApiConsumes, ApiNotFoundResponse, ApiOkResponse, ApiProduces, ApiTags, ApiUnauthorizedResponse } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Public } from '../../platform/auth/decorators';
import { ApiError, ErrorCode } from '../../platform/errors/api-error';
import { SharesService } from './shares.service';
import { SharePasswordFormDto } from './dto/share.dto';
import { renderNotFoundPage, renderPasswordPage, renderSharePage } from './share-page';

const HTML = { description: 'An HTML page', content: { 'text/html': { schema: { type: 'string' } } } };

/** The page a share link's `url` opens: the JSON view's data as HTML, with a password form for protected links. */
@ApiTags('Share links')
@Controller('share')
export class SharePageController {
  constructor(private readonly shares: SharesService) {}

  @Get(':token')
  @Public()
  @ApiProduces('text/html')
  @ApiOkResponse(HTML)
  @ApiUnauthorizedResponse({ ...HTML, description: 'Password form (protected link)' })
  @ApiNotFoundResponse({ ...HTML, description: 'Unknown, expired or revoked link' })
  showSharePage(@Param('token') token: string, @Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    return this.render(token, undefined, reply);
  }

  @Post(':token')
  @Public()
  @ApiConsumes('application/x-www-form-urlencoded')
  @ApiProduces('text/html')
  @ApiOkResponse(HTML)
  @ApiUnauthorizedResponse({ ...HTML, description: 'Password form again (wrong password)' })
  @ApiNotFoundResponse({ ...HTML, description: 'Unknown, expired or revoked link' })
  unlockSharePage(
    @Param('token') token: string,
    @Body() form: SharePasswordFormDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string> {
    return this.render(token, form.password ?? '', reply);
  }

  private async render(token: string, password: string | undefined, reply: FastifyReply): Promise<string> {
    reply
      .header('content-type', 'text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .header('x-robots-tag', 'noindex, nofollow')
      .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'");
    try {
      const view = await this.shares.view(token, password || undefined);
      reply.status(200);
      return renderSharePage(view);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      if (err.code === ErrorCode.SHARE_PASSWORD_REQUIRED || err.code === ErrorCode.SHARE_PASSWORD_INVALID) {
        reply.status(401);
        return renderPasswordPage({ wrong: password !== undefined });
      }
      if (err.status === 404) {
        reply.status(404);
        return renderNotFoundPage();
      }
      throw err;
    }
  }
}
