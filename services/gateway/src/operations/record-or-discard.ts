import type { TRecordDocumentRequest } from '@esign/contracts';
import { NotDeliveredError } from '@esign/bus';
import type { SigningPorts } from './ports';

/**
 * Record a signed document. If that fails, no signed PDF may stay behind without a record: when the
 * request reached no document store, or the store says it has no such record, the signed object is
 * removed and the error stands; when the record turns out to exist after all (the answer was lost to
 * a timeout), signing succeeded. When even that cannot be told, the object is kept and logged.
 */
export const recordOrDiscard = async (
  ports: Pick<SigningPorts, 'recordDocument' | 'documentExists' | 'removeObject' | 'logger'>,
  record: TRecordDocumentRequest,
): Promise<void> => {
  try {
    await ports.recordDocument(record);
    return;
  } catch (err) {
    const discard = () =>
      ports.removeObject(record.objectKey).catch((removeErr: unknown) => {
        ports.logger.warn('could not remove an unrecorded signed PDF', {
          signedKey: record.objectKey,
          err: removeErr,
        });
      });
    if (err instanceof NotDeliveredError) {
      await discard();
      throw err;
    }
    const recorded = await ports.documentExists(record.accountId, record.auditId).catch(() => undefined);
    if (recorded === true) return;
    if (recorded === false) await discard();
    else {
      ports.logger.warn('signed PDF kept: whether it was recorded is unknown', {
        signedKey: record.objectKey,
        err,
      });
    }
    throw err;
  }
};
