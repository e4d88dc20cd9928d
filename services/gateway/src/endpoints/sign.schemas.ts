import { z } from 'zod';
import { named } from '../api/named';

export const ZSignFieldReference = named(
  'SignFieldReference',
  'The field reference of POST /api/v1/sign, generated from the schema the endpoint validates with.',
  z.object({
    endpoint: z.string(),
    contentType: z.string(),
    authentication: z.string(),
    headers: z.record(z.string(), z.string()),
    fields: z.array(
      z.object({
        name: z.string(),
        type: z.string(),
        required: z.string(),
        default: z.unknown().optional(),
        rule: z.string(),
        description: z.string(),
      }),
    ),
    response: z.record(z.string(), z.string()),
    errors: z.record(z.string(), z.string()),
  }),
);
