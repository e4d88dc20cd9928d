import { endpoint, type Endpoint } from '@esign/bus';
import { EnvelopeAttachLink } from '@esign/contracts';
import { attachEnvelopeLink } from '../../domain/envelope/attach-envelope-link';
import type { EnvelopeHandlerDeps } from './deps';

/** `envelope.attach-link`: the hash of a recipient's link (the mailer's, or an embedded signing URL's). */
export const attachEnvelopeLinkHandler = (deps: EnvelopeHandlerDeps): Endpoint =>
  endpoint(EnvelopeAttachLink, (request) => attachEnvelopeLink(deps, request));
