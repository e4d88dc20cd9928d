import { describe, expect, it } from 'vitest';
import { ServiceError, ZEnvelopeRecipientInput, type TEnvelopeRecipientInput } from '@esign/contracts';
import { checkEnvelope, fieldHeightPercent } from './envelope-rules';
import { fieldValuesFor } from './envelope-step';
import type { TEnvelopeLink } from './envelope-ports';

const A4 = { width: 595, height: 842 };
const recipient = (input: Record<string, unknown>): TEnvelopeRecipientInput =>
  ZEnvelopeRecipientInput.parse({
    name: 'Ann',
    email: 'ann@example.com',
    role: 'signer',
    order: 1,
    ...input,
  });
const signature = { type: 'signature', page: 0, x: 10, y: 80, width: 30 };

/** The error `checkEnvelope` throws, as field and message. */
const faultOf = (recipients: TEnvelopeRecipientInput[], pages = [A4, A4]) => {
  try {
    checkEnvelope(recipients, pages);
  } catch (err) {
    if (err instanceof ServiceError) return { code: err.code, field: err.field, message: err.message };
    throw err;
  }
  return undefined;
};

describe('checkEnvelope (every rule against the document at once, the fault named as the client wrote it)', () => {
  it('accepts a signer, parallel signers, an approver and a cc', () => {
    expect(
      faultOf([
        recipient({ fields: [signature] }),
        recipient({ email: 'bo@example.com', order: 2, fields: [signature] }),
        recipient({ email: 'cy@example.com', order: 2, fields: [{ ...signature, page: 1 }] }),
        recipient({ email: 'di@example.com', order: 3, role: 'approver' }),
        recipient({ email: 'ed@example.com', order: 4, role: 'cc' }),
      ]),
    ).toBeUndefined();
  });

  it('names the recipient and field of a page the document lacks', () => {
    const fault = faultOf([
      recipient({ fields: [signature] }),
      recipient({ email: 'bo@example.com', order: 2, fields: [signature, { ...signature, page: 2 }] }),
    ]);
    expect(fault).toEqual({
      code: 'invalid_argument',
      field: 'recipients[1].fields[1].page',
      message: 'recipients[1].fields[1].page: page 2 does not exist (the document has 2 pages)',
    });
  });

  it('refuses boxes that leave the page, by width and by (default) height', () => {
    expect(faultOf([recipient({ fields: [{ ...signature, x: 50, width: 60 }] })])?.field).toBe(
      'recipients[0].fields[0].width',
    );
    // A 60%-wide signature on A4 is 119 pt tall by default: 14% of the page; at y 90 it leaves the page.
    expect(faultOf([recipient({ fields: [{ ...signature, x: 0, y: 90, width: 60 }] })])?.field).toBe(
      'recipients[0].fields[0].y',
    );
    expect(faultOf([recipient({ fields: [{ ...signature, y: 97 }] })])?.field).toBe(
      'recipients[0].fields[0].y',
    );
    expect(
      faultOf([recipient({ fields: [signature, { type: 'text', page: 0, x: 10, y: 97, width: 20 }] })]),
    ).toBeUndefined();
  });

  it('wants a signature field for every signer, and no fields for approvers and cc', () => {
    expect(
      faultOf([recipient({ fields: [{ type: 'date', page: 0, x: 1, y: 1, width: 10 }] })]),
    ).toMatchObject({
      field: 'recipients[0].fields',
      message: 'recipients[0].fields: a signer needs at least one signature field',
    });
    expect(
      faultOf([
        recipient({ fields: [signature] }),
        recipient({ email: 'x@example.com', role: 'cc', fields: [signature] }),
      ])?.field,
    ).toBe('recipients[1].fields');
  });

  it('wants distinct emails within a group (any case), but allows the same person in two groups', () => {
    const fault = faultOf([
      recipient({ fields: [signature] }),
      recipient({ email: 'ANN@example.com', fields: [signature] }),
    ]);
    expect(fault?.field).toBe('recipients[1].email');
    expect(fault?.message).toContain('recipients[0] in group 1');
    expect(
      faultOf([recipient({ fields: [signature] }), recipient({ order: 2, fields: [signature] })]),
    ).toBeUndefined();
  });

  it('wants someone who acts and at most 200 fields', () => {
    expect(faultOf([recipient({ role: 'cc' })])?.field).toBe('recipients');
    const many = Array.from({ length: 5 }, (_, i) =>
      recipient({ email: `s${i}@example.com`, fields: Array.from({ length: 41 }, () => signature) }),
    );
    expect(faultOf(many)?.message).toBe('recipients: at most 200 fields in all (205 given)');
  });

  it('takes embedded signers and approvers, and refuses an embedded cc recipient', () => {
    expect(faultOf([recipient({ fields: [signature], embedded: true })])).toBeUndefined();
    expect(faultOf([recipient({ role: 'approver', embedded: true })])).toBeUndefined();
    const cc = faultOf([
      recipient({ fields: [signature] }),
      recipient({ role: 'cc', email: 'c@example.com', embedded: true }),
    ]);
    expect(cc?.field).toBe('recipients[1].embedded');
    expect(cc?.message).toContain('only signers and approvers can be embedded');
  });

  it('accepts an email code for signers and approvers, not for people in copy (they open no link)', () => {
    expect(
      faultOf([
        recipient({ fields: [signature], requireEmailCode: true }),
        recipient({ email: 'bo@example.com', role: 'approver', requireEmailCode: true }),
      ]),
    ).toBeUndefined();
    expect(
      faultOf([
        recipient({ fields: [signature] }),
        recipient({ email: 'cy@example.com', role: 'cc', requireEmailCode: true }),
      ]),
    ).toMatchObject({ field: 'recipients[1].requireEmailCode' });
  });

  it('gives default heights: a third of the width for signatures, a square checkbox, one line of text', () => {
    expect(fieldHeightPercent({ ...signature, type: 'signature', required: true }, A4)).toBeCloseTo(
      ((0.3 * 595) / 3 / 842) * 100,
    );
    expect(fieldHeightPercent({ ...signature, type: 'checkbox', width: 3, required: true }, A4)).toBeCloseTo(
      ((0.03 * 595) / 842) * 100,
    );
    expect(fieldHeightPercent({ ...signature, type: 'text', required: true }, A4)).toBe(3);
    expect(fieldHeightPercent({ ...signature, type: 'text', height: 7, required: true }, A4)).toBe(7);
  });
});

const link = (fields: unknown[]): TEnvelopeLink =>
  ({
    recipient: {
      name: 'Ann Lee',
      email: 'ann@example.com',
      fields: fields.map((f) => ({ required: true, ...(f as object) })),
    },
  }) as unknown as TEnvelopeLink;

describe("fieldValuesFor (what is drawn in each of a signer's fields)", () => {
  const now = new Date('2026-11-26T23:59:00Z');
  it('fills dates, name and email, keeps text and checkboxes as given', () => {
    const values = fieldValuesFor(
      link([
        signature,
        { type: 'date', page: 0, x: 1, y: 1, width: 10 },
        { type: 'name', page: 0, x: 1, y: 1, width: 10 },
        { type: 'email', page: 0, x: 1, y: 1, width: 10 },
        { type: 'text', page: 0, x: 1, y: 1, width: 10, value: 'prefilled' },
        { type: 'text', page: 0, x: 1, y: 1, width: 10 },
        { type: 'checkbox', page: 0, x: 1, y: 1, width: 3 },
      ]),
      { values: { '5': ' Lisbon ', '6': true }, now },
    );
    expect(values.map((v) => v.value)).toEqual([
      undefined,
      '2026-11-26',
      'Ann Lee',
      'ann@example.com',
      'prefilled',
      'Lisbon',
      true,
    ]);
  });

  it('refuses a required field left empty, naming it with its label', () => {
    const fields = [signature, { type: 'text', page: 0, x: 1, y: 1, width: 10, label: 'City' }];
    expect(() => fieldValuesFor(link(fields), { values: { '1': '  ' }, now })).toThrow(
      'fields[1] (City): required',
    );
    expect(() =>
      fieldValuesFor(link([signature, { type: 'checkbox', page: 0, x: 1, y: 1, width: 3 }]), {
        values: {},
        now,
      }),
    ).toThrow('fields[1]: this box must be ticked');
    expect(() =>
      fieldValuesFor(link([signature, { type: 'initials', page: 0, x: 1, y: 1, width: 10 }]), {
        values: {},
        now,
      }),
    ).toThrow('please adopt your initials');
    // Optional ones may stay empty.
    expect(
      fieldValuesFor(link([signature, { type: 'text', page: 0, x: 1, y: 1, width: 10, required: false }]), {
        values: {},
        now,
      })[1],
    ).toEqual({
      field: expect.objectContaining({ type: 'text' }) as unknown,
    });
  });
});
