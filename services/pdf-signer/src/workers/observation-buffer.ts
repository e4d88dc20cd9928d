import type { LtvObserver, LtvRequest } from '../domain/ltv/ports';
import type { WorkerObservations } from './sign-job';

/** What a signing worker's signer observed, kept until the worker reports it to the pool. */
export interface ObservationBuffer {
  /** Given to the worker's signer. */
  readonly observer: LtvObserver;
  /** What was observed since the last call, or undefined when nothing was (nothing to send). */
  take(): WorkerObservations | undefined;
}

/**
 * A buffer of observations: noted as they happen (an array push), taken with the next job's reply.
 * `noted` is called after each note, so that the worker can report notes made while it has no job.
 */
export const createObservationBuffer = (noted: () => void): ObservationBuffer => {
  let requests: LtvRequest[] = [];
  let timestampCertificate: number | undefined;
  let revocationExpiry: number | null | undefined;
  return {
    observer: {
      request(request) {
        requests.push(request);
        noted();
      },
      timestampCertificate(notAfter) {
        timestampCertificate = notAfter;
        noted();
      },
      revocationExpiry(nextUpdate) {
        revocationExpiry = nextUpdate ?? null;
        noted();
      },
    },
    take() {
      if (requests.length === 0 && timestampCertificate === undefined && revocationExpiry === undefined) {
        return undefined;
      }
      const taken: WorkerObservations = {
        requests,
        ...(timestampCertificate === undefined ? {} : { timestampCertificate }),
        ...(revocationExpiry === undefined ? {} : { revocationExpiry }),
      };
      requests = [];
      timestampCertificate = undefined;
      revocationExpiry = undefined;
      return taken;
    },
  };
};
