import type { AddressInfo } from 'node:net';
import express from 'express';
import { describe, expect, it } from 'vitest';
import { BlobError } from '@esign/blob';
import { createLogger } from '@esign/telemetry';
import { errorHandler } from './errors';

/** Serve one route that fails with `err` through the gateway's error handler; its answer and the error lines. */
const answerTo = async (err: Error) => {
  const errors: string[] = [];
  const logger = createLogger({
    service: 'test',
    level: 'error',
    write: (line) => errors.push((JSON.parse(line) as { msg: string }).msg),
  });
  const app = express();
  app.get('/file', () => {
    throw err;
  });
  app.use(errorHandler(logger));
  const server = app.listen(0);
  await new Promise((resolve) => server.once('listening', resolve));
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/file`);
    return { status: res.status, body: (await res.json()) as { error: string }, errors };
  } finally {
    server.close();
  }
};

describe('the error handler', () => {
  it("answers a missing object in storage as the service's fault (500, logged), not a malformed request", async () => {
    const { status, body, errors } = await answerTo(new BlobError('NoSuchKey', 404, 'no such key'));
    expect(status).toBe(500);
    expect(body.error).toBe('Internal error; please retry');
    expect(errors).toEqual(['unhandled error']);
  });

  it("keeps a framework's client error as the client's (400, not logged)", async () => {
    const malformed = Object.assign(new Error('Unexpected token'), {
      status: 400,
      type: 'entity.parse.failed',
    });
    const { status, body, errors } = await answerTo(malformed);
    expect(status).toBe(400);
    expect(body.error).toBe('request body is not valid JSON');
    expect(errors).toEqual([]);
  });
});
