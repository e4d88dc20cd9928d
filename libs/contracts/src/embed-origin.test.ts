import { describe, expect, it } from 'vitest';
import { ZEmbedOrigin } from './account';
import { checkEmbedOrigin } from './embed-origin';

// The one origin check: the API's schema and the dashboard's form both run it.

describe('checkEmbedOrigin', () => {
  it.each([
    ['https://App.Example.com', 'https://app.example.com'],
    ['https://app.example.com:443/', 'https://app.example.com'],
    ['https://app.example.com:8443', 'https://app.example.com:8443'],
    ['http://localhost:5173', 'http://localhost:5173'],
    ['http://shop.localhost', 'http://shop.localhost'],
    ['http://127.0.0.2:8080', 'http://127.0.0.2:8080'],
    ['http://[::1]:3000', 'http://[::1]:3000'],
  ])('accepts %s as the browser names it (%s)', (typed, origin) => {
    expect(checkEmbedOrigin(typed)).toEqual({ origin });
  });

  it.each([
    ['app.example.com', 'app.example.com is not an origin (https://host[:port])'],
    ['https://app.example.com/embed', 'is not an origin: https://host[:port], without a path'],
    ['https://app.example.com?x=1', 'without a path'],
    ['https://app.example.com#top', 'without a path'],
    ['https://app.example.com?', 'without a path'],
    ['https://user@app.example.com', 'without a path'],
    ['ftp://app.example.com', 'without a path'],
    ['http://app.example.com', 'http://app.example.com: http is allowed for localhost only; use https'],
    ['http://10.0.0.1', 'http is allowed for localhost only'],
  ])('refuses %s, saying why', (typed, why) => {
    const checked = checkEmbedOrigin(typed);
    expect('error' in checked && checked.error).toContain(why);
  });

  it('is what ZEmbedOrigin runs: the same origin, the same words', () => {
    expect(ZEmbedOrigin.parse('https://App.Example.com:443')).toBe('https://app.example.com');
    const refused = ZEmbedOrigin.safeParse('http://app.example.com');
    expect(refused.success).toBe(false);
    expect(refused.error?.issues[0]?.message).toBe(
      (checkEmbedOrigin('http://app.example.com') as { error: string }).error,
    );
    expect(ZEmbedOrigin.safeParse(`https://${'a'.repeat(300)}.com`).success).toBe(false);
  });
});
