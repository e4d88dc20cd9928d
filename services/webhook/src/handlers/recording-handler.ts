import type { EventContext, EventHandler } from '@esign/bus';
import type { EventContract } from '@esign/contracts';
import type { z } from 'zod';
import type { NewEvent } from '../db/store';
import { recordEvent } from '../domain/record-event';
import type { WebhookServiceDeps } from './deps';

/** What a consumed event's handler uses. */
export type TRecordingDeps = Pick<WebhookServiceDeps, 'store' | 'now' | 'onQueued'>;

/**
 * A consumer that turns each event into webhook events (`toEvent`, domain/events and
 * domain/envelope-events: one, or for some none or two) and records them with their deliveries;
 * resolving acks the message, so an event is acked only once they are committed.
 */
export const recordingHandler =
  <E extends EventContract<z.ZodType>>(
    deps: TRecordingDeps,
    toEvent: (payload: z.infer<E['payload']>, ctx: EventContext) => NewEvent | readonly NewEvent[],
  ): EventHandler<E> =>
  (payload, ctx) =>
    recordEvent({
      store: deps.store,
      now: deps.now(),
      onQueued: deps.onQueued,
      event: toEvent(payload, ctx),
    });
