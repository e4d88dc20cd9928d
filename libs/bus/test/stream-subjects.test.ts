import { describe, expect, it } from 'vitest';
import { DURABLE_EVENT_SUBJECTS } from '@esign/contracts';

describe("the durable event stream's subjects", () => {
  it('are distinct (JetStream refuses a stream with the same subject twice: no service would start)', () => {
    expect(new Set(DURABLE_EVENT_SUBJECTS).size).toBe(DURABLE_EVENT_SUBJECTS.length);
  });
});
