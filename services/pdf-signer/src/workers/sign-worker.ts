/**
 * A signing worker thread: loads the signer once (fonts, key, certificate), then signs the jobs the
 * pool sends it one at a time. Started by `startSignPool`, never per request.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { ServiceError } from '@esign/contracts';
import { createSigner } from '../domain/create-signer';
import { transferableBytes } from './sign-job';
import type {
  SignJob,
  SignJobError,
  SignJobReply,
  SignWorkerLog,
  SignWorkerReady,
  SignWorkerSetup,
} from './sign-job';

const port = parentPort;
if (!port) throw new Error('sign-worker.ts runs as a worker thread only');
const setup = workerData as SignWorkerSetup;

// What the signer logs goes to the pool, which writes it with the service's logger.
const log = (level: 'info' | 'warn') => (message: string, fields?: Record<string, unknown>) => {
  const line: SignWorkerLog = { log: { level, message, fields } };
  port.postMessage(line);
};
const signer = await createSigner({
  signing: setup.signing,
  development: setup.development,
  timestamps: setup.timestamps,
  info: log('info'),
  warn: log('warn'),
});

const errorOf = (err: unknown): SignJobError => {
  if (err instanceof ServiceError) {
    return { name: err.name, message: err.message, code: err.code, field: err.field };
  }
  if (err instanceof Error) return { name: err.name, message: err.message, stack: err.stack };
  return { name: 'Error', message: String(err) };
};

port.on('message', (job: SignJob) => {
  const { bytes, ...rest } = job.input;
  signer.sign({ ...rest, bytes: Buffer.from(bytes) }).then(
    (result) => {
      const signed = transferableBytes(result.bytes);
      const reply: SignJobReply = { id: job.id, ok: true, result: { ...result, bytes: signed } };
      port.postMessage(reply, [signed]);
    },
    (err: unknown) => {
      const reply: SignJobReply = { id: job.id, ok: false, error: errorOf(err) };
      port.postMessage(reply);
    },
  );
});

const ready: SignWorkerReady = { ready: true };
port.postMessage(ready);
