import { ApiProperty } from '@nestjs/swagger';

export class UsageCounterDto {
  @ApiProperty({ type: 'integer', description: 'Used this month' }) used: number;
  @ApiProperty({ type: 'integer', nullable: true, description: 'Monthly limit of the plan; null = unlimited' }) limit: number | null;
  @ApiProperty({ type: 'integer', nullable: true, description: 'limit - used; null = unlimited' }) remaining: number | null;
  @ApiProperty({ type: 'number', nullable: true, description: 'used / limit, 0-1; null = unlimited' }) percent_used: number | null;
}

/** Usage of the caller's organization this calendar month (UTC), live credentials only (test keys are free). */
export class UsageDto {
  @ApiProperty({ type: 'integer' }) organization_id: number;
  @ApiProperty({ description: 'Plan the limits come from' }) plan: string;
  @ApiProperty({ description: 'Month counted, YYYY-MM (UTC)', example: '2026-11' }) period: string;
  @ApiProperty({ type: String, format: 'date-time' }) period_start: string;
  @ApiProperty({ type: String, format: 'date-time', description: 'When the counters reset (start of next month, UTC)' })
  period_end: string;
  @ApiProperty({ type: UsageCounterDto, description: 'API requests made with live keys (and OAuth tokens)' }) requests: UsageCounterDto;
  @ApiProperty({ type: UsageCounterDto, description: 'Documents uploaded in live mode' }) documents: UsageCounterDto;
  @ApiProperty({ description: 'True once either quota is used up: further calls get 429 QUOTA_EXCEEDED' }) quota_exceeded: boolean;
}
