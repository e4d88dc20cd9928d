import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { request, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { Client } from 'minio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestS3 } from '../src/s3/start-test-s3';
import { startS3Server, type S3Server } from '../src/s3/server';

const MiB = 1024 * 1024;
const DAY_MS = 86_400_000;

const clientFor = (endpoint: string, region: string | undefined = 'us-east-1') => {
  const url = new URL(endpoint);
  return new Client({
    endPoint: url.hostname,
    port: Number(url.port),
    useSSL: false,
    accessKey: 'any',
    secretKey: 'anything',
    ...(region ? { region } : {}),
    pathStyle: true,
  });
};

const readAll = async (stream: Readable) => {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
};

interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** One request with node:http, as the services do with presigned URLs. */
const raw = (
  method: string,
  url: string,
  options: { headers?: Record<string, string | number>; body?: Buffer | string } = {},
) =>
  new Promise<RawResponse>((resolve, reject) => {
    const req = request(url, { method, headers: options.headers }, (res) => {
      readAll(res).then(
        (body) => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }),
        reject,
      );
    });
    req.on('error', reject);
    req.end(options.body);
  });

const codeOf = async (promise: Promise<unknown>) => {
  try {
    await promise;
  } catch (err) {
    return (err as Error & { code?: string }).code;
  }
  return 'no error';
};

let directory: string;
let server: S3Server;
let client: Client;
const bucket = 'unit';

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 's3-server-test-'));
  server = await startS3Server({ directory });
  client = clientFor(server.endpoint);
  await client.makeBucket(bucket, 'us-east-1');
});

afterAll(async () => {
  await server.stop();
  await rm(directory, { recursive: true, force: true });
});

describe('buckets', () => {
  it('creates buckets with or without a configuration body and reports them', async () => {
    expect(await client.bucketExists('fresh')).toBe(false);
    await client.makeBucket('fresh', 'us-east-1');
    expect(await client.bucketExists('fresh')).toBe(true);
    expect(await codeOf(client.makeBucket('fresh', 'us-east-1'))).toBe('BucketAlreadyOwnedByYou');

    const configured = await raw('PUT', `${server.endpoint}/configured`, {
      body:
        '<CreateBucketConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/">' +
        '<LocationConstraint>us-east-1</LocationConstraint></CreateBucketConfiguration>',
    });
    expect(configured.status).toBe(200);
    expect(await client.bucketExists('configured')).toBe(true);

    const invalid = await raw('PUT', `${server.endpoint}/Not_A_Bucket`);
    expect(invalid.status).toBe(400);
    expect(invalid.body.toString()).toContain('<Code>InvalidBucketName</Code>');

    const names = (await client.listBuckets()).map((b) => b.name);
    expect(names).toEqual(expect.arrayContaining(['configured', 'fresh', bucket]));
  });

  it('answers the region, which a client without a fixed region asks for first', async () => {
    const location = await raw('GET', `${server.endpoint}/${bucket}?location`);
    expect(location.status).toBe(200);
    expect(location.body.toString()).toMatch(/<LocationConstraint[^>]*>us-east-1<\/LocationConstraint>/);

    const regionless = clientFor(server.endpoint, undefined);
    await regionless.putObject(bucket, 'region/probe', Buffer.from('x'));
    expect((await regionless.statObject(bucket, 'region/probe')).size).toBe(1);
  });
});

describe('objects', () => {
  it('stores, reads, stats, overwrites and removes an object with its content type and metadata', async () => {
    const bytes = randomBytes(10_000);
    const put = await client.putObject(bucket, 'docs/a.pdf', bytes, bytes.length, {
      'Content-Type': 'application/pdf',
      'x-amz-meta-origin': 'unit-test',
    });
    expect(put.etag).toMatch(/^[0-9a-f]{32}$/);

    const stat = await client.statObject(bucket, 'docs/a.pdf');
    expect(stat.size).toBe(bytes.length);
    expect(stat.etag).toBe(put.etag);
    expect(stat.metaData).toMatchObject({ 'content-type': 'application/pdf', origin: 'unit-test' });
    expect(Math.abs(stat.lastModified.getTime() - Date.now())).toBeLessThan(60_000);

    expect((await readAll(await client.getObject(bucket, 'docs/a.pdf'))).equals(bytes)).toBe(true);
    const got = await raw('GET', `${server.endpoint}/${bucket}/docs/a.pdf`);
    expect(got.status).toBe(200);
    expect(got.headers['content-type']).toBe('application/pdf');
    expect(got.headers['content-length']).toBe(String(bytes.length));
    expect(got.headers.etag).toBe(`"${put.etag}"`);
    expect(new Date(got.headers['last-modified'] ?? '').getTime()).toBeGreaterThan(Date.now() - 60_000);
    expect(got.headers.connection).toBe('keep-alive');

    const partial = await readAll(await client.getPartialObject(bucket, 'docs/a.pdf', 100, 50));
    expect(partial.equals(bytes.subarray(100, 150))).toBe(true);
    const tail = await raw('GET', `${server.endpoint}/${bucket}/docs/a.pdf`, {
      headers: { Range: 'bytes=-10' },
    });
    expect(tail.status).toBe(206);
    expect(tail.headers['content-range']).toBe(
      `bytes ${bytes.length - 10}-${bytes.length - 1}/${bytes.length}`,
    );
    expect(tail.body.equals(bytes.subarray(-10))).toBe(true);

    const replacement = randomBytes(300_000);
    const second = await client.putObject(bucket, 'docs/a.pdf', replacement, replacement.length);
    expect(second.etag).not.toBe(put.etag);
    expect((await readAll(await client.getObject(bucket, 'docs/a.pdf'))).equals(replacement)).toBe(true);
    expect((await client.statObject(bucket, 'docs/a.pdf')).metaData['content-type']).toBe(
      'application/octet-stream',
    );

    await client.removeObject(bucket, 'docs/a.pdf');
    expect(await codeOf(client.statObject(bucket, 'docs/a.pdf'))).toBe('NotFound');
    const again = await raw('DELETE', `${server.endpoint}/${bucket}/docs/a.pdf`);
    expect(again.status).toBe(204);
  });

  it('stores an empty object', async () => {
    await client.putObject(bucket, 'empty', Buffer.alloc(0));
    expect((await client.statObject(bucket, 'empty')).size).toBe(0);
    expect((await readAll(await client.getObject(bucket, 'empty'))).length).toBe(0);
  });

  it('keeps keys with slashes, spaces, symbols and non-ASCII characters exact', async () => {
    const keys = [
      'nested/a/b/c.txt',
      'odd/spaced name with+plus&amp;.pdf',
      'odd/unicode/日本語/ünïcødé 📄.pdf',
      'odd/x//double/slash',
      'odd/percent%20literal?and#hash',
      '007',
      '1e5',
    ];
    for (const key of keys) await client.putObject(bucket, key, Buffer.from(key));
    for (const key of keys) {
      expect((await readAll(await client.getObject(bucket, key))).toString()).toBe(key);
    }
    const listed: string[] = [];
    for await (const item of client.listObjectsV2(bucket, '', true))
      listed.push((item as { name: string }).name);
    expect(listed).toEqual(expect.arrayContaining(keys));
    const odd: string[] = [];
    for await (const item of client.listObjectsV2(bucket, 'odd/', true))
      odd.push((item as { name: string }).name);
    expect(odd.sort()).toEqual(keys.filter((k) => k.startsWith('odd/')).sort());
  });

  it('lists keys under a prefix, past a page of 1000 and by folder', async () => {
    const keys = Array.from({ length: 1005 }, (_, i) => `many/${String(i).padStart(4, '0')}`);
    for (let i = 0; i < keys.length; i += 25) {
      await Promise.all(keys.slice(i, i + 25).map((key) => client.putObject(bucket, key, Buffer.from(key))));
    }
    await client.putObject(bucket, 'many-not/x', Buffer.from('x'));
    await client.putObject(bucket, 'folders/a/1', Buffer.from('1'));
    await client.putObject(bucket, 'folders/a/2', Buffer.from('2'));
    await client.putObject(bucket, 'folders/b/1', Buffer.from('1'));
    await client.putObject(bucket, 'folders/top', Buffer.from('t'));

    const listed: { name: string; size: number }[] = [];
    for await (const item of client.listObjectsV2(bucket, 'many/', true))
      listed.push(item as (typeof listed)[number]);
    expect(listed.map((i) => i.name)).toEqual(keys);
    expect(listed[3]?.size).toBe(9);

    const tree: { name?: string; prefix?: string }[] = [];
    for await (const item of client.listObjectsV2(bucket, 'folders/', false))
      tree.push(item as (typeof tree)[number]);
    expect(tree.filter((i) => i.prefix).map((i) => i.prefix)).toEqual(['folders/a/', 'folders/b/']);
    expect(tree.filter((i) => i.name).map((i) => i.name)).toEqual(['folders/top']);

    const pages: number[] = [];
    let token: string | undefined;
    do {
      const query = `list-type=2&prefix=many%2F&max-keys=400${token ? `&continuation-token=${encodeURIComponent(token)}` : ''}`;
      const page = (await raw('GET', `${server.endpoint}/${bucket}?${query}`)).body.toString();
      pages.push((page.match(/<Contents>/g) ?? []).length);
      token = /<NextContinuationToken>([^<]+)</.exec(page)?.[1];
      expect(page).toContain(`<IsTruncated>${token ? 'true' : 'false'}</IsTruncated>`);
    } while (token);
    expect(pages).toEqual([400, 400, 205]);

    const after = (
      await raw('GET', `${server.endpoint}/${bucket}?list-type=2&prefix=many/&start-after=many/1002`)
    ).body;
    expect([...after.toString().matchAll(/<Key>([^<]+)<\/Key>/g)].map((m) => m[1])).toEqual([
      'many/1003',
      'many/1004',
    ]);
  });
});

describe('errors', () => {
  it('answers 404 with S3 error codes for missing keys and buckets', async () => {
    expect(await codeOf(client.getObject(bucket, 'missing'))).toBe('NoSuchKey');
    expect(await codeOf(client.statObject(bucket, 'missing'))).toBe('NotFound');
    expect(await codeOf(client.getObject('no-such-bucket', 'k'))).toBe('NoSuchBucket');
    expect(await client.bucketExists('no-such-bucket')).toBe(false);

    const missing = await raw('GET', `${server.endpoint}/${bucket}/missing/key`);
    expect(missing.status).toBe(404);
    expect(missing.headers['content-type']).toBe('application/xml');
    expect(missing.body.toString()).toContain('<Code>NoSuchKey</Code>');
    expect(missing.body.toString()).toContain('<Key>missing/key</Key>');
  });

  it('refuses what it does not implement instead of misreading it as a plain write', async () => {
    await client.putObject(bucket, 'guarded', Buffer.from('original'));
    const tagging = await raw('PUT', `${server.endpoint}/${bucket}/guarded?tagging`, { body: '<Tagging/>' });
    expect(tagging.status).toBe(501);
    expect(tagging.body.toString()).toContain('<Code>NotImplemented</Code>');
    const copy = await raw('PUT', `${server.endpoint}/${bucket}/copied`, {
      headers: { 'x-amz-copy-source': `/${bucket}/guarded`, 'x-amz-copy-source-if-match': '"etag"' },
    });
    expect(copy.status).toBe(501);
    expect((await raw('GET', `${server.endpoint}/${bucket}?policy`)).status).toBe(501);
    expect((await readAll(await client.getObject(bucket, 'guarded'))).toString()).toBe('original');
    expect(await codeOf(client.statObject(bucket, 'copied'))).toBe('NotFound');
  });

  it('stores nothing when the client goes away in the middle of a body', async () => {
    const url = new URL(`${server.endpoint}/${bucket}/aborted/object`);
    await new Promise<void>((resolve) => {
      const req = request(url, { method: 'PUT', agent: false, headers: { 'Content-Length': 4 * MiB } });
      req.on('error', () => resolve());
      req.write(randomBytes(MiB), () => setTimeout(() => req.destroy(), 50));
      req.on('close', () => resolve());
    });
    let leftovers: string[] = ['not yet checked'];
    for (let i = 0; i < 50 && leftovers.length > 0; i++) {
      await new Promise((r) => setTimeout(r, 20));
      leftovers = await readdir(join(directory, '.tmp'));
    }
    expect(leftovers).toEqual([]);
    expect(await codeOf(client.statObject(bucket, 'aborted/object'))).toBe('NotFound');
  });
});

describe('copy', () => {
  // A bucket of its own: other tests count the files of theirs.
  const copies = 'copies';
  beforeAll(() => client.makeBucket(copies, 'us-east-1'));

  it('copies an object on the server with its content type and metadata, and answers CopyObjectResult', async () => {
    const bytes = randomBytes(300_000);
    const source = 'copy/uploads/original file.pdf';
    await client.putObject(copies, source, bytes, bytes.length, {
      'Content-Type': 'application/pdf',
      'x-amz-meta-origin': 'upload',
    });
    const copy = await raw('PUT', `${server.endpoint}/${copies}/copy/pending/copied.pdf`, {
      headers: { 'x-amz-copy-source': `/${copies}/${encodeURIComponent(source).replace(/%2F/g, '/')}` },
    });
    expect(copy.status).toBe(200);
    const xml = copy.body.toString();
    expect(xml).toMatch(/<CopyObjectResult[^>]*><LastModified>\d{4}-\d\d-\d\dT[^<]+Z<\/LastModified>/);
    const etag = /<ETag>&quot;([0-9a-f]{32})&quot;<\/ETag>/.exec(xml)?.[1];
    const stat = await client.statObject(copies, 'copy/pending/copied.pdf');
    expect(stat.etag).toBe(etag);
    expect(stat.size).toBe(bytes.length);
    expect(stat.metaData['content-type']).toBe('application/pdf');
    expect(stat.metaData.origin).toBe('upload');
    expect((await readAll(await client.getObject(copies, 'copy/pending/copied.pdf'))).equals(bytes)).toBe(
      true,
    );
    // A copy, not a move: the source is still there, and removing it leaves the copy whole.
    await client.removeObject(copies, source);
    expect((await readAll(await client.getObject(copies, 'copy/pending/copied.pdf'))).equals(bytes)).toBe(
      true,
    );
  });

  it("replaces the content type and metadata with the request's under the REPLACE directive", async () => {
    await client.putObject(copies, 'copy/bytes', Buffer.from('%PDF-1.7'), 8, {
      'Content-Type': 'application/octet-stream',
      'x-amz-meta-origin': 'upload',
    });
    const copy = await raw('PUT', `${server.endpoint}/${copies}/copy/typed.pdf`, {
      headers: {
        'x-amz-copy-source': `/${copies}/copy/bytes`,
        'x-amz-metadata-directive': 'REPLACE',
        'Content-Type': 'application/pdf',
      },
    });
    expect(copy.status).toBe(200);
    const stat = await client.statObject(copies, 'copy/typed.pdf');
    expect(stat.metaData['content-type']).toBe('application/pdf');
    expect(stat.metaData.origin).toBeUndefined();
    expect((await readAll(await client.getObject(copies, 'copy/typed.pdf'))).toString()).toBe('%PDF-1.7');
  });

  it('copies a multipart object as one object', async () => {
    const parts = [randomBytes(5 * MiB + 3), randomBytes(1000)];
    const key = 'copy/multi.bin';
    const uploadId = await client.initiateNewMultipartUpload(copies, key, {});
    const etags = [];
    for (const [i, part] of parts.entries()) {
      const put = await raw(
        'PUT',
        `${server.endpoint}/${copies}/${key}?partNumber=${i + 1}&uploadId=${uploadId}`,
        {
          body: part,
        },
      );
      etags.push({ part: i + 1, etag: String(put.headers.etag).replace(/"/g, '') });
    }
    await client.completeMultipartUpload(copies, key, uploadId, etags);
    await client.copyObject(copies, 'copy/multi-copy.bin', `/${copies}/${key}`);
    const back = await readAll(await client.getObject(copies, 'copy/multi-copy.bin'));
    expect(back.equals(Buffer.concat(parts))).toBe(true);
  });

  it('answers 404 NoSuchKey for a missing source and refuses copying an object onto itself', async () => {
    const missing = await raw('PUT', `${server.endpoint}/${copies}/copy/nothing`, {
      headers: { 'x-amz-copy-source': `/${copies}/copy/no-such-key` },
    });
    expect(missing.status).toBe(404);
    expect(missing.body.toString()).toContain('<Code>NoSuchKey</Code>');
    expect(await codeOf(client.statObject(copies, 'copy/nothing'))).toBe('NotFound');
    const noBucket = await raw('PUT', `${server.endpoint}/${copies}/copy/nothing`, {
      headers: { 'x-amz-copy-source': '/no-such-bucket/key' },
    });
    expect(noBucket.status).toBe(404);
    expect(noBucket.body.toString()).toContain('<Code>NoSuchBucket</Code>');
    await client.putObject(copies, 'copy/self', Buffer.from('x'));
    const self = await raw('PUT', `${server.endpoint}/${copies}/copy/self`, {
      headers: { 'x-amz-copy-source': `${copies}/copy/self` },
    });
    expect(self.status).toBe(400);
  });
});

describe('multipart uploads', () => {
  it('assembles parts, one of them sent to a presigned URL, byte for byte', async () => {
    const key = 'multi/three-parts.zip';
    const parts = [randomBytes(5 * MiB + 7), randomBytes(5 * MiB + 1), randomBytes(1234)];
    const uploadId = await client.initiateNewMultipartUpload(bucket, key, {
      'Content-Type': 'application/zip',
    });
    const send = (part: number) =>
      client.uploadPart(
        { bucketName: bucket, objectName: key, uploadID: uploadId, partNumber: part, headers: {} },
        parts[part - 1],
      );
    const first = await send(1);
    const presigned = await client.presignedUrl('PUT', bucket, key, 600, {
      partNumber: '2',
      uploadId,
    });
    const second = await raw('PUT', presigned, { body: parts[1] });
    expect(second.status).toBe(200);
    const third = await send(3);

    const listing = (
      await raw('GET', `${server.endpoint}/${bucket}/${key}?uploadId=${uploadId}`)
    ).body.toString();
    const listedParts = [...listing.matchAll(/<PartNumber>(\d+)<\/PartNumber>.*?<Size>(\d+)<\/Size>/g)];
    expect(listedParts.map((m) => [Number(m[1]), Number(m[2])])).toEqual([
      [1, 5 * MiB + 7],
      [2, 5 * MiB + 1],
      [3, 1234],
    ]);
    expect(await codeOf(client.statObject(bucket, key))).toBe('NotFound');

    const done = await client.completeMultipartUpload(bucket, key, uploadId, [
      { part: 1, etag: first.etag },
      { part: 2, etag: (second.headers.etag ?? '').replace(/"/g, '') },
      { part: 3, etag: third.etag },
    ]);
    expect(done.etag).toMatch(/-3$/);
    const back = await readAll(await client.getObject(bucket, key));
    expect(back.length).toBe(10 * MiB + 1242);
    expect(back.equals(Buffer.concat(parts))).toBe(true);
    const stat = await client.statObject(bucket, key);
    expect(stat.metaData['content-type']).toBe('application/zip');
    expect(stat.etag).toBe(done.etag);
    expect(await readdir(join(directory, '.uploads'))).toEqual([]);
    expect(await codeOf(send(1))).toBe('NoSuchUpload');

    // Ranges that start in one part and end in the next.
    const whole = Buffer.concat(parts);
    const across = await readAll(await client.getPartialObject(bucket, key, 5 * MiB, 5 * MiB + 100));
    expect(across.equals(whole.subarray(5 * MiB, 10 * MiB + 100))).toBe(true);
    const edge = await raw('GET', `${server.endpoint}/${bucket}/${key}`, {
      headers: { Range: `bytes=${5 * MiB + 6}-${5 * MiB + 8}` },
    });
    expect(edge.body.equals(whole.subarray(5 * MiB + 6, 5 * MiB + 9))).toBe(true);

    // Replacing and deleting the object leave none of its files behind.
    const files = async () => (await readdir(join(directory, bucket))).filter((name) => name.includes('.'));
    expect(await files()).toHaveLength(3);
    await client.putObject(bucket, key, Buffer.from('small now'));
    expect(await files()).toEqual([]);
    expect((await readAll(await client.getObject(bucket, key))).toString()).toBe('small now');
    await client.removeObject(bucket, key);
  });

  it('refuses unknown parts and small middle parts, and aborts leaving nothing', async () => {
    const key = 'multi/refused';
    const uploadId = await client.initiateNewMultipartUpload(bucket, key, {});
    const send = (part: number, bytes: Buffer) =>
      client.uploadPart(
        { bucketName: bucket, objectName: key, uploadID: uploadId, partNumber: part, headers: {} },
        bytes,
      );
    const one = await send(1, randomBytes(100));
    const two = await send(2, randomBytes(100));
    expect(
      await codeOf(
        client.completeMultipartUpload(bucket, key, uploadId, [{ part: 1, etag: 'not-the-etag' }]),
      ),
    ).toBe('InvalidPart');
    expect(
      await codeOf(
        client.completeMultipartUpload(bucket, key, uploadId, [
          { part: 1, etag: one.etag },
          { part: 2, etag: two.etag },
        ]),
      ),
    ).toBe('EntityTooSmall');

    await client.abortMultipartUpload(bucket, key, uploadId);
    expect(await codeOf(client.abortMultipartUpload(bucket, key, uploadId))).toBe('NoSuchUpload');
    expect(await codeOf(client.statObject(bucket, key))).toBe('NotFound');
    expect(await readdir(join(directory, '.uploads'))).toEqual([]);
  });
});

describe('presigned URLs', () => {
  it('serves presigned PUT and GET with node:http, and refuses expired ones', async () => {
    const key = 'presigned/document.pdf';
    const bytes = randomBytes(700_000);
    const putUrl = await client.presignedPutObject(bucket, key, 600);
    const put = await raw('PUT', putUrl, { body: bytes, headers: { 'Content-Type': 'application/pdf' } });
    expect(put.status).toBe(200);
    expect(put.headers.etag).toMatch(/^"[0-9a-f]{32}"$/);

    const get = await raw('GET', await client.presignedGetObject(bucket, key, 600));
    expect(get.status).toBe(200);
    expect(get.headers['content-type']).toBe('application/pdf');
    expect(get.body.equals(bytes)).toBe(true);

    const download = await raw(
      'GET',
      await client.presignedGetObject(bucket, key, 600, {
        'response-content-disposition': 'attachment; filename="signed.pdf"',
      }),
    );
    expect(download.headers['content-disposition']).toBe('attachment; filename="signed.pdf"');

    const expired = await client.presignedUrl('GET', bucket, key, 60, {}, new Date(Date.now() - 3_600_000));
    const refused = await raw('GET', expired);
    expect(refused.status).toBe(403);
    expect(refused.body.toString()).toContain('<Code>AccessDenied</Code>');
  });
});

describe('lifecycle', () => {
  it('keeps the configuration and expires objects under the rule prefix', async () => {
    await client.setBucketLifecycle(bucket, {
      Rule: [
        { ID: 'expire-uploads', Status: 'Enabled', Filter: { Prefix: 'uploads/' }, Expiration: { Days: 1 } },
      ],
    });
    const config = await client.getBucketLifecycle(bucket);
    expect(JSON.stringify(config)).toContain('uploads/');

    await client.putObject(bucket, 'uploads/claim-check', Buffer.from('temporary'));
    await client.putObject(bucket, 'signed/kept', Buffer.from('permanent'));
    expect(server.sweepExpired()).toBe(0);
    expect(server.sweepExpired(Date.now() + 2 * DAY_MS)).toBe(1);
    expect(await codeOf(client.statObject(bucket, 'uploads/claim-check'))).toBe('NotFound');
    expect((await client.statObject(bucket, 'signed/kept')).size).toBe(9);
  });
});

describe('persistence', () => {
  it('finds buckets, objects, content types and lifecycle again after a restart on the same folder', async () => {
    const folder = await mkdtemp(join(tmpdir(), 's3-server-restart-'));
    try {
      const first = await startS3Server({ directory: folder });
      const before = clientFor(first.endpoint);
      await before.makeBucket('kept', 'us-east-1');
      const small = randomBytes(1000);
      const large = randomBytes(3 * MiB);
      const { etag } = await before.putObject('kept', 'a/small.png', small, small.length, {
        'Content-Type': 'image/png',
      });
      await before.putObject('kept', 'b/large.pdf', large, large.length, {
        'Content-Type': 'application/pdf',
      });
      await before.putObject('kept', 'c/deleted', small, small.length);
      await before.removeObject('kept', 'c/deleted');
      const parts = [randomBytes(5 * MiB), randomBytes(1000)];
      const uploadId = await before.initiateNewMultipartUpload('kept', 'd/multi.bin', {
        'Content-Type': 'application/x-multi',
      });
      const etags = [];
      for (const [i, part] of parts.entries()) {
        const sent = await before.uploadPart(
          {
            bucketName: 'kept',
            objectName: 'd/multi.bin',
            uploadID: uploadId,
            partNumber: i + 1,
            headers: {},
          },
          part,
        );
        etags.push({ part: i + 1, etag: sent.etag });
      }
      await before.completeMultipartUpload('kept', 'd/multi.bin', uploadId, etags);
      // An unfinished upload is dropped by the restart.
      await before.initiateNewMultipartUpload('kept', 'e/unfinished', {});
      await before.setBucketLifecycle('kept', {
        Rule: [{ ID: 'r', Status: 'Enabled', Filter: { Prefix: 'a/' }, Expiration: { Days: 3 } }],
      });
      await first.stop();
      // What a crash could leave: a half-written body and parts moved by a complete that never committed.
      await writeFile(join(folder, '.tmp', 'half-written'), 'partial');
      await writeFile(join(folder, 'kept', `${'0'.repeat(40)}.deadbeef-2.0`), 'orphan part');

      const second = await startS3Server({ directory: folder });
      try {
        const after = clientFor(second.endpoint);
        expect(await after.bucketExists('kept')).toBe(true);
        const stat = await after.statObject('kept', 'a/small.png');
        expect(stat).toMatchObject({ size: 1000, etag });
        expect(stat.metaData['content-type']).toBe('image/png');
        expect((await readAll(await after.getObject('kept', 'a/small.png'))).equals(small)).toBe(true);
        expect((await readAll(await after.getObject('kept', 'b/large.pdf'))).equals(large)).toBe(true);
        const names: string[] = [];
        for await (const item of after.listObjectsV2('kept', '', true))
          names.push((item as { name: string }).name);
        expect(names).toEqual(['a/small.png', 'b/large.pdf', 'd/multi.bin']);
        const multi = await after.statObject('kept', 'd/multi.bin');
        expect(multi.size).toBe(5 * MiB + 1000);
        expect(multi.metaData['content-type']).toBe('application/x-multi');
        expect(
          (await readAll(await after.getObject('kept', 'd/multi.bin'))).equals(Buffer.concat(parts)),
        ).toBe(true);
        expect(await readdir(join(folder, '.uploads'))).toEqual([]);
        expect(await readdir(join(folder, '.tmp'))).toEqual([]);
        expect((await readdir(join(folder, 'kept'))).filter((name) => name.startsWith('0000'))).toEqual([]);
        expect(JSON.stringify(await after.getBucketLifecycle('kept'))).toContain('a/');
        const { etag: newer } = await after.putObject('kept', 'a/small.png', small, small.length);
        expect(newer).not.toBe(etag);
        expect(second.sweepExpired(Date.now() + 4 * DAY_MS)).toBe(1);
      } finally {
        await second.stop();
      }
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});

describe('startTestS3', () => {
  it('serves the protocol from a temporary folder and stops listening on stop', async () => {
    const s3 = await startTestS3();
    const c = clientFor(s3.endpoint, s3.region);
    await c.makeBucket('scratch', s3.region);
    await c.putObject('scratch', 'k', Buffer.from('v'));
    expect((await readAll(await c.getObject('scratch', 'k'))).toString()).toBe('v');
    await s3.stop();
    await expect(raw('GET', `${s3.endpoint}/scratch/k`)).rejects.toThrow(/ECONNREFUSED/);
  });
});
