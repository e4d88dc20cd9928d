import { describe, expect, it } from 'vitest';
import type { NextFunction, Request, Response } from 'express';
import { createRateCounter } from './rate-counter';
import { rateLimit } from './rate-limit';

const call = (sut: ReturnType<typeof rateLimit>, key: string) => {
  const headers: Record<string, string> = {};
  let status = 200;
  let nextCalled = false;
  const res = {
    locals: { rateKey: key },
    headersSent: false,
    set: (k: string, v: string) => void (headers[k] = v),
    status: (s: number) => {
      status = s;
      return res;
    },
    json: () => res,
  } as unknown as Response;
  sut({ ip: '127.0.0.1', socket: {} } as Request, res, (() => (nextCalled = true)) as NextFunction);
  return { status, headers, nextCalled };
};

describe('rate limit', () => {
  it('lets the limit through, answers 429 with Retry-After beyond it, and starts afresh each minute', () => {
    let now = 0;
    const sut = rateLimit({ perMinute: 2, counter: createRateCounter({ windowMs: 60_000, now: () => now }) });
    expect(call(sut, 'k').nextCalled).toBe(true);
    expect(call(sut, 'k').headers['RateLimit-Remaining']).toBe('0');
    now = 15_000;
    const limited = call(sut, 'k');
    expect([limited.status, limited.nextCalled, limited.headers['Retry-After']]).toEqual([429, false, '45']);
    expect(call(sut, 'other').nextCalled).toBe(true);
    now = 60_000;
    expect(call(sut, 'k').nextCalled).toBe(true);
  });
});
