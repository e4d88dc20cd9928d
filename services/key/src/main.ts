import { ConfigError } from '@esign/config';
import { createLogger, onShutdown } from '@esign/telemetry';
import { loadKeyServiceConfig, type TKeyServiceConfig } from './config';
import { startKeyService } from './start';

let config: TKeyServiceConfig;
try {
  config = loadKeyServiceConfig();
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  process.stderr.write(`key: ${err.message}\n`);
  process.exit(1);
}
const logger = createLogger({ service: 'key', level: config.LOG_LEVEL });
const service = await startKeyService(config, { logger }).catch((err: unknown) => {
  logger.error('key service failed to start', { err });
  process.exit(1);
});
logger.info('key service started', { healthPort: service.healthPort, busPrefix: config.BUS_PREFIX });
onShutdown(logger, () => service.stop());
