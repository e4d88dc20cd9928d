import { z } from 'zod';
import { named } from './named';

export const ZErrorResponse = named(
  'Error',
  'Every error: a human-readable description that names the field at fault.',
  z.object({ error: z.string().meta({ example: 'width must be a number from 10 to 60' }) }),
);
