import { endpoint, type Endpoint } from '@esign/bus';
import { EnvelopeFindByToken } from '@esign/contracts';
import { findEnvelopeByToken } from '../../domain/envelope/find-envelope-by-token';
import type { EnvelopeHandlerDeps } from './deps';

/** `envelope.find-by-token`: the envelope and recipient a link opens, by the SHA-256 of its token. */
export const findEnvelopeByTokenHandler = (deps: EnvelopeHandlerDeps): Endpoint =>
  endpoint(EnvelopeFindByToken, (request) => findEnvelopeByToken(deps, request));
