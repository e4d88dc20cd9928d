import { connectBus, type Bus } from '@esign/bus';
import { ConfigError } from '@esign/config';
import {
  AccountPasswordSet,
  AccountPlanSet,
  KeyCreate,
  KeyRevoke,
  ServiceError,
  ZNewPassword,
} from '@esign/contracts';
import { createLogger } from '@esign/telemetry';
import { loadCliConfig } from '../config';
import { hashApiKey } from '../domain/hash-api-key';
import { CLI_USAGE, parseCliArgs, UsageError, type TCliCommand } from './parse-cli-args';

/** Where the CLI writes; each call is one complete line without its newline. */
export interface CliOutput {
  stdout(line: string): void;
  stderr(line: string): void;
}

const REQUEST_TIMEOUT_MS = 10_000;

/** The URL without any user:password part, safe to print. */
const redactUrl = (url: string): string => url.replace(/\/\/[^@/]*@/g, '//');

const describeFailure = (err: unknown): string => {
  if (err instanceof ServiceError) {
    if (err.code === 'unavailable') return `${err.message}: is the stack running (pnpm dev)?`;
    return err.message;
  }
  return err instanceof Error ? err.message : String(err);
};

const execute = async (
  bus: Bus,
  command:
    | Exclude<TCliCommand, { kind: 'help' | 'set-password' }>
    | { kind: 'set-password'; email: string; password: string },
  out: CliOutput,
) => {
  if (command.kind === 'set-plan') {
    const changed = await bus.request(
      AccountPlanSet,
      { email: command.email, plan: command.plan },
      { timeoutMs: REQUEST_TIMEOUT_MS },
    );
    out.stderr(
      `Account ${changed.accountId} (${command.email}): plan ${changed.previousPlan} -> ${changed.plan}.`,
    );
    out.stdout(changed.accountId);
    return;
  }
  if (command.kind === 'set-password') {
    const set = await bus.request(
      AccountPasswordSet,
      { email: command.email, password: command.password },
      { timeoutMs: REQUEST_TIMEOUT_MS },
    );
    out.stderr(
      `Password set for account ${set.accountId} (${command.email}); ${set.sessionsEnded} session(s) ended.`,
    );
    out.stdout(set.accountId);
    return;
  }
  if (command.kind === 'create') {
    const created = await bus.request(
      KeyCreate,
      { email: command.email, plan: command.plan, label: command.label },
      { timeoutMs: REQUEST_TIMEOUT_MS },
    );
    out.stderr(
      `Created key ${created.keyId} (${created.keyPrefix}…) for ${command.email}: ` +
        `${created.accountCreated ? 'new' : 'existing'} account ${created.accountId}, plan ${created.plan}` +
        `${created.plan === 'business' ? '' : ' (no API access: API access needs the business plan)'}.`,
    );
    if (command.label) out.stderr(`Label: ${command.label}`);
    out.stderr(
      'Store the key now: it is shown once and cannot be recovered. The key is the last line of stdout.',
    );
    // The only place the plain key is ever written.
    out.stdout(created.apiKey);
    return;
  }
  const target = command.target;
  const revoked = await bus.request(
    KeyRevoke,
    'keyId' in target ? { keyId: target.keyId } : { keyHash: hashApiKey(target.apiKey) },
    { timeoutMs: REQUEST_TIMEOUT_MS },
  );
  out.stderr(
    revoked.alreadyRevoked
      ? `Key ${revoked.keyId} (account ${revoked.accountId}) was already revoked at ${revoked.revokedAt}.`
      : `Revoked key ${revoked.keyId} (account ${revoked.accountId}) at ${revoked.revokedAt}.`,
  );
  out.stdout(revoked.keyId);
};

/**
 * The operator CLI: `keys create` and `keys revoke` through the key service on the bus.
 * Returns the exit code: 0 on success, 1 on any error (one line on stderr).
 */
export const runCli = async (options: {
  args: readonly string[];
  env?: NodeJS.ProcessEnv;
  out: CliOutput;
  /** Everything on stdin (the password of `accounts set-password`). */
  readStdin?: () => Promise<string>;
}) => {
  const { out } = options;
  let command: TCliCommand;
  try {
    command = parseCliArgs(options.args);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    out.stderr(`error: ${err.message}`);
    out.stderr('');
    out.stderr(CLI_USAGE);
    return 1;
  }
  if (command.kind === 'help') {
    out.stdout(CLI_USAGE);
    return 0;
  }

  let resolved: Parameters<typeof execute>[1];
  if (command.kind === 'set-password') {
    // The password comes from stdin, never from the arguments (they show in `ps` and shell history).
    const input = options.readStdin ? await options.readStdin() : '';
    const password = input.split(/\r?\n/)[0] ?? '';
    const checked = ZNewPassword.safeParse(password);
    if (!checked.success) {
      out.stderr(`error: the password on stdin ${checked.error.issues[0]?.message ?? 'is invalid'}`);
      return 1;
    }
    resolved = { kind: 'set-password', email: command.email, password: checked.data };
  } else {
    resolved = command;
  }

  let config;
  try {
    config = loadCliConfig(options.env ?? process.env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    out.stderr(`error: ${err.message.replace(/\n\s*/g, ' ')}`);
    return 1;
  }

  let bus: Bus;
  try {
    bus = await connectBus({
      url: config.NATS_URL,
      name: 'key-cli',
      prefix: config.BUS_PREFIX,
      logger: createLogger({ service: 'key-cli', level: 'error', write: () => undefined }),
      timeoutMs: REQUEST_TIMEOUT_MS,
    });
  } catch {
    out.stderr(`error: cannot reach NATS at ${redactUrl(config.NATS_URL)}: is the stack running (pnpm dev)?`);
    return 1;
  }
  try {
    await execute(bus, resolved, out);
    return 0;
  } catch (err) {
    out.stderr(`error: ${describeFailure(err)}`);
    return 1;
  } finally {
    await bus.drain().catch(() => undefined);
  }
};
