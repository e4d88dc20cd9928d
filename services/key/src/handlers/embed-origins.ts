import { endpoint, type Endpoint } from '@esign/bus';
import { AccountEmbedOriginsGet, AccountEmbedOriginsSet } from '@esign/contracts';
import { getEmbedOrigins, setEmbedOrigins } from '../domain/embed-origins';
import type { KeyServiceDeps } from './deps';

/** `key.get-embed-origins`: the origins allowed to frame the account's embedded signing pages. */
export const getEmbedOriginsHandler = (deps: Pick<KeyServiceDeps, 'accounts'>): Endpoint =>
  endpoint(AccountEmbedOriginsGet, (request) => getEmbedOrigins({ ...deps, ...request }));

/** `key.set-embed-origins`: replace them. */
export const setEmbedOriginsHandler = (deps: Pick<KeyServiceDeps, 'accounts'>): Endpoint =>
  endpoint(AccountEmbedOriginsSet, (request) => setEmbedOrigins({ ...deps, ...request }));
