import {
  MAX_ENVELOPE_FIELDS,
  ServiceError,
  type TEnvelopeField,
  type TEnvelopeRecipientInput,
} from '@esign/contracts';

/** A page's size as a person sees it, in points. */
export interface PageSize {
  readonly width: number;
  readonly height: number;
}

/** One line of text: the default height of date, name, email and text fields, in percent of the page height. */
const LINE_HEIGHT_PERCENT = 3;

/**
 * A field's height in percent of its page's height: as given, or its type's default (a third of the
 * width for signature and initials, a square for a checkbox, one line for the rest).
 */
export const fieldHeightPercent = (field: TEnvelopeField, page: PageSize): number => {
  if (field.height !== undefined) return field.height;
  const widthPoints = (field.width / 100) * page.width;
  if (field.type === 'signature' || field.type === 'initials') return (widthPoints / 3 / page.height) * 100;
  if (field.type === 'checkbox') return (widthPoints / page.height) * 100;
  return LINE_HEIGHT_PERCENT;
};

const refuse = (field: string, message: string): never => {
  throw new ServiceError('invalid_argument', `${field}: ${message}`, field);
};

/**
 * Every rule of an envelope's recipients and fields checked against the document at once, the first
 * fault named the way the client wrote it (`recipients[1].fields[0].page`): pages and boxes inside
 * them, at most 200 fields, a signature field for every signer and fields for signers only, distinct
 * emails within a group, someone who acts, embedded recipients and email codes for those who act.
 */
export const checkEnvelope = (
  recipients: readonly TEnvelopeRecipientInput[],
  pages: readonly PageSize[],
): void => {
  const pageCount = pages.length;
  let fields = 0;
  const emailsByGroup = new Map<number, Map<string, number>>();
  recipients.forEach((recipient, i) => {
    const at = `recipients[${i}]`;
    if (recipient.embedded && recipient.role === 'cc')
      refuse(`${at}.embedded`, 'a cc recipient acts on nothing: only signers and approvers can be embedded');
    if (recipient.requireEmailCode && recipient.role === 'cc') {
      refuse(`${at}.requireEmailCode`, 'people in copy open no link: they need no code');
    }
    const group = emailsByGroup.get(recipient.order) ?? new Map<string, number>();
    emailsByGroup.set(recipient.order, group);
    const email = recipient.email.toLowerCase();
    const earlier = group.get(email);
    if (earlier !== undefined) {
      refuse(
        `${at}.email`,
        `${recipient.email} is already recipients[${earlier}] in group ${recipient.order}`,
      );
    }
    group.set(email, i);
    if (recipient.role !== 'signer') {
      if (recipient.fields.length > 0)
        refuse(`${at}.fields`, `a ${recipient.role === 'cc' ? 'cc recipient' : 'approver'} fills no fields`);
      return;
    }
    if (!recipient.fields.some((field) => field.type === 'signature')) {
      refuse(`${at}.fields`, 'a signer needs at least one signature field');
    }
    recipient.fields.forEach((field, j) => {
      const name = `${at}.fields[${j}]`;
      const page = pages[field.page];
      if (!page) {
        refuse(
          `${name}.page`,
          `page ${field.page} does not exist (the document has ${pageCount} page${pageCount === 1 ? '' : 's'})`,
        );
        return;
      }
      if (field.x + field.width > 100)
        refuse(`${name}.width`, 'the box reaches past the right edge of the page (x + width > 100)');
      const height = fieldHeightPercent(field, page);
      if (field.y + height > 100)
        refuse(
          `${name}.y`,
          `the box reaches past the bottom of the page (y + height = ${(field.y + height).toFixed(1)} > 100)`,
        );
    });
    fields += recipient.fields.length;
  });
  if (fields > MAX_ENVELOPE_FIELDS)
    refuse('recipients', `at most ${MAX_ENVELOPE_FIELDS} fields in all (${fields} given)`);
  if (!recipients.some((recipient) => recipient.role !== 'cc')) {
    refuse('recipients', 'at least one recipient must sign or approve');
  }
};
