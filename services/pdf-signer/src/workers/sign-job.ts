import type { TErrorCode } from '@esign/contracts';
import type { SignInput, SignResult } from '../domain/assemble-signer';
import type {
  CompleteEnvelopeInput,
  EnvelopeResult,
  MarkIncompleteInput,
  PreparedEnvelope,
  PrepareEnvelopeInput,
  SignRevisionInput,
} from '../domain/envelope/envelope-operations';
import type { SigningMaterial } from '../domain/cms/load-signing-identity';
import type { TimestampSettings } from '../domain/ltv/request-timestamp';
import type { RevocationSettings } from '../domain/ltv/revocation';
import type { LtvRequest } from '../domain/ltv/ports';
import type { SignWarmUp } from './warm-up-plan';

/** What a signing worker is started with (its `workerData`). */
export interface SignWorkerSetup {
  readonly signing: SigningMaterial;
  /** True when `signing` is the development certificate made up at start-up. */
  readonly development: boolean;
  /** The TSAs each signature is timestamped by (the worker asks them itself). */
  readonly timestamps?: TimestampSettings;
  /** Revocation data settings (OCSP/CRL for the DSS); absent: none fetched. */
  readonly revocation?: RevocationSettings;
  /** What it signs for itself before it reports ready (absent: nothing). */
  readonly warmUp?: SignWarmUp;
}

/** A document to sign, sent to a worker; `bytes` is transferred, not copied. */
export interface SignJob {
  readonly id: number;
  readonly input: Omit<SignInput, 'bytes'> & { readonly bytes: ArrayBuffer };
  /** The service's own warm-up signing: no TSA asked (`SignHooks.offline`), not counted in metrics. */
  readonly offline?: boolean;
}

/**
 * A document to read as the signer would (repairing what it would repair) for its page count
 * (`pdf.inspect`); `bytes` is transferred, not copied.
 */
export interface InspectJob {
  readonly id: number;
  readonly inspect: { readonly bytes: ArrayBuffer };
}

/** What an envelope job asks, without its document's bytes. */
export type EnvelopeTask =
  | { readonly op: 'sign-revision'; readonly input: Omit<SignRevisionInput, 'bytes'> }
  | { readonly op: 'complete-envelope'; readonly input: Omit<CompleteEnvelopeInput, 'bytes'> }
  | { readonly op: 'mark-incomplete'; readonly input: Omit<MarkIncompleteInput, 'bytes'> }
  | { readonly op: 'prepare-envelope'; readonly input: Omit<PrepareEnvelopeInput, 'bytes'> };

/** An envelope's document to append a revision or the completion to, or to mark; `bytes` is transferred. */
export interface EnvelopeJob {
  readonly id: number;
  readonly envelope: EnvelopeTask & { readonly bytes: ArrayBuffer };
}

/** What `pdf.inspect` answers of a document. */
export interface Inspected {
  readonly pageCount: number;
  readonly pageSizes: { width: number; height: number }[];
  /** `sha256:<hex>` of the bytes as given. */
  readonly fileHash: string;
}

/** Whatever a worker is handed. */
export type WorkerJob = SignJob | InspectJob | EnvelopeJob;

/** An error as it crosses the thread boundary (a ServiceError keeps its code and field). */
export interface SignJobError {
  readonly name: string;
  readonly message: string;
  readonly code?: TErrorCode;
  readonly field?: string;
  readonly stack?: string;
}

/**
 * What a worker's signer did on the network since its last report, for the pool to record as metrics
 * (worker threads do not share the service's meter).
 */
export interface WorkerObservations {
  /** TSA, OCSP and CRL requests that ended. */
  readonly requests: readonly LtvRequest[];
  /** notAfter (ms since the epoch) of the TSA certificate of the last token received. */
  readonly timestampCertificate?: number;
  /** The soonest nextUpdate (ms since the epoch) in its revocation cache; null: none with one. */
  readonly revocationExpiry?: number | null;
}

/**
 * A worker's answer to one job; the signed PDF's bytes are transferred back. `observed` carries what
 * the job (and the background revocation refreshes during it) did on the network.
 */
export type SignJobReply = (
  | {
      readonly id: number;
      readonly ok: true;
      /** `bytes` holds the signed PDF in its first `length` bytes (it may have a little room after). */
      readonly result: Omit<SignResult, 'bytes'> & { readonly bytes: ArrayBuffer; readonly length: number };
    }
  | { readonly id: number; readonly ok: true; readonly inspected: Inspected }
  | {
      readonly id: number;
      readonly ok: true;
      /** The written PDF in the first `length` bytes of `bytes`, and for a revision or completion its facts. */
      readonly envelope: {
        readonly bytes: ArrayBuffer;
        readonly length: number;
        readonly result?: Omit<EnvelopeResult, 'bytes'>;
        /** For revision 0 (`prepare-envelope`): its facts. */
        readonly prepared?: Omit<PreparedEnvelope, 'bytes'>;
      };
    }
  | { readonly id: number; readonly ok: false; readonly error: SignJobError }
) & { readonly observed?: WorkerObservations };

/** Observations made while the worker had no job (start-up, background revocation refreshes). */
export interface SignWorkerObserved {
  readonly observed: WorkerObservations;
}

/**
 * Sent by a worker whenever the set of its jobs waiting on the network (for a TSA token) changes: the
 * ids of those jobs now. A job waiting computes nothing; a worker whose jobs all wait may be handed
 * another (see `startSignPool`). A job's reply always comes after the report that it stopped waiting.
 */
export interface SignWorkerWaiting {
  readonly waiting: readonly number[];
}

/** A successful answer of either kind. */
export type SignJobSuccess = Extract<SignJobReply, { ok: true }>;

/** A line a worker's signer logs (the repair fallback, start-up warnings), written by the pool's logger. */
export interface SignWorkerLog {
  readonly log: {
    readonly level: 'info' | 'warn' | 'error';
    readonly message: string;
    readonly fields?: Record<string, unknown>;
  };
}

/** Sent once by a worker whose signer is loaded (fonts, key, certificate) and warmed up. */
export interface SignWorkerReady {
  readonly ready: true;
  /** How long its warm-up took (absent when it did none: `SignWorkerSetup.warmUp` absent). */
  readonly warmUpMs?: number;
  /** How many signings its warm-up made. */
  readonly warmUpSignings?: number;
}

/**
 * The ArrayBuffer to transfer for these bytes: the Buffer's own when it spans all of it (moving it
 * costs nothing and detaches it here); a copy when the Buffer is a view into a larger or shared
 * memory (Node's pool of small Buffers must never be transferred).
 */
export const transferableBytes = (bytes: Uint8Array): ArrayBuffer => {
  const { buffer } = bytes;
  if (buffer instanceof ArrayBuffer && bytes.byteOffset === 0 && bytes.byteLength === buffer.byteLength) {
    return buffer;
  }
  const copy = new ArrayBuffer(bytes.byteLength);
  new Uint8Array(copy).set(bytes);
  return copy;
};

/**
 * Like `transferableBytes`, for a view at the start of a buffer of its own that is a little larger
 * than the view (a signed PDF written with room for its DSS update): the whole buffer is moved and
 * the receiver takes the first `length` bytes, instead of copying them. Anything else is handled
 * as `transferableBytes` does (never Node's pool of small Buffers, which is `Buffer.poolSize` long).
 */
export const transferableView = (bytes: Uint8Array): { buffer: ArrayBuffer; length: number } => {
  const { buffer } = bytes;
  const owned =
    buffer instanceof ArrayBuffer &&
    bytes.byteOffset === 0 &&
    buffer.byteLength > Buffer.poolSize &&
    buffer.byteLength - bytes.byteLength <= Math.max(1024 * 1024, bytes.byteLength / 4);
  return owned
    ? { buffer, length: bytes.byteLength }
    : { buffer: transferableBytes(bytes), length: bytes.byteLength };
};
