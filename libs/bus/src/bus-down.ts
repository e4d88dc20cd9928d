import { ErrorCode, NatsError } from 'nats';
import { ServiceError } from '@esign/contracts';
import { NotDeliveredError } from './bus';

/** nats.js errors that mean the server went away, not that it answered something. */
const DOWN_CODES = new Set<string>([
  ErrorCode.Timeout,
  ErrorCode.Disconnect,
  ErrorCode.ConnectionClosed,
  ErrorCode.ConnectionRefused,
  ErrorCode.ConnectionDraining,
]);

/**
 * True when a bus call failed because NATS is away (a publish buffered through a disconnect timed
 * out, the connection closed or refused, a request refused while disconnected): an outage to log once,
 * not a failure to log with its stack. A JetStream answer (no stream, no responders) is not one.
 */
export const isBusDown = (err: unknown): boolean =>
  (err instanceof NatsError && DOWN_CODES.has(err.code)) ||
  (err instanceof NotDeliveredError && err.message === 'the message bus is unavailable');

/**
 * True when a JetStream publish got no answer from its stream (503, no responders): in a cluster, the
 * seconds the stream takes to elect a new leader after losing one; on one server, a stream that is
 * missing. Publishing again later is the remedy for the first: an outage, logged once.
 */
export const isStreamUnanswered = (err: unknown): boolean =>
  err instanceof NatsError && err.code === String(ErrorCode.NoResponders);

/**
 * True when a bus request failed `unavailable`: the service that answers it has lost a dependency of
 * its own (its database), nobody is listening, no answer came in time, or NATS is away. Trying again
 * later is the remedy, so a consumer handler that met it may count it as an outage (`ConsumeOptions`).
 */
export const isUnavailable = (err: unknown): boolean =>
  err instanceof ServiceError && err.code === 'unavailable';
