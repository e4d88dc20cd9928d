import type { NewEvent, WebhookStore } from '../db/store';

/**
 * Keep a consumed event's webhook events and queue their deliveries (once however often it is
 * redelivered: the event id and the unique delivery per endpoint); wake the delivery loop when there is
 * something to send. One source event may make none (a reminder) or two (a decline).
 */
export const recordEvent = async (options: {
  store: WebhookStore;
  now: Date;
  onQueued: () => void;
  event: NewEvent | readonly NewEvent[];
}): Promise<void> => {
  const list = ([] as NewEvent[]).concat(options.event);
  let queued = 0;
  for (const event of list) queued += await options.store.recordEvent(event, options.now);
  if (queued > 0) options.onQueued();
};
