import type { Logger } from './logger';

/**
 * Run `stop` once on SIGTERM or SIGINT: drain, finish in-flight work, then exit. A second signal, or
 * a stop that takes longer than `graceMs`, exits at once.
 */
export const onShutdown = (logger: Logger, stop: () => Promise<void>, graceMs = 20_000): void => {
  let stopping = false;
  const handle = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(1);
    stopping = true;
    logger.info('shutting down', { signal });
    const timer = setTimeout(() => {
      logger.error('shutdown took too long; exiting', { graceMs });
      process.exit(1);
    }, graceMs);
    timer.unref();
    stop().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error('shutdown failed', { err });
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', handle);
  process.once('SIGINT', handle);
};
