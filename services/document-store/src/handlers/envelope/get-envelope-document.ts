import { endpoint, type Endpoint } from '@esign/bus';
import { EnvelopeDocument } from '@esign/contracts';
import { getEnvelopeDocument } from '../../domain/envelope/get-envelope';
import type { EnvelopeHandlerDeps } from './deps';

/** `envelope.document`: where the document stands (the head, or the completed document). */
export const getEnvelopeDocumentHandler = (deps: EnvelopeHandlerDeps): Endpoint =>
  endpoint(EnvelopeDocument, (request) => getEnvelopeDocument(deps, request));
