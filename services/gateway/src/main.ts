import { ConfigError } from '@esign/config';
import { createLogger, onShutdown } from '@esign/telemetry';
import { loadGatewayConfig, type TGatewayConfig } from './config';
import { startGateway } from './start';

let config: TGatewayConfig;
try {
  config = loadGatewayConfig();
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  process.stderr.write(`gateway: ${err.message}\n`);
  process.exit(1);
}
const logger = createLogger({ service: 'gateway', level: config.LOG_LEVEL });
const gateway = await startGateway(config, { logger }).catch((err: unknown) => {
  logger.error('gateway failed to start', { err });
  process.exit(1);
});
onShutdown(logger, () => gateway.stop());
