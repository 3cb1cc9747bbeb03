/** The prefixes of the credentials auth issues (keys have their own, `API_KEY_PREFIX`). */
export const SESSION_PREFIX = 'sess_';
export const OAUTH_TOKEN_PREFIX = 'oat_';
export const OAUTH_CLIENT_PREFIX = 'cli_';
export const OAUTH_SECRET_PREFIX = 'cs_';
