import { ServiceError } from '@esign/contracts';
import { z } from 'zod';

const ZEmail = z.email();

/** An email as accounts store it: trimmed and lowercased; `invalid_argument` when it is not an email. */
export const normalizeEmail = (email: string): string => {
  const normalized = email.trim().toLowerCase();
  if (!ZEmail.safeParse(normalized).success) {
    throw new ServiceError('invalid_argument', 'email: not a valid email address', 'email');
  }
  return normalized;
};
