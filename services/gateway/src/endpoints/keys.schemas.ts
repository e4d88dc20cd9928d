import { z } from 'zod';
import { ZIsoTimestamp } from '@esign/contracts';
import { named } from '../api/named';

export const ZApiKey = named(
  'ApiKey',
  'An API key as its account sees it: never the key itself.',
  z.object({
    id: z.uuid(),
    name: z.string().nullable(),
    prefix: z.string().meta({ description: 'svc_live_ and the first characters, to tell keys apart' }),
    createdAt: ZIsoTimestamp,
    lastUsedAt: ZIsoTimestamp.nullable().meta({ description: 'Kept to within about a minute' }),
    revoked: z.boolean(),
    revokedAt: ZIsoTimestamp.nullable(),
  }),
);

export const ZApiKeyList = named(
  'ApiKeyList',
  "The account's keys, newest first, revoked ones included.",
  z.object({ keys: z.array(ZApiKey) }),
);

export const ZCreateApiKeyRequest = named(
  'CreateApiKeyRequest',
  'A name for the new key (optional).',
  z.object({ name: z.string().max(100).optional().meta({ example: 'production server' }) }),
);

export const ZNewApiKey = named(
  'NewApiKey',
  'A new key. `key` is shown this once and can never be retrieved again.',
  z.object({
    id: z.uuid(),
    name: z.string().nullable(),
    key: z.string().meta({ description: 'The API key, svc_live_…: store it now' }),
    prefix: z.string(),
    createdAt: ZIsoTimestamp,
  }),
);

export const ZRevokedApiKey = named(
  'RevokedApiKey',
  'A revoked key: every gateway refuses it from the next request on.',
  z.object({ id: z.uuid(), revokedAt: ZIsoTimestamp, alreadyRevoked: z.boolean() }),
);
