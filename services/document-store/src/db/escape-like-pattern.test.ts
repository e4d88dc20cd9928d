import { describe, expect, it } from 'vitest';
import { escapeLikePattern } from './document-repository';

describe('escapeLikePattern', () => {
  it('makes %, _ and backslash literal', () => {
    expect(escapeLikePattern('50%_off\\final')).toBe('50\\%\\_off\\\\final');
    expect(escapeLikePattern('plain name.pdf')).toBe('plain name.pdf');
  });
});
