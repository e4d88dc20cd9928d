import { AccountKeyCreate, AccountKeyRevoke, AccountKeysList } from '@esign/contracts';
import { z } from 'zod';
import { ZApiKeyList, ZCreateApiKeyRequest, ZNewApiKey, ZRevokedApiKey } from './keys.schemas';
import { defineOperation } from '../api/operation';

const NO_STORE_HEADER = { 'Cache-Control': { description: 'no-store', schema: z.string() } };

export const listApiKeysOperation = defineOperation({
  id: 'listApiKeys',
  method: 'get',
  path: '/api/keys',
  tag: 'API keys',
  summary: "The account's API keys",
  description:
    'Every key of the signed-in account, newest first, with its name, display prefix, when it was created and last used (to within about a minute) and whether it is revoked. Never the key itself. Takes the dashboard session cookie, never an API key.',
  auth: 'session',
  request: {},
  responses: { 200: { description: 'The keys', json: ZApiKeyList, headers: NO_STORE_HEADER } },
  errors: ['unavailable', 'internal'],
  async handle(input, deps) {
    const { keys } = await deps.bus.request(AccountKeysList, { accountId: input.caller.accountId });
    return {
      status: 200,
      headers: { 'Cache-Control': 'no-store' },
      json: {
        keys: keys.map((key) => ({
          id: key.keyId,
          name: key.name,
          prefix: key.keyPrefix,
          createdAt: key.createdAt,
          lastUsedAt: key.lastUsedAt,
          revoked: key.revoked,
          revokedAt: key.revokedAt,
        })),
      },
    };
  },
});

export const createApiKeyOperation = defineOperation({
  id: 'createApiKey',
  method: 'post',
  path: '/api/keys',
  tag: 'API keys',
  summary: 'Create an API key',
  description:
    'A new `svc_live_` key for the signed-in account, shown in this answer once (`Cache-Control: no-store`) and never retrievable again: only its SHA-256 is stored. Keys of Free and Pro accounts exist but get 403 on /api/v1 (API access is a Business plan feature). Needs the session cookie, an Origin of this site and X-CSRF-Token.',
  auth: 'session',
  idempotency: 'replay',
  request: { json: ZCreateApiKeyRequest, example: { name: 'production server' } },
  responses: { 201: { description: 'The new key, shown once', json: ZNewApiKey, headers: NO_STORE_HEADER } },
  errors: ['invalid_argument', 'unavailable', 'internal'],
  async handle(input, deps) {
    const name = input.body.name?.trim();
    const created = await deps.bus.request(AccountKeyCreate, {
      accountId: input.caller.accountId,
      ...(name ? { name } : {}),
    });
    return {
      status: 201,
      headers: { 'Cache-Control': 'no-store' },
      json: {
        id: created.keyId,
        name: created.name,
        key: created.apiKey,
        prefix: created.keyPrefix,
        createdAt: created.createdAt,
      },
    };
  },
});

export const revokeApiKeyOperation = defineOperation({
  id: 'revokeApiKey',
  method: 'delete',
  path: '/api/keys',
  tag: 'API keys',
  summary: 'Revoke an API key',
  description:
    "Revoke one of the account's keys, named by `id` in the query string (`DELETE /api/keys?id=<uuid>`: the path takes no parameter). Every gateway refuses the key from its next request on. Revoking a revoked key answers its first revocation (`alreadyRevoked: true`). Another account's key or an unknown id: 404. Needs the session cookie, an Origin of this site and X-CSRF-Token.",
  auth: 'session',
  request: {
    query: z.object({
      id: z.uuid('id must be the UUID of a key (GET /api/keys lists them)').meta({
        description: 'The id of the key, as GET /api/keys lists it',
        example: '0b6f8e2a-3c4d-4e5f-8a9b-1c2d3e4f5a6b',
      }),
    }),
  },
  responses: { 200: { description: 'The key is revoked', json: ZRevokedApiKey } },
  errors: ['invalid_argument', 'not_found', 'unavailable', 'internal'],
  async handle(input, deps) {
    const revoked = await deps.bus.request(AccountKeyRevoke, {
      accountId: input.caller.accountId,
      keyId: input.query.id,
    });
    return {
      status: 200,
      json: { id: revoked.keyId, revokedAt: revoked.revokedAt, alreadyRevoked: revoked.alreadyRevoked },
    };
  },
});
