import { parseArgs } from 'node:util';
import { LIVE_KEY_PREFIX, ZPlan, type TPlan } from '@esign/contracts';
import { z } from 'zod';

/** What the operator CLI was asked to do. */
export type TCliCommand =
  | { readonly kind: 'help' }
  | { readonly kind: 'create'; readonly email: string; readonly plan?: TPlan; readonly label?: string }
  | { readonly kind: 'revoke'; readonly target: { keyId: string } | { apiKey: string } }
  | { readonly kind: 'set-plan'; readonly email: string; readonly plan: TPlan }
  | { readonly kind: 'set-password'; readonly email: string };

/** Wrong arguments: the CLI prints the message and the usage, and exits 1. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export const CLI_USAGE = `Usage:
  pnpm cli keys create --email <email> [--plan <free|pro|business>] [--label <label>]
  pnpm cli keys revoke <key or key id>
  pnpm cli accounts set-plan --email <email> --plan <free|pro|business>
  pnpm cli accounts set-password --email <email>     (the password is read from stdin)
  pnpm cli --help

keys create   Create an API key; creates the account when the email is new.
              A new account gets --plan, or free when it is omitted; an existing account's plan
              is changed only when --plan is given. API access needs the business plan.
              The key is printed once, alone on the last line of stdout; everything else goes to stderr.
keys revoke   Revoke a key, given the key itself (svc_live_…, hashed here before it is sent) or its id.
accounts set-plan      Change an existing account's plan.
accounts set-password  Set the dashboard password of an existing account (one made by keys create has
                       none) and end its sessions. The password (8-256 characters) is the first line of
                       stdin, never an argument: printf '%s' "$PASSWORD" | pnpm cli accounts set-password …

Environment: NATS_URL (default nats://127.0.0.1:4222), BUS_PREFIX (default empty).`;

const ZEmail = z.email();

const parseEmail = (email: string | undefined): string => {
  if (email === undefined) throw new UsageError('--email is required');
  const normalized = email.trim().toLowerCase();
  if (!ZEmail.safeParse(normalized).success) throw new UsageError('--email is not a valid email address');
  return normalized;
};

const parsePlan = (plan: string): TPlan => {
  const result = ZPlan.safeParse(plan);
  if (!result.success) throw new UsageError('--plan must be free, pro or business');
  return result.data;
};

const parseAccountsCommand = (
  verb: string | undefined,
  rest: readonly string[],
  values: { email?: string; plan?: string; label?: string },
): TCliCommand => {
  if (rest.length > 0) throw new UsageError(`accounts ${verb ?? ''} takes no positional arguments`);
  if (values.label !== undefined) throw new UsageError('accounts commands take no --label');
  if (verb === 'set-plan') {
    if (values.plan === undefined) throw new UsageError('--plan is required');
    return { kind: 'set-plan', email: parseEmail(values.email), plan: parsePlan(values.plan) };
  }
  if (verb === 'set-password') {
    if (values.plan !== undefined) throw new UsageError('accounts set-password takes no --plan');
    return { kind: 'set-password', email: parseEmail(values.email) };
  }
  throw new UsageError('expected accounts set-plan or accounts set-password');
};
const ZUuid = z.uuid();

/**
 * Parse the CLI's arguments. Messages never repeat a positional argument, because it may be a key.
 */
export const parseCliArgs = (args: readonly string[]): TCliCommand => {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...args],
      allowPositionals: true,
      strict: true,
      options: {
        email: { type: 'string' },
        plan: { type: 'string' },
        label: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : 'invalid arguments');
  }
  const { values, positionals } = parsed;
  if (values.help) return { kind: 'help' };
  const [group, verb, ...rest] = positionals;
  if (group === 'accounts') return parseAccountsCommand(verb, rest, values);
  if (group !== 'keys') throw new UsageError('expected a command: keys create, keys revoke or accounts …');

  if (verb === 'create') {
    if (rest.length > 0) throw new UsageError('keys create takes no positional arguments');
    const email = parseEmail(values.email);
    const plan = values.plan === undefined ? undefined : parsePlan(values.plan);
    const label = values.label?.trim();
    if (label !== undefined && label.length > 100)
      throw new UsageError('--label is longer than 100 characters');
    return { kind: 'create', email, plan, label: label || undefined };
  }

  if (verb === 'revoke') {
    if (values.email !== undefined || values.plan !== undefined || values.label !== undefined) {
      throw new UsageError('keys revoke takes only the key or the key id');
    }
    const [arg, ...extra] = rest;
    if (arg === undefined) throw new UsageError('keys revoke needs the key or the key id');
    if (extra.length > 0) throw new UsageError('keys revoke takes exactly one key or key id');
    if (ZUuid.safeParse(arg).success) return { kind: 'revoke', target: { keyId: arg.toLowerCase() } };
    if (arg.startsWith(LIVE_KEY_PREFIX)) return { kind: 'revoke', target: { apiKey: arg } };
    throw new UsageError(`the argument is neither a key (${LIVE_KEY_PREFIX}…) nor a key id (uuid)`);
  }

  throw new UsageError('expected keys create or keys revoke');
};
