import { describe, expect, it } from 'vitest';
import { findMissingTools } from '../src/index';

describe('findMissingTools', () => {
  it('finds qpdf on this PATH', () => {
    expect(findMissingTools()).toEqual([]);
  });

  it('names qpdf, what is lost without it and how to install it, when PATH lacks it', () => {
    const missing = findMissingTools('/nonexistent');
    expect(missing.map((m) => m.tool)).toEqual(['qpdf']);
    expect(missing[0]?.hint).toMatch(/encrypted PDFs[\s\S]*apt-get install qpdf/);
  });
});
