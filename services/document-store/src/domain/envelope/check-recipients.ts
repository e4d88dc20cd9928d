import {
  MAX_ENVELOPE_FIELDS,
  ServiceError,
  type TEnvelopeField,
  type TEnvelopeRecipientInput,
} from '@esign/contracts';

const invalid = (field: string, message: string): ServiceError =>
  new ServiceError('invalid_argument', `${field}: ${message}`, field);

/**
 * The rules of an envelope's recipients that need no document (the gateway checks the same and those
 * that need the document's pages): at least one signer or approver, a signature field for every
 * signer, no fields for approvers and people in copy, distinct emails within a group, fields on the
 * document's pages, at most `MAX_ENVELOPE_FIELDS` fields in all. Throws `invalid_argument` naming
 * `recipients.<i>` or `recipients.<i>.fields.<j>`.
 */
export const checkRecipients = (recipients: readonly TEnvelopeRecipientInput[], pageCount: number): void => {
  if (!recipients.some((r) => r.role !== 'cc')) {
    throw invalid('recipients', 'at least one recipient must be a signer or an approver');
  }
  const emailsByGroup = new Map<number, Map<string, number>>();
  let fieldCount = 0;
  for (const [i, r] of recipients.entries()) {
    const at = `recipients.${i}`;
    if (r.role === 'signer' && !r.fields.some((f) => f.type === 'signature')) {
      throw invalid(at, 'a signer needs at least one signature field');
    }
    if (r.role !== 'signer' && r.fields.length > 0) {
      throw invalid(`${at}.fields`, `a recipient with the role ${r.role} has no fields`);
    }
    const group = emailsByGroup.get(r.order) ?? new Map<string, number>();
    emailsByGroup.set(r.order, group);
    const email = r.email.toLowerCase();
    const first = group.get(email);
    if (first !== undefined) {
      throw invalid(at, `${r.email} is already recipients.${first} of group ${r.order}`);
    }
    group.set(email, i);
    for (const [j, f] of r.fields.entries()) {
      fieldCount += 1;
      if (fieldCount > MAX_ENVELOPE_FIELDS) {
        throw invalid(`${at}.fields.${j}`, `at most ${MAX_ENVELOPE_FIELDS} fields in all`);
      }
      if (f.page >= pageCount) {
        throw invalid(`${at}.fields.${j}`, `page ${f.page} is past the document's ${pageCount} pages`);
      }
    }
  }
};

/**
 * A field with the contract's defaults applied: `height` a third of `width` for signature and
 * initials, the width for a checkbox, 3 (one line) for the rest. (`required` is defaulted by the
 * contract itself.)
 */
export const withFieldDefaults = (f: TEnvelopeField): TEnvelopeField => {
  if (f.height !== undefined) return f;
  const height =
    f.type === 'signature' || f.type === 'initials' ? f.width / 3 : f.type === 'checkbox' ? f.width : 3;
  return { ...f, height: Math.max(1, Math.min(50, Math.round(height * 100) / 100)) };
};
