import type { EventContext, EventHandler } from '@esign/bus';
import type { EventContract } from '@esign/contracts';
import type { z } from 'zod';
import type { NewEvent } from '../db/store';
import { recordEvent } from '../domain/record-event';
import type { WebhookServiceDeps } from './deps';

/** What a consumed event's handler uses. */
export type TRecordingDeps = Pick<WebhookServiceDeps, 'store' | 'now' | 'onQueued'>;

/**
 * A consumer that turns each event into a webhook event (`toEvent`, domain/events) and records it with
 * its deliveries; resolving acks the message, so an event is acked only once it is committed.
 */
export const recordingHandler =
  <E extends EventContract<z.ZodType>>(
    deps: TRecordingDeps,
    toEvent: (payload: z.infer<E['payload']>, ctx: EventContext) => NewEvent,
  ): EventHandler<E> =>
  (payload, ctx) =>
    recordEvent({
      store: deps.store,
      now: deps.now(),
      onQueued: deps.onQueued,
      event: toEvent(payload, ctx),
    });
