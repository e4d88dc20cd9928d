import { describe, expect, it } from 'vitest';
import { findUnstorableText } from './find-unstorable-text';

describe('findUnstorableText', () => {
  it('names the path of the first NUL or lone surrogate, in values and in keys', () => {
    expect(findUnstorableText({ a: 'ok', b: 'x\u0000' })).toBe('b');
    expect(findUnstorableText({ events: [{ details: {} }, { details: { note: 'a\udc00' } }] })).toBe(
      'events.1.details.note',
    );
    expect(findUnstorableText({ events: [{ details: { 'k\u0000': 1 } }] })).toBe('events.0.details.k\u0000');
    expect(findUnstorableText('\ud800')).toBe('(value)');
  });

  it('accepts everything else, surrogate pairs included', () => {
    expect(findUnstorableText({ name: 'Zoë 😀 名前', n: 1, b: true, z: null, list: ['x'] })).toBeUndefined();
  });
});
