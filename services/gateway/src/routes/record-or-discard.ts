import { DocumentGet, DocumentRecord, ServiceError } from '@esign/contracts';
import { NotDeliveredError } from '@esign/bus';
import type { z } from 'zod';
import type { GatewayDeps } from '../deps';

/**
 * Record a signed document. If that fails, no signed PDF may stay behind without a record: when the
 * request reached no document store, or the store says it has no such record, the signed object is
 * removed and the error stands; when the record turns out to exist after all (the answer was lost to
 * a timeout), signing succeeded. When even that cannot be told, the object is kept and logged.
 */
export const recordOrDiscard = async (
  deps: Pick<GatewayDeps, 'bus' | 'blob' | 'logger'>,
  accountId: string,
  signedKey: string,
  record: z.input<typeof DocumentRecord.request>,
): Promise<void> => {
  try {
    await deps.bus.request(DocumentRecord, record);
    return;
  } catch (err) {
    const discard = () =>
      deps.blob.remove(signedKey).catch((removeErr: unknown) => {
        deps.logger.warn('could not remove an unrecorded signed PDF', { signedKey, err: removeErr });
      });
    if (err instanceof NotDeliveredError) {
      await discard();
      throw err;
    }
    const recorded = await deps.bus.request(DocumentGet, { accountId, auditId: record.auditId }).then(
      () => true,
      (getErr: unknown) =>
        getErr instanceof ServiceError && getErr.code === 'not_found' ? false : undefined,
    );
    if (recorded === true) return;
    if (recorded === false) await discard();
    else deps.logger.warn('signed PDF kept: whether it was recorded is unknown', { signedKey, err });
    throw err;
  }
};
