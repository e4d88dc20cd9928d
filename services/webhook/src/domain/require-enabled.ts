import { ServiceError } from '@esign/contracts';
import type { EndpointRow } from '../db/store';

/** A replay or a test goes to an enabled endpoint only: `conflict` otherwise. */
export const requireEnabled = (row: EndpointRow): void => {
  if (!row.enabled) {
    throw new ServiceError(
      'conflict',
      `webhook ${row.id} is disabled (${row.disabledReason ?? 'manual'}); enable it first`,
    );
  }
};
