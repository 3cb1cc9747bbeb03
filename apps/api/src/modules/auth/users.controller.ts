import { Body, Controller, Get, Patch, Post, Query } from '@nestjs/common';
import { ApiConflictResponse, ApiCreatedResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { AuthContext } from '../../platform/auth/auth-context';
import { Auth, Authenticated } from '../../platform/auth/decorators';
import { ErrorEnvelopeDto } from '../../platform/errors/error.dto';
import { IdParam } from '../../platform/http/id-param';
import { PageQueryDto } from '../../platform/pagination/pagination';
import { InvitedUserDto, InviteUserDto, UpdateUserDto, UserDto, UserListDto } from './dto/users.dto';
import { UsersService } from './users.service';

/** The organization's users, for admins (the same rule as API keys: `keys:manage`). */
@ApiTags('Users')
@Controller('v1/users')
export class UsersController {
  constructor(private readonly users: UsersService) {}

  @Get()
  @Authenticated('keys:manage')
  @ApiOkResponse({ type: UserListDto })
  @ApiOperation({ summary: "The organization's users", description: 'Admins only. Oldest first.' })
  listUsers(@Auth() auth: AuthContext, @Query() query: PageQueryDto): Promise<UserListDto> {
    return this.users.list(auth, query);
  }

  @Post()
  @Authenticated('keys:manage')
  @ApiCreatedResponse({ type: InvitedUserDto })
  @ApiConflictResponse({ type: ErrorEnvelopeDto, description: 'The email is in use' })
  @ApiOperation({
    summary: 'Invite a user',
    description: 'Admins only. Creates the user with a role and answers a first password, shown this once; recorded as `user.invited`.',
  })
  inviteUser(@Auth() auth: AuthContext, @Body() dto: InviteUserDto): Promise<InvitedUserDto> {
    return this.users.invite(auth, dto);
  }

  @Patch(':user_id')
  @Authenticated('keys:manage')
  @ApiOkResponse({ type: UserDto })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto })
  @ApiConflictResponse({ type: ErrorEnvelopeDto, description: 'The last admin cannot lose the role' })
  @ApiOperation({
    summary: "Change a user's role or name",
    description: 'Admins only. Takes effect on the user’s next request; the last admin keeps the role. Recorded as `user.updated`.',
  })
  updateUser(@Auth() auth: AuthContext, @IdParam('user_id') id: number, @Body() dto: UpdateUserDto): Promise<UserDto> {
    return this.users.update(auth, id, dto);
  }
}
