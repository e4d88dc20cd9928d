import { ServiceError, type EnvelopeDocument, type EnvelopeGet, type TEnvelope } from '@esign/contracts';
import type { z } from 'zod';
import { findEnvelope } from '../../db/envelope-repository';
import { effectiveStatus, notFound, toEnvelopeView, type EnvelopeDeps } from './envelope-deps';

/** `envelope.get`: one envelope of the account; `not_found` for another account's or an unknown one. */
export const getEnvelope = async (
  deps: EnvelopeDeps,
  request: z.output<(typeof EnvelopeGet)['request']>,
): Promise<TEnvelope> => {
  const found = await findEnvelope(deps.pool, request, { lock: false });
  if (!found) throw notFound();
  return toEnvelopeView(found, deps.now());
};

/**
 * `envelope.document`: the completed document once completed, otherwise the head (the latest signed
 * revision, or the original), with how many signers have signed.
 */
export const getEnvelopeDocument = async (
  deps: EnvelopeDeps,
  request: z.output<(typeof EnvelopeDocument)['request']>,
): Promise<z.infer<(typeof EnvelopeDocument)['reply']>> => {
  const found = await findEnvelope(deps.pool, request, { lock: false });
  if (!found) throw notFound();
  const { envelope, recipients } = found;
  const complete = envelope.status === 'completed' && envelope.signedKey !== null;
  const status = effectiveStatus(envelope, deps.now());
  // A send's original is kept only while it is pending (the signing sweep removes it once it ended).
  if (envelope.sendId !== null && !complete && status !== 'pending') {
    throw new ServiceError('conflict', `the send is ${status}: its document is no longer kept`, 'status');
  }
  const signers = recipients.filter((r) => r.role === 'signer');
  return {
    envelopeId: envelope.id,
    status,
    complete,
    objectKey: complete && envelope.signedKey ? envelope.signedKey : envelope.headKey,
    fileName: envelope.fileName,
    revision: envelope.revision,
    signersDone: signers.filter((r) => r.status === 'signed').length,
    signersTotal: signers.length,
  };
};
