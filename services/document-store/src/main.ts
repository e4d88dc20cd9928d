import { ConfigError } from '@esign/config';
import { createLogger, onShutdown } from '@esign/telemetry';
import { loadDocumentStoreConfig, type TDocumentStoreConfig } from './config';
import { startDocumentStore } from './start';

let config: TDocumentStoreConfig;
try {
  config = loadDocumentStoreConfig();
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  process.stderr.write(`document-store: ${err.message}\n`);
  process.exit(1);
}
const logger = createLogger({ service: 'document-store', level: config.LOG_LEVEL });
const service = await startDocumentStore(config, { logger }).catch((err: unknown) => {
  logger.error('document-store failed to start', { err });
  process.exit(1);
});
logger.info('document-store started', { healthPort: service.healthPort, busPrefix: config.BUS_PREFIX });
onShutdown(logger, () => service.stop());
