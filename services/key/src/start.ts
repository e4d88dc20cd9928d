import { fileURLToPath } from 'node:url';
import { busOptionsFrom, busResource, countParkedEvents, observeConsumerLag } from '@esign/bus';
import { AccountPlanChanged, DocumentSigned, KeyRevoked } from '@esign/contracts';
import { databaseUnavailable, isDatabaseDown, migratedDatabase } from '@esign/db';
import {
  createLogger,
  createOutageLog,
  healthServer,
  startService,
  untraced,
  type Logger,
  type Resource,
  metricsResource,
} from '@esign/telemetry';
import type { TKeyServiceConfig } from './config';
import { createAccountRepository } from './db/account-repository';
import { createKeyRepository } from './db/key-repository';
import { createQuotaRepository } from './db/quota-repository';
import { schema } from './db/schema';
import { createSessionRepository } from './db/session-repository';
import type { Clock } from './domain/account-lifetimes';
import { createRecordedDocumentCounter } from './domain/count-recorded-documents';
import { createPasswordHasher } from './domain/password-hasher';
import { createHandler } from './handlers/create';
import { createAccountKeyHandler } from './handlers/create-account-key';
import type { KeyServiceDeps } from './handlers/deps';
import { getEmbedOriginsHandler, setEmbedOriginsHandler } from './handlers/embed-origins';
import { getUsageHandler } from './handlers/get-usage';
import { issueSignInTokenHandler } from './handlers/issue-sign-in-token';
import { listAccountKeysHandler } from './handlers/list-account-keys';
import { redeemSignInTokenHandler } from './handlers/redeem-sign-in-token';
import { releaseDocumentHandler } from './handlers/release-document';
import { reserveDocumentHandler } from './handlers/reserve-document';
import { revokeHandler } from './handlers/revoke';
import { revokeAccountKeyHandler } from './handlers/revoke-account-key';
import { setPasswordHandler } from './handlers/set-password';
import { setPlanHandler } from './handlers/set-plan';
import { signInHandler } from './handlers/sign-in';
import { signOutHandler } from './handlers/sign-out';
import { signUpHandler } from './handlers/sign-up';
import { verifyHandler } from './handlers/verify';
import { verifySessionHandler } from './handlers/verify-session';

/** A running key service. */
export interface KeyService {
  /** Port of /healthz and /readyz. */
  readonly healthPort: number;
  /** Stop serving, finish in-flight requests, close connections. */
  stop(): Promise<void>;
}

const MIGRATIONS_FOLDER = fileURLToPath(new URL('../drizzle', import.meta.url));

/**
 * Migrate the `key` schema, connect to NATS and serve every `key.*` subject (API keys, accounts,
 * sessions, sign-in tokens, quotas); count the documents made without a reservation from
 * `events.document.signed` (durable consumer `key-count-documents`); purge expired sessions every
 * PURGE_INTERVAL_MS.
 */
export const startKeyService = (
  config: TKeyServiceConfig,
  options: {
    logger?: Logger;
    /** The clock of sessions, tokens and quota months (tests move it). */ now?: Clock;
  } = {},
): Promise<KeyService> => {
  const logger = options.logger ?? createLogger({ service: 'key', level: config.LOG_LEVEL });
  return startService(async (use, ready) => {
    const metrics = await use(metricsResource({ service: 'key', exporter: config.METRICS_EXPORTER }));
    const database = await use(
      migratedDatabase({
        url: config.DATABASE_URL,
        schema,
        max: config.DB_POOL_MAX,
        applicationName: 'key',
        logger,
        schemaName: 'key',
        migrationsFolder: MIGRATIONS_FOLDER,
      }),
    );
    const bus = await use(
      busResource({ ...busOptionsFrom(config), name: 'key', logger, onParked: countParkedEvents(metrics) }),
    );
    const deps: KeyServiceDeps = {
      keys: createKeyRepository(database.db),
      accounts: createAccountRepository(database.db),
      sessions: createSessionRepository(database.db),
      quotas: createQuotaRepository(database.db),
      passwords: createPasswordHasher({ logN: config.PASSWORD_SCRYPT_LOG_N }),
      config,
      now: options.now ?? (() => new Date()),
      publishRevoked: (event) => bus.publish(KeyRevoked, event),
      publishPlanChanged: (accountId, plan) =>
        bus.publish(AccountPlanChanged, { accountId, plan, changedAt: new Date().toISOString() }),
    };
    await bus.serve(
      [
        verifyHandler(deps),
        createHandler(deps),
        revokeHandler(deps),
        signUpHandler(deps),
        signInHandler(deps),
        verifySessionHandler(deps),
        signOutHandler(deps),
        issueSignInTokenHandler(deps),
        redeemSignInTokenHandler(deps),
        listAccountKeysHandler(deps),
        createAccountKeyHandler(deps),
        revokeAccountKeyHandler(deps),
        reserveDocumentHandler(deps),
        releaseDocumentHandler(deps),
        getUsageHandler(deps),
        getEmbedOriginsHandler(deps),
        setEmbedOriginsHandler(deps),
        setPlanHandler(deps),
        setPasswordHandler(deps),
      ],
      { unavailable: databaseUnavailable },
    );
    // Documents made without a reservation (a plan without a limit) are counted from their record.
    const countRecorded = createRecordedDocumentCounter(deps.quotas);
    const counting = await bus.consume(DocumentSigned, (event) => countRecorded(event), {
      durable: 'key-count-documents',
      // Up to this many events are pulled and written together (one statement each time).
      concurrency: 256,
      maxDeliveries: 50,
      outage: { isOutage: isDatabaseDown },
    });
    observeConsumerLag({ bus, metrics, durables: [counting.durable] });
    await use(purgeExpired({ deps, intervalMs: config.PURGE_INTERVAL_MS, logger }));
    const health = await use(healthServer({ port: config.HEALTH_PORT, ready, metrics }));
    return { healthPort: health.port };
  });
};

/** Delete expired sessions, sign-in tokens, attempt windows and old link requests now and then (verification ignores them anyway). */
const purgeExpired = (options: {
  deps: KeyServiceDeps;
  intervalMs: number;
  logger: Logger;
}): Resource<NodeJS.Timeout> => ({
  name: 'purge of expired sessions',
  start: () => {
    const { deps, logger } = options;
    // Failing every interval while the database is away is one outage, not a warning a run.
    const outage = createOutageLog({ logger, dependency: 'database (purge of expired sessions)' });
    const timer = setInterval(() => {
      untraced(() =>
        deps.sessions.purgeExpired({
          now: deps.now(),
          idleMs: deps.config.SESSION_IDLE_TIMEOUT_MS,
          attemptWindowMs: deps.config.SIGN_IN_ATTEMPT_WINDOW_MS,
          linkWindowMs: deps.config.SIGN_IN_LINK_WINDOW_MS,
        }),
      ).then(
        (purged) => {
          outage.up();
          logger.debug('purged expired sessions', purged);
        },
        (err: unknown) => {
          if (isDatabaseDown(err)) outage.down(err);
          else logger.warn('purge of expired sessions failed', { err });
        },
      );
    }, options.intervalMs);
    timer.unref();
    return timer;
  },
  stop: (timer) => clearInterval(timer),
});
