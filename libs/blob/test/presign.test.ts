import { Client } from 'minio';
import { presignSignatureV4 } from 'minio/dist/esm/signing.mjs';
import { describe, expect, it } from 'vitest';
import { copySourceOf, createPresigner } from '../src/presign';

/** Path and query parameters (in order of name) of a URL, which is what S3 checks the signature over. */
const parts = (url: string) => {
  const u = new URL(url);
  return { origin: u.origin, path: u.pathname, query: [...u.searchParams.entries()].sort() };
};

const at = new Date('2026-11-21T18:04:05.678Z');

describe('createPresigner', () => {
  for (const endpoint of ['http://127.0.0.1:9000', 'https://s3.eu-central-1.amazonaws.com']) {
    const options = {
      endpoint,
      accessKey: 'AKIAEXAMPLE',
      secretKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
      region: 'eu-central-1',
    };
    const url = new URL(endpoint);
    const reference = new Client({
      endPoint: url.hostname,
      port: url.port ? Number(url.port) : 443,
      useSSL: url.protocol === 'https:',
      accessKey: options.accessKey,
      secretKey: options.secretKey,
      region: options.region,
      pathStyle: true,
    });
    const sut = createPresigner(options);

    it.each([
      ['GET', 'uploads/5b0f7c1e-3d2a-4c55-9f1e-0a1b2c3d4e5f', {}],
      ['PUT', 'signed/acct/ESG-AAAA-BBBB-CCCC.pdf', {}],
      ['DELETE', 'uploads/x', {}],
      ['PUT', 'uploads/big', { partNumber: '3', uploadId: 'abc/def+ghi==' }],
      ['GET', "odd key/with spaces & (parens)!*'~/ünïcødé/契約.pdf", {}],
    ] as const)(`signs %s %s exactly as minio-js does (${endpoint})`, async (method, key, params) => {
      const expected = await reference.presignedUrl(method, 'esign-docs', key, 900, { ...params }, at);
      expect(parts(sut(method, 'esign-docs', key, 900, params, at))).toEqual(parts(expected));
    });
  }

  it('signs the x-amz-copy-source of a copy as minio-js signs a request with that header', () => {
    const options = {
      endpoint: 'http://127.0.0.1:9000',
      accessKey: 'AKIAEXAMPLE',
      secretKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
      region: 'eu-central-1',
    };
    const source = copySourceOf('esign-docs', 'uploads/odd key (1)/契約.pdf');
    expect(source).toBe('/esign-docs/uploads/odd%20key%20%281%29/%E5%A5%91%E7%B4%84.pdf');
    const sut = createPresigner(options);
    const url = sut('PUT', 'esign-docs', 'pending/acct/a b.pdf', 900, {}, at, {
      'x-amz-copy-source': source,
    });
    const expected = presignSignatureV4(
      {
        method: 'PUT',
        protocol: 'http:',
        path: '/esign-docs/pending/acct/a%20b.pdf',
        headers: { host: '127.0.0.1:9000', 'x-amz-copy-source': source },
      },
      options.accessKey,
      options.secretKey,
      undefined,
      options.region,
      at,
      900,
    );
    expect(parts(url)).toEqual(parts(expected));
    expect(new URL(url).searchParams.get('X-Amz-SignedHeaders')).toBe('host;x-amz-copy-source');

    // Several headers are signed in order of name, whatever order they are given in.
    const replacing = { 'x-amz-metadata-directive': 'REPLACE', 'x-amz-copy-source': source };
    const both = sut('PUT', 'esign-docs', 'pending/acct/a b.pdf', 900, {}, at, replacing);
    const bothExpected = presignSignatureV4(
      {
        method: 'PUT',
        protocol: 'http:',
        path: '/esign-docs/pending/acct/a%20b.pdf',
        headers: {
          host: '127.0.0.1:9000',
          'x-amz-copy-source': source,
          'x-amz-metadata-directive': 'REPLACE',
        },
      },
      options.accessKey,
      options.secretKey,
      undefined,
      options.region,
      at,
      900,
    );
    expect(parts(both)).toEqual(parts(bothExpected));
  });

  it('derives a new signing key when the day changes', () => {
    const sut = createPresigner({
      endpoint: 'http://127.0.0.1:9000',
      accessKey: 'a',
      secretKey: 'b',
      region: 'us-east-1',
    });
    const day1 = new URL(sut('GET', 'bkt', 'k', 60, {}, new Date('2026-11-21T23:59:59Z')));
    const day2 = new URL(sut('GET', 'bkt', 'k', 60, {}, new Date('2026-11-22T00:00:01Z')));
    expect(day1.searchParams.get('X-Amz-Credential')).toBe('a/20261121/us-east-1/s3/aws4_request');
    expect(day2.searchParams.get('X-Amz-Credential')).toBe('a/20261122/us-east-1/s3/aws4_request');
    expect(day1.searchParams.get('X-Amz-Signature')).not.toBe(day2.searchParams.get('X-Amz-Signature'));
  });
});
