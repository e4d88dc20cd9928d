import { PDFDocument, degrees } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { ServiceError } from '@esign/contracts';
import type { TEnvelopeField } from '@esign/contracts';
import { checkFields, fieldBox } from './draw-fields';
import type { FilledField } from './draw-fields';

const field = (f: Partial<TEnvelopeField> & Pick<TEnvelopeField, 'type'>): TEnvelopeField => ({
  page: 0,
  x: 10,
  y: 10,
  width: 30,
  required: true,
  ...f,
});

const pagesOf = async (...rotations: number[]) => {
  const doc = await PDFDocument.create();
  for (const rotate of rotations) doc.addPage([600, 800]).setRotation(degrees(rotate));
  return doc.getPages();
};

const refusal = (run: () => void): ServiceError => {
  try {
    run();
  } catch (err) {
    if (err instanceof ServiceError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
};

const signature: FilledField = { field: field({ type: 'signature' }) };

describe('fieldBox', () => {
  it('takes the contract default heights: a third of the width, a square, one line of 3%', () => {
    const frame = { width: 600, height: 800 };
    expect(fieldBox(frame, field({ type: 'signature', width: 30 }))).toEqual({
      x: 60,
      y: 80,
      width: 180,
      height: 60,
    });
    expect(fieldBox(frame, field({ type: 'initials', width: 15 })).height).toBeCloseTo(30);
    expect(fieldBox(frame, field({ type: 'checkbox', width: 5 })).height).toBeCloseTo(30);
    expect(fieldBox(frame, field({ type: 'date', width: 20 })).height).toBeCloseTo(24);
    expect(fieldBox(frame, field({ type: 'text', width: 20, height: 10 })).height).toBeCloseTo(80);
  });
});

describe('checkFields', () => {
  it('accepts fields inside their pages, a rotated page measured as seen', async () => {
    const pages = await pagesOf(0, 90);
    // On the turned page (800 wide, 600 tall as seen) a box 60% wide a third as tall ends at y 100%.
    const low = field({ type: 'signature', page: 1, x: 40, y: 73.3, width: 60 });
    expect(() => checkFields([signature, { field: low }], pages, false)).not.toThrow();
    // The same box on the upright page (600 wide, 800 tall) fits too; one lower does not.
    expect(() => checkFields([{ field: { ...low, page: 0, y: 85 } }], pages, false)).not.toThrow();
    const err = refusal(() => checkFields([signature, { field: { ...low, y: 74 } }], pages, false));
    expect(err).toMatchObject({ code: 'invalid_argument', field: 'fields.1' });
  });

  it('names the field on a missing page, the box past the right edge, missing initials', async () => {
    const pages = await pagesOf(0);
    expect(
      refusal(() => checkFields([signature, { field: field({ type: 'signature', page: 1 }) }], pages, false)),
    ).toMatchObject({
      field: 'fields.1.page',
      message: 'fields.1.page: page 1 does not exist (the document has 1 page)',
    });
    expect(
      refusal(() => checkFields([{ field: field({ type: 'signature', x: 71, width: 30 }) }], pages, false)),
    ).toMatchObject({ field: 'fields.0' });
    expect(
      refusal(() =>
        checkFields([signature, { field: field({ type: 'initials', width: 10 }) }], pages, false),
      ),
    ).toMatchObject({ field: 'fields.1' });
  });

  it('refuses values of the wrong kind, a required value left empty, and no signature field', async () => {
    const pages = await pagesOf(0);
    const date = field({ type: 'date', width: 20 });
    expect(refusal(() => checkFields([signature, { field: date }], pages, false))).toMatchObject({
      field: 'fields.1.value',
    });
    expect(refusal(() => checkFields([signature, { field: date, value: true }], pages, false))).toMatchObject(
      {
        field: 'fields.1.value',
      },
    );
    expect(() =>
      checkFields([signature, { field: { ...date, required: false } }], pages, false),
    ).not.toThrow();
    const box = field({ type: 'checkbox', width: 4 });
    expect(refusal(() => checkFields([signature, { field: box, value: 'yes' }], pages, false))).toMatchObject(
      {
        field: 'fields.1.value',
      },
    );
    expect(refusal(() => checkFields([{ field: box, value: true }], pages, false))).toMatchObject({
      field: 'fields',
    });
  });
});
