import type { LedgerlensCore } from '../core.js';
import type { CommonRequestOptions, components } from '../types.js';

type S = components['schemas'];

/** `client.users`: the organization's users, for admins (live mode): list, invite, change a role or name. */
export class UsersResource {
  constructor(private readonly client: LedgerlensCore) {}

  /** One page of the organization's users, oldest first. */
  async list(query: { page?: number; per_page?: number } = {}, options?: CommonRequestOptions): Promise<S['UserListDto']> {
    return (await this.client.GET('/v1/users', { ...options, params: { query } })).data;
  }

  /** Every user of the organization, page after page. */
  listAll(options?: CommonRequestOptions): AsyncGenerator<S['UserDto'], void, undefined> {
    return this.client.paginate('/v1/users', { per_page: 100 }, options);
  }

  /** Invites a user with a role; the answer carries a first password, shown this once. */
  async invite(body: S['InviteUserDto'], options?: CommonRequestOptions): Promise<S['InvitedUserDto']> {
    return (await this.client.POST('/v1/users', { ...options, body })).data;
  }

  /** Changes a user's role or name (the last admin keeps the role: 409). */
  async update(userId: number, body: S['UpdateUserDto'], options?: CommonRequestOptions): Promise<S['UserDto']> {
    return (await this.client.PATCH('/v1/users/{user_id}', { ...options, params: { path: { user_id: userId } }, body })).data;
  }
}
