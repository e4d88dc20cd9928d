import { describe, expect, it } from 'vitest';
import {
  createEventGate,
  esignMessageOf,
  signingOriginOf,
  SIGNING_FRAME_SANDBOX,
} from '../src/esign-signing';

describe('the messages <esign-signing> re-emits', () => {
  it("takes the signing page's messages with their detail, and nothing else a frame may post", () => {
    expect(esignMessageOf({ source: 'esign', type: 'signed', detail: { completing: true } })).toEqual({
      type: 'signed',
      detail: { completing: true },
    });
    expect(esignMessageOf({ source: 'esign', type: 'viewed' })).toEqual({ type: 'viewed', detail: {} });
    expect(esignMessageOf({ source: 'esign', type: 'error', detail: ['x'] })).toEqual({
      type: 'error',
      detail: {},
    });
    expect(esignMessageOf({ source: 'other', type: 'signed' })).toBeUndefined();
    expect(esignMessageOf({ source: 'esign', type: 'hijacked' })).toBeUndefined();
    expect(esignMessageOf('signed')).toBeUndefined();
    expect(esignMessageOf(null)).toBeUndefined();
  });

  it('frames http(s) URLs only, and knows their origin', () => {
    expect(signingOriginOf('https://esign.example.com/e/abc', 'https://app.example.com/')).toBe(
      'https://esign.example.com',
    );
    expect(signingOriginOf('/e/abc', 'http://localhost:3000/page')).toBe('http://localhost:3000');
    expect(signingOriginOf('javascript:alert(1)', 'https://app.example.com/')).toBeUndefined();
    expect(signingOriginOf('data:text/html,hi', 'https://app.example.com/')).toBeUndefined();
  });

  it('lets the frame run its scripts and forms as its own origin, and nothing more', () => {
    expect(SIGNING_FRAME_SANDBOX.split(' ').sort()).toEqual([
      'allow-forms',
      'allow-same-origin',
      'allow-scripts',
    ]);
  });

  it('passes one error at most, and none once the recipient acted', () => {
    const failing = createEventGate();
    expect([failing('error'), failing('error')]).toEqual([true, false]);

    const signing = createEventGate();
    expect(['loaded', 'viewed', 'signed', 'error'].map((type) => signing(type as 'error'))).toEqual([
      true,
      true,
      true,
      false,
    ]);
  });
});
