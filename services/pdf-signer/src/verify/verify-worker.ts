/**
 * The verification worker thread: checks the signatures of one PDF at a time for `pdf.verify`, off
 * the thread that serves NATS (and away from the signing workers). Started by `startVerifier`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { verifyPdf } from '../domain/verify/verify-pdf';
import type { VerifyJob, VerifyReply, VerifyWorkerSetup } from './start-verifier';

const port = parentPort;
if (!port) throw new Error('verify-worker.ts runs as a worker thread only');
const setup = workerData as VerifyWorkerSetup;

port.on('message', (job: VerifyJob) => {
  let reply: VerifyReply;
  try {
    reply = { id: job.id, ok: true, report: verifyPdf(Buffer.from(job.bytes), setup) };
  } catch (err) {
    reply = { id: job.id, ok: false, message: err instanceof Error ? err.message : String(err) };
  }
  port.postMessage(reply);
});
port.postMessage({ ready: true });
