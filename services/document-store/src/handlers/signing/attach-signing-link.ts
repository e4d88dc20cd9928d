import { endpoint, type Endpoint } from '@esign/bus';
import { SigningAttachLink } from '@esign/contracts';
import { attachSigningLink } from '../../domain/signing/attach-signing-link';
import type { SigningHandlerDeps } from './deps';

/** `signing.attach-link`: the hash of a link the mailer made, replacing or adding to the request's links. */
export const attachSigningLinkHandler = (deps: SigningHandlerDeps): Endpoint =>
  endpoint(SigningAttachLink, (request) => attachSigningLink(deps, request));
