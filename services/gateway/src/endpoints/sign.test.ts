import { describe, expect, it } from 'vitest';
import { PLAN_LIMITS, type TPlan, type TPrincipal } from '@esign/contracts';
import { loadGatewayConfig } from '../config';
import { signDocumentOperation } from './sign';

const config = loadGatewayConfig({
  S3_ENDPOINT: 'http://127.0.0.1:9',
  S3_ACCESS_KEY: 'a',
  S3_SECRET_KEY: 'b',
});
const principal = (plan: TPlan): TPrincipal => ({
  accountId: '3f1c2b8e-5d6a-4e7f-9a0b-1c2d3e4f5a6b',
  keyId: '5c0b7a51-0f6e-4a54-9d7f-3b1d7c5e2a10',
  email: 'ada@example.com',
  plan,
  apiAccess: PLAN_LIMITS[plan].apiAccess,
});

describe('the upload limit of POST /api/v1/sign', () => {
  const maxBytes = signDocumentOperation.apiKey.request.multipart?.file.maxBytes;

  it("is the key's plan's file size, known before the upload", () => {
    expect(maxBytes?.(config, principal('free'))).toBe(10 * 1024 * 1024);
    expect(maxBytes?.(config, principal('business'))).toBe(25 * 1024 * 1024);
  });

  it("never exceeds the gateway's own limit", () => {
    const small = { ...config, SIGN_MAX_FILE_BYTES: 1024 };
    expect(maxBytes?.(small, principal('business'))).toBe(1024);
    expect(maxBytes?.(small, undefined)).toBe(1024);
  });
});
