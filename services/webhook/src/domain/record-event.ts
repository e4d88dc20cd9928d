import type { NewEvent, WebhookStore } from '../db/store';

/**
 * Keep a consumed event and queue its deliveries (once however often it is redelivered: the event id
 * and the unique delivery per endpoint); wake the delivery loop when there is something to send.
 */
export const recordEvent = async (options: {
  store: WebhookStore;
  now: Date;
  onQueued: () => void;
  event: NewEvent;
}): Promise<void> => {
  if ((await options.store.recordEvent(options.event, options.now)) > 0) options.onQueued();
};
