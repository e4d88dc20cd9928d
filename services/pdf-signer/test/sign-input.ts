import type { SignInput } from '../src/index';

/**
 * A PDF signed in-process by `name` (`<name>@example.com`), with a drawn signature (`pngBase64`) at
 * `x`% of the width of page 1: what the countersigning and time-stamping tests sign, one signer
 * after another.
 */
export const drawnSignatureInput = (options: {
  readonly bytes: Buffer;
  readonly name: string;
  readonly pngBase64: string;
  readonly x?: number;
}): SignInput => ({
  bytes: options.bytes,
  kind: 'pdf',
  fileName: 'contract.pdf',
  signature: { mode: 'draw', imageBase64: options.pngBase64 },
  positions: [{ x: options.x ?? 10, y: 80, page: 0, width: 20 }],
  signer: {
    name: options.name,
    email: `${options.name.toLowerCase()}@example.com`,
    ipAddress: '198.51.100.7',
    userAgent: 'Test/1.0',
  },
  receivedAt: '2026-11-21T10:00:00.000Z',
});
