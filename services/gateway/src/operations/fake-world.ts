import type { TSignPdfReply } from '@esign/contracts';
import { createLogger, type Logger } from '@esign/telemetry';

/** What the typed fakes of the workflows' ports share (tests only). */

/** A port a test did not expect to be called: the call fails, naming it. */
export const unexpected = (what: string) => (): Promise<never> =>
  Promise.reject(new Error(`unexpected call: ${what}`));

/** A logger that keeps the messages logged at info and warn level, in order. */
export const recordingLogger = (): { logger: Logger; infos: string[]; warnings: string[] } => {
  const infos: string[] = [];
  const warnings: string[] = [];
  const logger = createLogger({
    service: 'test',
    level: 'info',
    write: (line) => {
      const entry = JSON.parse(line) as { level?: string; msg?: string };
      if (!entry.msg) return;
      if (entry.level === 'info') infos.push(entry.msg);
      if (entry.level === 'warn') warnings.push(entry.msg);
    },
  });
  return { logger, infos, warnings };
};

/** What `pdf.sign` answers for a document of `accountId` signed as `auditId` (a fixed, plausible reply). */
export const signedReply = (accountId: string, auditId: string): TSignPdfReply => ({
  auditId,
  signedAt: '2026-11-23T10:00:01.000Z',
  signedKey: `signed/${accountId}/${auditId}.pdf`,
  signedFileName: 'contract-signed.pdf',
  fileHash: `sha256:${'a'.repeat(64)}`,
  originalHash: `sha256:${'b'.repeat(64)}`,
  size: 1234,
  pageCount: 2,
  events: [],
});
