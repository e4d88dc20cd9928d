import { createLogger, type LogLevel, type Logger } from './logger';
import { onShutdown } from './shutdown';

/**
 * The whole of a service's `main.ts`: parse the configuration (a bad one prints every problem and
 * exits 1, no stack trace), make the logger, start the service (a failed start is logged and exits
 * 1), and stop it gracefully on SIGTERM or SIGINT.
 */
export const runService = async <C extends { LOG_LEVEL: LogLevel; SHUTDOWN_GRACE_MS?: number }>(options: {
  name: string;
  loadConfig: () => C;
  start: (config: C, deps: { logger: Logger }) => Promise<{ stop(): Promise<void>; healthPort?: number }>;
}): Promise<void> => {
  let config: C;
  try {
    config = options.loadConfig();
  } catch (err) {
    // ConfigError from @esign/config; matched by name so that this lib does not depend on that one.
    if (!(err instanceof Error) || err.name !== 'ConfigError') throw err;
    process.stderr.write(`${options.name}: ${err.message}\n`);
    process.exit(1);
  }
  const logger = createLogger({ service: options.name, level: config.LOG_LEVEL });
  const service = await options.start(config, { logger }).catch((err: unknown) => {
    logger.error(`${options.name} failed to start`, { err });
    process.exit(1);
  });
  logger.info(`${options.name} started`, service.healthPort ? { healthPort: service.healthPort } : {});
  onShutdown(logger, () => service.stop(), config.SHUTDOWN_GRACE_MS);
};
