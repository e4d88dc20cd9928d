import { describe, expect, it } from 'vitest';
import { DrizzleQueryError } from 'drizzle-orm/errors';
import { createLogger } from './logger';

describe('logger', () => {
  it('logs a failed query without its parameters (user data), keeping the query and the cause', () => {
    const lines: string[] = [];
    const sut = createLogger({ service: 't', write: (line) => lines.push(line) });
    const err = new DrizzleQueryError(
      'select * from documents where account_id = $1 and file_name ilike $2',
      ['3f1c2b8e-5d6a-4e7f-9a0b-1c2d3e4f5a6b', '%confidential-merger%'],
      new Error('canceling statement due to statement timeout'),
    );
    sut.error('handler failed', { err });
    const text = lines.join('');
    expect(text).not.toContain('confidential-merger');
    expect(text).not.toContain('3f1c2b8e-5d6a-4e7f-9a0b-1c2d3e4f5a6b');
    expect(text).toContain('file_name ilike $2');
    expect(text).toContain('params: [redacted]');
    expect(text).toContain('canceling statement due to statement timeout');
  });
});
