import { parseArgs } from 'node:util';
import { LIVE_KEY_PREFIX, ZPlan, type TPlan } from '@esign/contracts';
import { z } from 'zod';

/** What the operator CLI was asked to do. */
export type TCliCommand =
  | { readonly kind: 'help' }
  | { readonly kind: 'create'; readonly email: string; readonly plan?: TPlan; readonly label?: string }
  | { readonly kind: 'revoke'; readonly target: { keyId: string } | { apiKey: string } };

/** Wrong arguments: the CLI prints the message and the usage, and exits 1. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export const CLI_USAGE = `Usage:
  pnpm cli keys create --email <email> [--plan <free|pro|business>] [--label <label>]
  pnpm cli keys revoke <key or key id>
  pnpm cli --help

keys create   Create an API key; creates the account when the email is new.
              A new account gets --plan, or free when it is omitted; an existing account's plan
              is changed only when --plan is given. API access needs the business plan.
              The key is printed once, alone on the last line of stdout; everything else goes to stderr.
keys revoke   Revoke a key, given the key itself (svc_live_…, hashed here before it is sent) or its id.

Environment: NATS_URL (default nats://127.0.0.1:4222), BUS_PREFIX (default empty).`;

const ZEmail = z.email();
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
  if (group !== 'keys') throw new UsageError('expected a command: keys create or keys revoke');

  if (verb === 'create') {
    if (rest.length > 0) throw new UsageError('keys create takes no positional arguments');
    if (values.email === undefined) throw new UsageError('--email is required');
    const email = values.email.trim().toLowerCase();
    if (!ZEmail.safeParse(email).success) throw new UsageError('--email is not a valid email address');
    let plan: TPlan | undefined;
    if (values.plan !== undefined) {
      const result = ZPlan.safeParse(values.plan);
      if (!result.success) throw new UsageError('--plan must be free, pro or business');
      plan = result.data;
    }
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
