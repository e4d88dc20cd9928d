import { describe, expect, it } from 'vitest';
import { currentRoute, hashOf } from './router';

describe('the dashboard router', () => {
  it('reads the view, its parameter and the query from a hash', () => {
    const list = currentRoute('#/documents?search=nda&page=2');
    expect(list.name).toBe('documents');
    expect(list.param).toBeUndefined();
    expect(list.query.get('search')).toBe('nda');
    expect(list.query.get('page')).toBe('2');
    const one = currentRoute('#/document/ESG-7KQ2-M4XP-9D3F');
    expect([one.name, one.param]).toEqual(['document', 'ESG-7KQ2-M4XP-9D3F']);
    expect(currentRoute('').name).toBe('');
    expect(currentRoute('#/document/a%20b').param).toBe('a b');
  });

  it('writes a hash, leaving out empty values', () => {
    expect(hashOf('documents', { search: 'a&b', from: '', page: 2, sort: undefined })).toBe(
      '#/documents?search=a%26b&page=2',
    );
    expect(hashOf('keys')).toBe('#/keys');
    expect(currentRoute(hashOf('documents', { search: 'a&b' })).query.get('search')).toBe('a&b');
  });
});
