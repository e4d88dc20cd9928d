import { loadConfig, ZBaseEnv, ZDbEnv } from '@esign/config';
import type { z } from 'zod';

/** Environment of the key service. */
export const ZKeyServiceEnv = ZBaseEnv.extend(ZDbEnv.shape);
export type TKeyServiceConfig = z.infer<typeof ZKeyServiceEnv>;

/** Parse the key service's configuration once, failing fast with every problem named. */
export const loadKeyServiceConfig = (env: NodeJS.ProcessEnv = process.env): TKeyServiceConfig =>
  loadConfig(ZKeyServiceEnv, env);

/** Environment of the operator CLI: only where the bus is. */
export const ZCliEnv = ZBaseEnv.pick({ NATS_URL: true, BUS_PREFIX: true });
export type TCliConfig = z.infer<typeof ZCliEnv>;

export const loadCliConfig = (env: NodeJS.ProcessEnv = process.env): TCliConfig => loadConfig(ZCliEnv, env);
