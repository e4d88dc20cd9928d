import type { Resource } from '@esign/telemetry';
import { connectBus, type Bus, type BusOptions } from './bus';

/**
 * The NATS connection as a resource of `startService`: ready while connected; drained on stop, which
 * finishes the requests and events in flight of every endpoint and consumer started on it.
 */
export const busResource = (options: BusOptions): Resource<Bus> => ({
  name: 'NATS',
  start: () => connectBus(options),
  stop: (bus) => bus.drain(),
  ready: (bus) => bus.isConnected(),
});
