import { Injectable } from '@nestjs/common';
import { Database } from '../../platform/database/database.service';
import { ApiError, ErrorCode } from '../../platform/errors/api-error';
import { roleScopes } from '../../platform/auth/auth-context';
import { KeysService } from '../keys/keys.service';
import { OAuthClient, Organization, User, USER_ROLES, UserRole } from './auth.entities';
import { hashPassword, randomToken, sha256 } from '../../platform/crypto/credentials';
import { OAUTH_CLIENT_PREFIX, OAUTH_SECRET_PREFIX } from './token-prefixes';

export interface BootstrapResult {
  organization: { id: number; name: string };
  user: { id: number; email: string; role: UserRole };
  api_key: string;
  test_api_key: string;
  oauth_client: { client_id: string; client_secret: string };
}

/** Creates organizations, users and their first credentials: used by the CLI and the demo bootstrap. */
@Injectable()
export class ProvisioningService {
  constructor(
    private readonly db: Database,
    private readonly keys: KeysService,
  ) {}

  async organizationCount(): Promise<number> {
    return this.db.system().count(Organization, {});
  }

  async bootstrap(params: { orgName: string; email: string; password: string; name?: string }): Promise<BootstrapResult> {
    validateEmail(params.email);
    validatePassword(params.password);
    const passwordHash = await hashPassword(params.password);
    return this.db.system().transactional(async (em) => {
      await this.assertEmailFree(em, params.email);
      const org = em.create(Organization, { name: params.orgName });
      await em.flush();
      const user = em.create(User, {
        organizationId: org.id,
        email: params.email.toLowerCase(),
        name: params.name ?? null,
        passwordHash,
        role: 'admin',
      });
      await em.flush();
      const live = this.keys.issue(em, {
        organizationId: org.id,
        userId: user.id,
        name: 'Bootstrap live key',
        livemode: true,
        scopes: roleScopes('admin'),
      });
      const test = this.keys.issue(em, {
        organizationId: org.id,
        userId: user.id,
        name: 'Bootstrap test key',
        livemode: false,
        scopes: roleScopes('admin'),
      });
      const clientId = `${OAUTH_CLIENT_PREFIX}${randomToken(12)}`;
      const clientSecret = `${OAUTH_SECRET_PREFIX}${randomToken(32)}`;
      em.create(OAuthClient, {
        organizationId: org.id,
        userId: user.id,
        clientId,
        secretHash: sha256(clientSecret),
        name: 'Bootstrap client',
        scopes: ['read', 'write'],
      });
      await em.flush();
      return {
        organization: { id: org.id, name: org.name },
        user: { id: user.id, email: user.email, role: user.role },
        api_key: live.plaintext,
        test_api_key: test.plaintext,
        oauth_client: { client_id: clientId, client_secret: clientSecret },
      };
    });
  }

  async createUser(params: { organizationId: number; email: string; password: string; role: string; name?: string }) {
    if (!(USER_ROLES as readonly string[]).includes(params.role)) {
      throw new ApiError(ErrorCode.VALIDATION_ERROR, `role must be one of ${USER_ROLES.join(', ')}`);
    }
    validateEmail(params.email);
    validatePassword(params.password);
    const role = params.role as UserRole;
    const passwordHash = await hashPassword(params.password);
    return this.db.system().transactional(async (em) => {
      const org = await em.findOne(Organization, { id: params.organizationId });
      if (!org) throw ApiError.notFound(`Organization ${params.organizationId}`);
      await this.assertEmailFree(em, params.email);
      const user = em.create(User, {
        organizationId: org.id,
        email: params.email.toLowerCase(),
        name: params.name ?? null,
        passwordHash,
        role,
      });
      await em.flush();
      const key = this.keys.issue(em, {
        organizationId: org.id,
        userId: user.id,
        name: `${user.email} live key`,
        livemode: true,
        scopes: roleScopes(role),
      });
      await em.flush();
      return { user: { id: user.id, email: user.email, role: user.role }, api_key: key.plaintext };
    });
  }

  private async assertEmailFree(em: ReturnType<Database['system']>, email: string): Promise<void> {
    if (await em.count(User, { email: email.toLowerCase() })) {
      throw new ApiError(ErrorCode.DUPLICATE_RESOURCE, `A user with email ${email} already exists`);
    }
  }
}

function validateEmail(email: string): void {
  if (!/^[^\s@]+@[^\s@]+$/.test(email) || email.length > 320)
    throw new ApiError(ErrorCode.VALIDATION_ERROR, `Invalid email address: ${email}`);
}

function validatePassword(password: string): void {
  if (password.length < 8) throw new ApiError(ErrorCode.VALIDATION_ERROR, 'Password must be at least 8 characters');
}
