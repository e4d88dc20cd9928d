import { endpoint, type Endpoint } from '@esign/bus';
import { EnvelopeList } from '@esign/contracts';
import { listEnvelopes } from '../../domain/envelope/list-envelopes';
import type { EnvelopeHandlerDeps } from './deps';

/** `envelope.list`: the account's envelopes, newest first. */
export const listEnvelopesHandler = (deps: EnvelopeHandlerDeps): Endpoint =>
  endpoint(EnvelopeList, (request) => listEnvelopes(deps, request));
