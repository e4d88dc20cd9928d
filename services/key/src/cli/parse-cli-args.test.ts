import { describe, expect, it } from 'vitest';
import { parseCliArgs, UsageError } from './parse-cli-args';

// A made-up key of the right shape (never a real one in the repository).
const KEY = `svc_live_${'k'.repeat(32)}`;

describe('parseCliArgs', () => {
  it('parses keys create with a lowercased email, a plan and a label', () => {
    expect(
      parseCliArgs(['keys', 'create', '--email', 'Ada@Example.com', '--plan', 'business', '--label', 'ci']),
    ).toEqual({ kind: 'create', email: 'ada@example.com', plan: 'business', label: 'ci' });
    expect(parseCliArgs(['keys', 'create', '--email=ada@example.com'])).toEqual({
      kind: 'create',
      email: 'ada@example.com',
      plan: undefined,
      label: undefined,
    });
  });

  it('tells a key id from a plain key in keys revoke', () => {
    const id = '3f1c1a56-5a0e-4a8e-9a51-0c9f9e0b7b11';
    expect(parseCliArgs(['keys', 'revoke', id])).toEqual({ kind: 'revoke', target: { keyId: id } });
    expect(parseCliArgs(['keys', 'revoke', KEY])).toEqual({ kind: 'revoke', target: { apiKey: KEY } });
  });

  it('parses accounts set-plan and set-password (whose password never is an argument)', () => {
    expect(parseCliArgs(['accounts', 'set-plan', '--email', 'Ada@Example.com', '--plan', 'pro'])).toEqual({
      kind: 'set-plan',
      email: 'ada@example.com',
      plan: 'pro',
    });
    expect(parseCliArgs(['accounts', 'set-password', '--email', 'ada@example.com'])).toEqual({
      kind: 'set-password',
      email: 'ada@example.com',
    });
    expect(() => parseCliArgs(['accounts', 'set-password', '--email', 'a@b.co', 'hunter22'])).toThrow(
      'takes no positional arguments',
    );
  });

  it('answers help for --help and -h', () => {
    expect(parseCliArgs(['--help'])).toEqual({ kind: 'help' });
    expect(parseCliArgs(['keys', 'create', '-h'])).toEqual({ kind: 'help' });
  });

  it.each([
    [[], 'expected a command'],
    [['keys'], 'expected keys create or keys revoke'],
    [['keys', 'create'], '--email is required'],
    [['keys', 'create', '--email', 'x'], '--email is not a valid email address'],
    [['keys', 'create', '--email', 'a@b.co', '--plan', 'gold'], '--plan must be free, pro or business'],
    [['keys', 'create', '--email', 'a@b.co', '--colour', 'red'], "Unknown option '--colour'"],
    [['keys', 'revoke'], 'needs the key or the key id'],
    [['keys', 'revoke', 'abc', 'def'], 'exactly one'],
    [['accounts'], 'expected accounts set-plan or accounts set-password'],
    [['accounts', 'set-plan', '--email', 'a@b.co'], '--plan is required'],
    [['accounts', 'set-plan', '--email', 'a@b.co', '--plan', 'gold'], '--plan must be free, pro or business'],
    [['accounts', 'set-password'], '--email is required'],
  ])('rejects %j', (args, message) => {
    expect(() => parseCliArgs(args)).toThrow(UsageError);
    expect(() => parseCliArgs(args)).toThrow(message);
  });

  it('never repeats a key-like argument in its messages', () => {
    const notQuiteAKey = 'sk_0123456789abcdefghij';
    let message = '';
    try {
      parseCliArgs(['keys', 'revoke', notQuiteAKey]);
    } catch (err) {
      message = err instanceof Error ? err.message : '';
    }
    expect(message).toContain('neither a key');
    expect(message).not.toContain(notQuiteAKey);
  });
});
