import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { Auth, Authenticated } from '../../platform/auth/decorators';
import type { AuthContext } from '../../platform/auth/auth-context';
import { UsageMeter, UsageSnapshot } from '../../platform/usage/usage-meter';
import { UsageCounterDto, UsageDto } from './dto/usage.dto';

@ApiTags('Usage')
@Controller()
export class UsageController {
  constructor(private readonly usage: UsageMeter) {}

  @Get('v1/usage/me')
  @Authenticated('any')
  @ApiOkResponse({ type: UsageDto })
  async getUsage(@Auth() auth: AuthContext): Promise<UsageDto> {
    return mapUsage(auth.organizationId, await this.usage.snapshot(auth.organizationId));
  }

  @Get('api/v1/usage/me')
  @Authenticated('any')
  @ApiOkResponse({ type: UsageDto })
  async getUsageAlias(@Auth() auth: AuthContext): Promise<UsageDto> {
    return this.getUsage(auth);
  }
}

function counter(c: { used: number; limit: number | null }): UsageCounterDto {
  return {
    used: c.used,
    limit: c.limit,
    remaining: c.limit === null ? null : Math.max(0, c.limit - c.used),
    percent_used: c.limit === null ? null : Math.min(1, Math.round((c.used / c.limit) * 10_000) / 10_000),
  };
}

export function mapUsage(organizationId: number, s: UsageSnapshot): UsageDto {
  const requests = counter(s.requests);
  const documents = counter(s.documents);
  return {
    organization_id: organizationId,
    plan: s.plan,
    period: s.period.key,
    period_start: s.period.start.toISOString(),
    period_end: s.period.end.toISOString(),
    requests,
    documents,
    quota_exceeded: requests.remaining === 0 || documents.remaining === 0,
  };
}
