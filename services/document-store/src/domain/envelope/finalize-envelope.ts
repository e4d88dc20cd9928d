import { randomUUID } from 'node:crypto';
import {
  DocumentSigned,
  EnvelopeCompleted,
  type PdfCompleteEnvelope,
  ZRecipientStatus,
  type TCertificateRecipient,
} from '@esign/contracts';
import type { z } from 'zod';
import {
  appendStory,
  envelopeOutboxEntry,
  findEnvelope,
  readStory,
  updateEnvelope,
  type TEnvelopeAggregate,
  type TEnvelopeStoryEntry,
} from '../../db/envelope-repository';
import { insertDocumentRecord } from '../../db/insert-document-record';
import { inTransaction } from '../../db/signing-repository';
import { chainAuditLog, type TAuditEntryDraft } from '../chain-audit-log';
import { RECORDED_EVENT } from '../record-document';
import { envelopeEvent, eventRecipient } from './envelope-deps';
import type { EnvelopeDeps } from './envelope-deps';

type TCompleteRequest = z.input<(typeof PdfCompleteEnvelope)['request']>;
type TCompleteReply = z.infer<(typeof PdfCompleteEnvelope)['reply']>;

/** What finalizing uses besides the pool and the clock: pdf-signer's `pdf.complete-envelope`. */
export interface FinalizeDeps extends EnvelopeDeps {
  readonly completeEnvelope: (request: TCompleteRequest) => Promise<TCompleteReply>;
}

/** Story entries the certificate of completion lists per recipient. */
const CERTIFICATE_EVENTS = new Set(['notified', 'code-verified', 'viewed', 'signed', 'approved', 'declined']);

/** A story entry as an audit log entry (`envelope.<event>` for the envelope's own entries). */
const toDraft = (e: TEnvelopeStoryEntry): TAuditEntryDraft => ({
  event: e.event.includes('.') ? e.event : `envelope.${e.event}`,
  timestamp: e.at.toISOString(),
  details: e.details,
});

type TCertificateEvent = TCertificateRecipient['events'][number];

const detail = (e: TEnvelopeStoryEntry, key: string): string => String(e.details[key] ?? '');

/**
 * The certificate's rows of one recipient's place: each person the sender replaced there (with the
 * status they had reached and their events, ending with `replaced` naming who took their place), then
 * the person there now, whose events start with `replaced` naming whom they replaced.
 */
const certificateRowsOf = (
  r: TEnvelopeAggregate['recipients'][number],
  story: readonly TEnvelopeStoryEntry[],
): TCertificateRecipient[] => {
  const rows: TCertificateRecipient[] = [];
  let events: TCertificateEvent[] = [];
  for (const e of story) {
    if (e.recipientId !== r.id) continue;
    const at = e.at.toISOString();
    if (e.event === 'replaced') {
      const status = ZRecipientStatus.safeParse(e.details.replacedStatus);
      rows.push({
        name: detail(e, 'replacedName'),
        email: detail(e, 'replacedEmail'),
        role: r.role,
        order: r.orderGroup,
        status: status.success ? status.data : 'waiting',
        events: [
          ...events,
          {
            event: 'replaced',
            at,
            ipAddress: null,
            userAgent: null,
            note: `Replaced by ${detail(e, 'name')} <${detail(e, 'email')}>`,
          },
        ],
      });
      events = [
        {
          event: 'replaced',
          at,
          ipAddress: null,
          userAgent: null,
          note: `In place of ${detail(e, 'replacedName')} <${detail(e, 'replacedEmail')}>`,
        },
      ];
    } else if (CERTIFICATE_EVENTS.has(e.event)) {
      events.push({ event: e.event, at, ipAddress: e.ipAddress, userAgent: e.userAgent });
    }
  }
  rows.push({ name: r.name, email: r.email, role: r.role, order: r.orderGroup, status: r.status, events });
  return rows;
};

const certificateRecipients = (
  aggregate: TEnvelopeAggregate,
  story: readonly TEnvelopeStoryEntry[],
): TCertificateRecipient[] => aggregate.recipients.flatMap((r) => certificateRowsOf(r, story));

/**
 * Complete an envelope whose signers and approvers have all acted (`events.envelope.finalize-due`):
 * pdf-signer appends the certificate of completion and the seal on top of the head, then in one
 * transaction the document is recorded as `document.record` records one (under the envelope's audit
 * ID, its audit log the envelope's story, then the sealing's events, then `document.recorded`,
 * counted from its record), the envelope becomes `completed`, people in copy `notified`, and
 * `events.envelope.completed` is queued. An envelope completed already (a redelivery) is left as it
 * is; any failure throws, so the event is delivered again and nothing is half written.
 * Answers whether this call completed it.
 */
export const finalizeEnvelope = async (
  deps: FinalizeDeps,
  event: { envelopeId: string; accountId: string },
): Promise<boolean> => {
  const found = await findEnvelope(
    deps.pool,
    { envelopeId: event.envelopeId, accountId: event.accountId },
    { lock: false },
  );
  if (!found || found.envelope.status !== 'pending' || !found.envelope.completing) return false;
  const { envelope } = found;
  // A send's envelope is never completing (the send completes it); its original has no hash here.
  const { originalHash } = envelope;
  if (originalHash === null) return false;
  const story = await readStory(deps.pool, envelope.id);
  const sealed = await deps.completeEnvelope({
    accountId: envelope.accountId,
    auditId: envelope.auditId,
    envelopeId: envelope.id,
    sourceKey: envelope.headKey,
    fileName: envelope.fileName,
    subject: envelope.subject,
    senderEmail: envelope.senderEmail,
    createdAt: envelope.createdAt.toISOString(),
    originalHash,
    recipients: certificateRecipients(found, story),
  });
  const now = deps.now();
  return inTransaction(deps.pool, async (client) => {
    const current = await findEnvelope(client, { envelopeId: envelope.id }, { lock: true });
    // Another delivery completed it meanwhile.
    if (!current || current.envelope.status !== 'pending' || !current.envelope.completing) return false;
    const { recipients } = current;
    const signers = recipients.filter((r) => r.role === 'signer');
    const lastSigned = story.filter((e) => e.event === 'signed').at(-1);
    const completedEntry: TEnvelopeStoryEntry = {
      recipientId: null,
      event: 'completed',
      at: now,
      ipAddress: null,
      userAgent: null,
      details: { fileHash: sealed.fileHash },
    };
    const copies = recipients.filter((r) => r.role === 'cc');
    const documentId = randomUUID();
    const signerName = signers.map((r) => r.name).join(', ');
    const signerEmail = signers.map((r) => r.email).join(', ');
    // As `document.record` publishes it; counted by the key service from the record (no reservation).
    const signedEvent = envelopeOutboxEntry(DocumentSigned.subject, (eventId) => ({
      documentId,
      accountId: envelope.accountId,
      auditId: envelope.auditId,
      fileHash: sealed.fileHash,
      signedAt: sealed.signedAt,
      eventId,
      fileName: sealed.signedFileName,
      signerName,
      signerEmail,
      objectKey: sealed.signedKey,
      countFromRecord: true,
    }));
    const completed = envelopeEvent(EnvelopeCompleted.subject, envelope, now, {
      recipients: recipients.map(eventRecipient),
      fileHash: sealed.fileHash,
      objectKey: sealed.signedKey,
      size: sealed.size,
      completedAt: now.toISOString(),
    });
    const drafts: TAuditEntryDraft[] = [
      ...story.map(toDraft),
      ...sealed.events.map((e) => ({
        event: e.event,
        timestamp: new Date(e.timestamp).toISOString(),
        details: e.details,
      })),
      toDraft(completedEntry),
      { event: RECORDED_EVENT, timestamp: now.toISOString(), details: { fileHash: sealed.fileHash } },
    ];
    const recorded = await insertDocumentRecord(client, {
      document: {
        id: documentId,
        accountId: envelope.accountId,
        auditId: envelope.auditId,
        fileName: sealed.signedFileName,
        signerName,
        signerEmail,
        ipAddress: lastSigned?.ipAddress ?? '',
        userAgent: lastSigned?.userAgent ?? '',
        signedAt: new Date(sealed.signedAt),
        fileHash: sealed.fileHash,
        originalHash,
        objectKey: sealed.signedKey,
        size: sealed.size,
        pageCount: sealed.pageCount,
      },
      auditLog: chainAuditLog(envelope.auditId, drafts),
      events: [signedEvent, completed],
    });
    // The audit ID is reserved for this envelope, and only this transaction records it.
    if (!recorded)
      throw new Error(`envelope ${envelope.id}: its audit ID ${envelope.auditId} is already recorded`);
    await updateEnvelope(client, envelope.id, {
      status: 'completed',
      completing: false,
      completed_at: now,
      file_hash: sealed.fileHash,
      signed_key: sealed.signedKey,
    });
    await client.query(
      `update documents.envelope_recipients set status = 'notified', notified_at = $2
       where envelope_id = $1 and role = 'cc'`,
      [envelope.id, now],
    );
    await appendStory(client, envelope.id, [
      completedEntry,
      ...copies.map((r) => ({
        recipientId: r.id,
        event: 'notified',
        at: now,
        ipAddress: null,
        userAgent: null,
        details: { recipientId: r.id, name: r.name, email: r.email, role: r.role, order: r.orderGroup },
      })),
    ]);
    return true;
  });
};
