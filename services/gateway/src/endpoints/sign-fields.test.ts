import { describe, expect, it } from 'vitest';
import { ServiceError } from '@esign/contracts';
import { parseOrThrow } from '@esign/contracts';
import { ZSignFields } from './sign-fields';

const base = {
  signerName: 'Ada Lovelace',
  signerEmail: 'ada@example.com',
  signatureData: 'data:image/png;base64,AA',
};

const fieldOf = (fields: Record<string, string>): string | undefined => {
  try {
    parseOrThrow(ZSignFields, fields);
    return undefined;
  } catch (err) {
    if (err instanceof ServiceError) return `${err.field}: ${err.message}`;
    throw err;
  }
};

describe('sign form fields', () => {
  it('applies the spec defaults: x 50, y 85, page 0, width 25, mode draw, sigColor #1e3a8a', () => {
    expect(parseOrThrow(ZSignFields, base)).toMatchObject({
      x: 50,
      y: 85,
      page: 0,
      width: 25,
      mode: 'draw',
      sigColor: '#1e3a8a',
    });
  });

  it('parses numbers sent as form strings and keeps the bounds inclusive', () => {
    expect(parseOrThrow(ZSignFields, { ...base, x: '0', y: '100', width: '10', page: '3' })).toMatchObject({
      x: 0,
      y: 100,
      width: 10,
      page: 3,
    });
    expect(parseOrThrow(ZSignFields, { ...base, width: '60' }).width).toBe(60);
  });

  it.each([
    [{ x: '100.5' }, 'x: x must be a number from 0 to 100'],
    [{ y: '-1' }, 'y: y must be a number from 0 to 100'],
    [{ width: '9.9' }, 'width: width must be a number from 10 to 60'],
    [{ width: '61' }, 'width: width must be a number from 10 to 60'],
    [{ page: '1.5' }, 'page: page must be an integer from 0 to 100000'],
    [{ x: 'left' }, 'x: x must be a number from 0 to 100'],
    [{ mode: 'paint' }, 'mode: mode must be draw, type or upload'],
    [{ sigColor: 'blue' }, 'sigColor: sigColor: must be a hex colour like #1e3a8a'],
    [{ signerEmail: 'nope' }, 'signerEmail: signerEmail must be an email address'],
    [{ positions: '{' }, 'positions: positions must be a JSON array of {x, y, page, width}'],
    [{ positions: '[]' }, 'positions: positions must hold at least one position'],
    [
      { positions: '[{"x":1,"y":2,"page":0,"width":70}]' },
      'positions[0].width: positions[0].width: width must be a number from 10 to 60',
    ],
  ])('names the field at fault: %j', (override, expected) => {
    expect(fieldOf({ ...base, ...override })).toBe(expected);
  });

  it('requires signatureData in draw and upload mode and typedName in type mode', () => {
    const { signatureData: _omit, ...noImage } = base;
    expect(fieldOf(noImage)).toBe('signatureData: signatureData is required in draw mode');
    expect(fieldOf({ ...noImage, mode: 'upload' })).toBe(
      'signatureData: signatureData is required in upload mode',
    );
    expect(fieldOf({ ...noImage, mode: 'type' })).toBe('typedName: typedName is required when mode=type');
    expect(fieldOf({ ...noImage, mode: 'type', typedName: 'Ada' })).toBeUndefined();
  });

  it('requires the signer', () => {
    expect(fieldOf({ signerEmail: 'a@b.co', signatureData: 'x' })).toBe('signerName: signerName is required');
    expect(fieldOf({ signerName: 'A', signatureData: 'x' })).toBe(
      'signerEmail: signerEmail must be an email address',
    );
  });
});
