import { loadConfig, ZBaseEnv, ZBlobEnv } from '@esign/config';
import type { z } from 'zod';

/** Environment of the template service: the bus and the bucket where rendered PDFs go. */
export const ZTemplateServiceEnv = ZBaseEnv.extend(ZBlobEnv.shape);
export type TTemplateServiceConfig = z.infer<typeof ZTemplateServiceEnv>;

/** Parse the template service's configuration once, failing fast with every problem named. */
export const loadTemplateServiceConfig = (env: NodeJS.ProcessEnv = process.env): TTemplateServiceConfig =>
  loadConfig(ZTemplateServiceEnv, env);
