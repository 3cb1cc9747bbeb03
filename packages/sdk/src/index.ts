export { Ledgerlens } from './client';
export type { LedgerlensOptions, LoginOptions, ClientCredentialsOptions, Page, PageQuery, UntypedRequestOptions } from './client';
export { LedgerlensBaseError, LedgerlensConnectionError, LedgerlensError } from './errors';
export type { LedgerlensErrorInit } from './errors';
export type { FetchLike, RetryInfo, Sleep } from './http';
export { DealsResource, KeysResource } from './resources';
export type { CreateDealOptions } from './resources';
export { SDK_VERSION } from './version';
export type * from './types';
