import { ConfigError } from '@esign/config';
import { createLogger, onShutdown } from '@esign/telemetry';
import { loadPdfSignerConfig } from './config';
import type { TPdfSignerEnv } from './config';
import { startPdfSigner } from './start';

let config: TPdfSignerEnv;
try {
  config = loadPdfSignerConfig();
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  process.stderr.write(`pdf-signer: ${err.message}\n`);
  process.exit(1);
}
const logger = createLogger({ service: 'pdf-signer', level: config.LOG_LEVEL });
const service = await startPdfSigner(config, { logger }).catch((err: unknown) => {
  logger.error('pdf-signer failed to start', { err });
  process.exit(1);
});
onShutdown(logger, () => service.stop());
