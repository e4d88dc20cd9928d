import { describe, expect, it } from 'vitest';
import { PDFName } from 'pdf-lib';
// pdf-lib's ES build, which `name-lookup` does not touch (it patches the CommonJS build Node loads).
import * as untouched from 'pdf-lib/es/index.js';
import './name-lookup';

describe('name-lookup (PDFName.of without a regular expression per call)', () => {
  it.each(['Type', 'Helvetica-1095114838', 'A#20B', 'A B', 'Lime#2fGreen', '#41', ''])(
    'gives %j the instance and the text pdf-lib gives it',
    (name) => {
      const sut = PDFName.of(name);
      expect(PDFName.of(name)).toBe(sut);
      expect(sut.toString()).toBe(untouched.PDFName.of(name).toString());
      expect(sut.asString()).toBe(untouched.PDFName.of(name).asString());
    },
  );

  it('gives a name and its #-escaped spelling one instance, as pdf-lib pools them', () => {
    expect(PDFName.of('A#20B')).toBe(PDFName.of('A B'));
    expect(PDFName.of('Lime#2FGreen')).toBe(PDFName.of('Lime/Green'));
  });
});
