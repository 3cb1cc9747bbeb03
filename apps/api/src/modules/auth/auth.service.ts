import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../platform/config/config';
import { Database } from '../../platform/database/database.service';
import { ApiError, ErrorCode, validationEntry } from '../../platform/errors/api-error';
import { AuthContext, limitToRole, roleScopes } from '../../platform/auth/auth-context';
import { Authenticator, PresentedCredential } from '../../platform/auth/authenticator';
import { CredentialCache } from '../../platform/auth/credential-cache';
import { ApiKey } from '../keys/keys.entities';
import { OAuthClient, OAuthToken, Organization, Session, User } from './auth.entities';
import { DUMMY_PASSWORD_HASH, randomToken, sha256, verifyPassword } from '../../platform/crypto/credentials';
import { OAUTH_CLIENT_PREFIX, OAUTH_TOKEN_PREFIX, SESSION_PREFIX } from './token-prefixes';

/** How often (ms) last-used timestamps are written: at most once a minute per credential. */
const TOUCH_INTERVAL_MS = 60_000;

@Injectable()
export class AuthService extends Authenticator {
  constructor(
    private readonly db: Database,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly cache: CredentialCache,
  ) {
    super();
  }

  authenticate(credential: PresentedCredential): AuthContext | Promise<AuthContext> {
    const value = credential.value;
    if (value.startsWith(SESSION_PREFIX)) return this.fromSession(value);
    // the web app's cookie carries a session token and nothing else
    if (credential.via === 'cookie')
      return Promise.reject(new ApiError(ErrorCode.INVALID_API_KEY, 'Session cookie is invalid; sign in again'));
    if (value.startsWith(OAUTH_TOKEN_PREFIX)) return this.fromOAuthToken(value);
    const prefix = this.config.apiKeyPrefix;
    if (!value.startsWith(`${prefix}live_`) && !value.startsWith(`${prefix}test_`)) {
      return Promise.reject(new ApiError(ErrorCode.INVALID_API_KEY, 'Invalid API key'));
    }
    const hash = sha256(value);
    const cached = this.cache.get(hash);
    // a cached key whose last-used time is recent enough: no database, no promise
    if (cached && Date.now() - cached.touchedAt <= TOUCH_INTERVAL_MS) return cached.auth;
    return this.fromApiKey(hash, cached);
  }

  /** A key not in the cache (looked up), or cached but due a last-used write. */
  private async fromApiKey(hash: string, cached: ReturnType<CredentialCache['get']>): Promise<AuthContext> {
    const now = new Date();
    if (cached) {
      if (now.getTime() - cached.touchedAt > TOUCH_INTERVAL_MS) {
        cached.touchedAt = now.getTime();
        await this.db.system().nativeUpdate(ApiKey, { id: cached.auth.credential.id }, { lastUsedAt: now }, { filters: false });
      }
      return cached.auth;
    }
    const em = this.db.system();
    const key = await em.findOne(ApiKey, { keyHash: hash }, { filters: false });
    if (!key || key.revokedAt) throw new ApiError(ErrorCode.INVALID_API_KEY, 'Invalid or revoked API key');
    if (key.expiresAt && key.expiresAt <= now) throw new ApiError(ErrorCode.INVALID_API_KEY, 'API key has expired');
    let role: AuthContext['role'] = null;
    if (key.userId) role = (await em.findOne(User, { id: key.userId }))?.role ?? null;
    let touchedAt = key.lastUsedAt?.getTime() ?? 0;
    if (now.getTime() - touchedAt > TOUCH_INTERVAL_MS) {
      await em.nativeUpdate(ApiKey, { id: key.id }, { lastUsedAt: now }, { filters: false });
      touchedAt = now.getTime();
    }
    const auth: AuthContext = {
      organizationId: key.organizationId,
      livemode: key.livemode,
      userId: key.userId,
      role,
      credential: { type: 'api_key', id: key.id },
      scopes: role ? limitToRole(key.scopes, role) : key.scopes,
      actor: key.userId ? `user:${key.userId}` : `api_key:${key.id}`,
    };
    this.cache.set(hash, auth, key.expiresAt, touchedAt);
    return auth;
  }

  private async fromSession(value: string): Promise<AuthContext> {
    const em = this.db.system();
    const session = await em.findOne(Session, { tokenHash: sha256(value) });
    const now = new Date();
    if (!session || session.revokedAt || session.expiresAt <= now) {
      throw new ApiError(ErrorCode.INVALID_API_KEY, 'Session token is invalid or has expired; log in again');
    }
    const user = await em.findOne(User, { id: session.userId });
    if (!user) throw new ApiError(ErrorCode.INVALID_API_KEY, 'Session token is invalid');
    if (now.getTime() - session.lastUsedAt.getTime() > TOUCH_INTERVAL_MS) {
      // Sliding expiry: 24 h of inactivity ends the session.
      await em.nativeUpdate(
        Session,
        { id: session.id },
        { lastUsedAt: now, expiresAt: new Date(now.getTime() + this.config.sessionTtlSeconds * 1000) },
      );
    }
    return {
      organizationId: user.organizationId,
      livemode: true,
      userId: user.id,
      role: user.role,
      credential: { type: 'session', id: session.id },
      scopes: roleScopes(user.role),
      actor: `user:${user.id}`,
    };
  }

  private async fromOAuthToken(value: string): Promise<AuthContext> {
    const em = this.db.system();
    const token = await em.findOne(OAuthToken, { tokenHash: sha256(value) });
    if (!token || token.expiresAt <= new Date()) throw new ApiError(ErrorCode.INVALID_API_KEY, 'Access token is invalid or has expired');
    const client = await em.findOne(OAuthClient, { id: token.clientId }, { filters: false });
    if (!client || client.revokedAt) throw new ApiError(ErrorCode.INVALID_API_KEY, 'OAuth client has been revoked');
    const user = client.userId ? await em.findOne(User, { id: client.userId }) : null;
    return {
      organizationId: token.organizationId,
      livemode: token.livemode,
      userId: user?.id ?? null,
      role: user?.role ?? null,
      credential: { type: 'oauth', id: token.id },
      scopes: token.scopes,
      actor: `oauth_client:${client.clientId}`,
    };
  }

  async login(email: string, password: string): Promise<{ token: string; expiresAt: Date; user: User; session: number }> {
    const em = this.db.system();
    const user = await em.findOne(User, { email: email.trim().toLowerCase() });
    const ok = await verifyPassword(password, user?.passwordHash ?? DUMMY_PASSWORD_HASH);
    if (!user || !ok) throw new ApiError(ErrorCode.INVALID_CREDENTIALS, 'Invalid email or password');
    const token = `${SESSION_PREFIX}${randomToken(32)}`;
    const expiresAt = new Date(Date.now() + this.config.sessionTtlSeconds * 1000);
    const session = em.create(Session, { userId: user.id, organizationId: user.organizationId, tokenHash: sha256(token), expiresAt });
    await em.flush();
    return { token, expiresAt, user, session: session.id };
  }

  /** The signed-in user of a session (the web app's `GET /v1/auth/session`). */
  async sessionUser(sessionId: number): Promise<{ user: User; organizationName: string; expiresAt: Date }> {
    const em = this.db.system();
    const session = await em.findOneOrFail(Session, { id: sessionId });
    const user = await em.findOneOrFail(User, { id: session.userId });
    const organization = await em.findOne(Organization, { id: user.organizationId }, { filters: false });
    return { user, organizationName: organization?.name ?? '', expiresAt: session.expiresAt };
  }

  /** Ends a session at once (sign out): its token is refused from now on. */
  async revokeSession(sessionId: number): Promise<void> {
    await this.db.system().nativeUpdate(Session, { id: sessionId }, { revokedAt: new Date() });
  }

  async issueClientToken(grantType: string | undefined, clientId: string | undefined, clientSecret: string | undefined) {
    if (grantType !== 'client_credentials') {
      throw ApiError.validation([
        {
          loc: ['body', 'grant_type'],
          msg: 'grant_type must be client_credentials',
          type: 'value_error.enum',
          field: 'grant_type',
          message: 'grant_type must be client_credentials',
        },
      ]);
    }
    // A missing field is a malformed request (422), not a failed authentication (401).
    const missing = Object.entries({ client_id: clientId, client_secret: clientSecret })
      .filter(([, value]) => !value)
      .map(([field]) => field);
    if (missing.length) {
      throw ApiError.validation(missing.map((field) => validationEntry('body', [field], `${field} is required`, 'value_error.missing')));
    }
    if (!clientId?.startsWith(OAUTH_CLIENT_PREFIX) || !clientSecret)
      throw new ApiError(ErrorCode.INVALID_CREDENTIALS, 'Invalid client credentials');
    const em = this.db.system();
    const client = await em.findOne(OAuthClient, { clientId }, { filters: false });
    if (!client || client.revokedAt || client.secretHash !== sha256(clientSecret)) {
      throw new ApiError(ErrorCode.INVALID_CREDENTIALS, 'Invalid client credentials');
    }
    const accessToken = `${OAUTH_TOKEN_PREFIX}${randomToken(32)}`;
    const expiresIn = this.config.oauthTokenTtlSeconds;
    em.create(OAuthToken, {
      clientId: client.id,
      organizationId: client.organizationId,
      tokenHash: sha256(accessToken),
      scopes: client.scopes,
      livemode: true,
      expiresAt: new Date(Date.now() + expiresIn * 1000),
    });
    await em.flush();
    return { accessToken, expiresIn };
  }
}
