import { endpoint, type Endpoint } from '@esign/bus';
import { DocumentQuotaReserve } from '@esign/contracts';
import { reserveDocument } from '../domain/reserve-document';
import type { KeyServiceDeps } from './deps';

/** `key.reserve-document`: count one document against the month’s quota, atomically. */
export const reserveDocumentHandler = (deps: Pick<KeyServiceDeps, 'quotas' | 'now'>): Endpoint =>
  endpoint(DocumentQuotaReserve, (request) => reserveDocument({ ...deps, ...request }));
