import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import type { GatewayDeps } from '../deps';
import type { ReceivedFile } from '../http/receive-upload';
import { defineAccountOperation } from './account-operation';
import {
  defineOperation,
  type AccountCaller,
  type ApiKeyCaller,
  type OperationInput,
  type SandboxCaller,
  type SessionCaller,
} from './operation';

const apiKeyCaller: ApiKeyCaller = {
  kind: 'apiKey',
  accountId: '3f1c2b8e-5d6a-4e7f-9a0b-1c2d3e4f5a6b',
  keyId: '5c0b7a51-0f6e-4a54-9d7f-3b1d7c5e2a10',
  email: 'ada@example.com',
  plan: 'business',
  apiAccess: true,
};

const sessionCaller: SessionCaller = {
  kind: 'session',
  sessionId: '0e6f9b3a-2c4d-4e8f-a1b2-c3d4e5f6a7b8',
  accountId: '3f1c2b8e-5d6a-4e7f-9a0b-1c2d3e4f5a6b',
  email: 'ada@example.com',
  plan: 'free',
  csrfSecret: 'secret',
  expiresAt: '2026-01-01T12:00:00.000Z',
  idleExpiresAt: '2026-01-01T00:30:00.000Z',
  tokenHash: 'a'.repeat(64),
};

/** The input a handler gets, with `caller` as the mount layer gives it. */
type None = Record<string, unknown>;
const inputFrom = <C>(caller: C): OperationInput<C, None, None, None, unknown, never> => ({
  query: {},
  params: {},
  headers: {},
  body: undefined,
  fields: {},
  rawFields: {},
  file: undefined,
  caller,
  client: { ip: '127.0.0.1', userAgent: 'test' },
  origin: 'http://127.0.0.1',
  receivedAt: '2026-01-01T00:00:00.000Z',
  accepts: () => false,
});

// The handler is never given dependencies here.
const deps = {} as GatewayDeps;

const sut = defineAccountOperation({
  mounts: {
    apiKey: { id: 'listThings', path: '/api/v1/things', tag: 'Things' },
    session: {
      id: 'listDashboardThings',
      path: '/api/things',
      tag: 'Dashboard',
      summary: "The signed-in account's things",
      description: (text) => `${text} For the dashboard.`,
      noStore: true,
    },
  },
  method: 'get',
  summary: 'List things',
  description: 'Every thing of the account.',
  auth: 'account',
  request: {},
  responses: { 200: { description: 'The things', json: z.object({ accountId: z.string() }) } },
  errors: ['internal'],
  handle({ caller }) {
    expectTypeOf(caller).toEqualTypeOf<AccountCaller>();
    return Promise.resolve({
      status: 200,
      json: { accountId: caller.accountId },
      headers: { 'X-Kind': caller.kind },
    });
  },
});

describe('an operation of the account, declared once', () => {
  it('is offered to API keys at its /api/v1 path, as declared', () => {
    expect(sut.apiKey).toMatchObject({
      auth: 'apiKey',
      id: 'listThings',
      path: '/api/v1/things',
      tag: 'Things',
      summary: 'List things',
      description: 'Every thing of the account.',
    });
    expect(sut.apiKey.responses[200]?.headers).toBeUndefined();
  });

  it("is offered to the dashboard session at its own path, with the dashboard's texts", () => {
    expect(sut.session).toMatchObject({
      auth: 'session',
      id: 'listDashboardThings',
      path: '/api/things',
      tag: 'Dashboard',
      summary: "The signed-in account's things",
      description: 'Every thing of the account. For the dashboard.',
    });
    expect(Object.keys(sut.session.responses[200]?.headers ?? {})).toEqual(['Cache-Control']);
  });

  it('runs the one handler for either caller, and marks the no-store form', async () => {
    await expect(sut.apiKey.handle(inputFrom(apiKeyCaller), deps)).resolves.toEqual({
      status: 200,
      json: { accountId: apiKeyCaller.accountId },
      headers: { 'X-Kind': 'apiKey' },
    });
    await expect(sut.session.handle(inputFrom(sessionCaller), deps)).resolves.toEqual({
      status: 200,
      json: { accountId: sessionCaller.accountId },
      headers: { 'X-Kind': 'session', 'Cache-Control': 'no-store' },
    });
  });
});

describe('the caller a handler is given', () => {
  it('follows the auth of the operation', () => {
    defineOperation({
      id: 'a',
      method: 'get',
      path: '/a',
      tag: 'T',
      summary: '',
      description: '',
      auth: 'apiKey',
      request: {},
      responses: {},
      errors: [],
      handle({ caller, file }) {
        expectTypeOf(caller).toEqualTypeOf<ApiKeyCaller>();
        // No multipart body declared: no file.
        expectTypeOf(file).toEqualTypeOf<undefined>();
        return Promise.resolve({ status: 204, empty: true });
      },
    });
    defineOperation({
      id: 'b',
      method: 'post',
      path: '/b',
      tag: 'T',
      summary: '',
      description: '',
      auth: 'sandbox',
      request: {
        multipart: {
          fields: z.object({ name: z.string() }),
          file: { name: 'file', description: 'PDF', accept: ['pdf'], maxBytes: () => 1 },
        },
      },
      responses: {},
      errors: [],
      handle({ caller, file, fields }) {
        expectTypeOf(caller).toEqualTypeOf<SandboxCaller>();
        // A declared multipart file is always there.
        expectTypeOf(file).toEqualTypeOf<ReceivedFile>();
        expectTypeOf(fields).toEqualTypeOf<{ name: string }>();
        return Promise.resolve({ status: 204, empty: true });
      },
    });
    defineOperation({
      id: 'c',
      method: 'get',
      path: '/c',
      tag: 'T',
      summary: '',
      description: '',
      auth: 'none',
      request: {},
      responses: {},
      errors: [],
      handle({ caller }) {
        expectTypeOf(caller).toEqualTypeOf<undefined>();
        return Promise.resolve({ status: 204, empty: true });
      },
    });
  });
});
