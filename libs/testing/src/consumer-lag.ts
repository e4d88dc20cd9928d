import type { NatsConnection } from 'nats';

/**
 * Messages of durable JetStream consumers not yet acked (pending or in flight): 0 once every event
 * published so far has been handled. Tests wait for it before asserting that something did *not*
 * happen (no second email, no second delivery), so they wait on a signal rather than on time.
 */
export const unackedMessages = async (
  bus: { readonly connection: NatsConnection; readonly streamName: string },
  ...durables: string[]
): Promise<number> => {
  const jsm = await bus.connection.jetstreamManager();
  let total = 0;
  for (const durable of durables) {
    const info = await jsm.consumers.info(bus.streamName, durable);
    total += info.num_pending + info.num_ack_pending;
  }
  return total;
};
