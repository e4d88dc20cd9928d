import { ConfigError } from '@esign/config';
import { createLogger, onShutdown } from '@esign/telemetry';
import { loadTemplateServiceConfig, type TTemplateServiceConfig } from './config';
import { startTemplateService } from './start';

let config: TTemplateServiceConfig;
try {
  config = loadTemplateServiceConfig();
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  process.stderr.write(`template: ${err.message}\n`);
  process.exit(1);
}
const logger = createLogger({ service: 'template', level: config.LOG_LEVEL });
const service = await startTemplateService(config, { logger }).catch((err: unknown) => {
  logger.error('template service failed to start', { err });
  process.exit(1);
});
logger.info('template service started', { healthPort: service.healthPort, busPrefix: config.BUS_PREFIX });
onShutdown(logger, () => service.stop());
