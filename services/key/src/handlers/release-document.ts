import { endpoint, type Endpoint } from '@esign/bus';
import { DocumentQuotaRelease } from '@esign/contracts';
import { releaseDocument } from '../domain/release-document';
import type { KeyServiceDeps } from './deps';

/** `key.release-document`: give a reservation back, once. */
export const releaseDocumentHandler = (deps: Pick<KeyServiceDeps, 'quotas' | 'now'>): Endpoint =>
  endpoint(DocumentQuotaRelease, (request) => releaseDocument({ ...deps, ...request }));
