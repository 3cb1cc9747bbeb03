import { ApiProperty } from '@nestjs/swagger';
import { PageMetaDto } from '../../../platform/pagination/pagination';
import { ValidateEnum, ValidateString } from '../../../platform/validation/decorators';
import { USER_ROLES } from '../auth.entities';

export class UserDto {
  @ApiProperty({ type: 'integer' }) id: number;
  @ApiProperty() email: string;
  @ApiProperty({ type: String, nullable: true }) name: string | null;
  @ApiProperty({ enum: USER_ROLES }) role: string;
  @ApiProperty({ type: String, format: 'date-time' }) created_at: string;
}

export class UserListDto {
  @ApiProperty({ type: [UserDto] }) data: UserDto[];
  @ApiProperty({ type: PageMetaDto }) meta: PageMetaDto;
}

export class InviteUserDto {
  @ValidateString({ minLength: 3, maxLength: 320, pattern: /^[^\s@]+@[^\s@]+$/, patternMessage: '$property must be an email address' })
  email: string;
  @ValidateString({ optional: true, maxLength: 255 }) name?: string;
  @ValidateEnum(USER_ROLES, {
    description: 'What the user may do: admin (everything), manager and underwriter (read and write), reviewer (read)',
  })
  role: (typeof USER_ROLES)[number];
}

export class InvitedUserDto {
  @ApiProperty({ type: UserDto }) user: UserDto;
  @ApiProperty({
    description: 'A first password for the user to sign in with, shown this once (it is stored only as a hash): pass it on safely',
  })
  temporary_password: string;
}

export class UpdateUserDto {
  @ValidateEnum(USER_ROLES, { optional: true }) role?: (typeof USER_ROLES)[number];
  @ValidateString({ optional: true, nullable: true, maxLength: 255 }) name?: string | null;
}
