/**
 * The public verification page (/verify and /verify/<auditId>): a person drops or picks a PDF, the page
 * sends it to POST /api/v1/verify and says what the report means in plain words. On /verify/<auditId>
 * it first shows what we recorded for that audit ID, and says whether the dropped file is that document.
 */
import type { components } from '../../../../libs/sdk/src/generated/api';
import { byId, h } from '../shared/dom';
import { answerOf, ApiError, createApiClient } from '../shared/http';

// The answers' types, as the SDK generates them from the OpenAPI document.
type Report = components['schemas']['VerificationReport'];
type Signature = Report['signatures'][number];
type IssuedDocument = components['schemas']['IssuedDocumentCheck'];

const when = (iso: string | null): string =>
  iso ? `${new Date(iso).toUTCString().replace('GMT', 'UTC')}` : 'not stated';

const facts = (pairs: [string, string][]): HTMLElement => {
  const dl = h('dl');
  for (const [term, value] of pairs) {
    dl.append(h('dt', {}, term), h('dd', {}, value));
  }
  return dl;
};

const list = (items: string[]): HTMLElement => {
  const ul = h('ul');
  for (const item of items) ul.append(h('li', {}, item));
  return ul;
};

const auditIdOfPath = (): string | undefined => {
  const match = /^\/verify\/([A-Za-z0-9-]{1,64})\/?$/.exec(window.location.pathname);
  return match?.[1];
};

const client = createApiClient();

const status = byId<HTMLParagraphElement>('status');
const recordSection = byId<HTMLElement>('record');
const reportSection = byId<HTMLElement>('report');
const input = byId<HTMLInputElement>('file');
const drop = byId<HTMLLabelElement>('drop');
let record: IssuedDocument | undefined;

const showRecord = async (auditId: string) => {
  recordSection.hidden = false;
  recordSection.replaceChildren(h('h2', {}, `Audit ID ${auditId}`));
  try {
    record = await answerOf(client.GET('/api/v1/verify/{auditId}', { params: { path: { auditId } } }));
    recordSection.append(
      h('p', { class: 'verdict good' }, 'We issued a document with this audit ID.'),
      facts([
        ['Signed at', when(record.signedAt)],
        ['Signer', `${record.signerName} (${record.signerEmail})`],
        ['Pages', String(record.pageCount)],
        ['SHA-256 we issued', record.fileHash],
      ]),
      h('p', {}, 'Drop your copy below to check that it is exactly this document.'),
    );
  } catch (err) {
    const message =
      err instanceof ApiError && err.status === 404
        ? 'We have no document with this audit ID. Check the address, or drop the file below to check its signatures.'
        : err instanceof Error
          ? err.message
          : String(err);
    recordSection.append(h('p', { class: 'verdict bad' }, message));
  }
};

const VERDICTS: Record<Report['verdict'], { text: string; tone: string }> = {
  valid: { text: 'The signatures are valid and the file was not changed after signing.', tone: 'good' },
  modified: { text: 'The signatures are valid, but the file was changed after the last one.', tone: 'warn' },
  invalid: { text: 'This file fails the check: a signature does not match the file.', tone: 'bad' },
  unsigned: { text: 'This file has no digital signature.', tone: 'warn' },
};

const describeSignature = (sig: Signature): HTMLElement => {
  const box = h('div');
  const kind = sig.type === 'document-timestamp' ? 'Document timestamp' : 'Signature';
  box.append(h('h3', {}, `${kind} ${sig.index}${sig.signer ? ` by ${sig.signer}` : ''}`));
  const rows: [string, string][] = [
    ['Check', sig.cryptographicallyValid ? 'Valid: it matches the bytes it signed' : 'Not valid'],
    [
      'Changes after it',
      sig.coversWholeFile
        ? 'None: it covers the whole file'
        : sig.updatesAfter > 0
          ? `${sig.updatesAfter} update${sig.updatesAfter === 1 ? '' : 's'} added after it${
              sig.changesAfter.length ? `: ${sig.changesAfter.join('; ')}` : ''
            }`
          : 'The file does not end where this signature ends',
    ],
    ['Signed at (signer’s clock)', when(sig.signingTime)],
  ];
  if (sig.timestamp) {
    const ok = sig.timestamp.signatureValid && sig.timestamp.imprintMatches;
    rows.push([
      'Trusted timestamp',
      `${when(sig.timestamp.time)} from ${sig.timestamp.authority ?? 'an unnamed authority'} (${ok ? 'verified' : 'does not verify'})`,
    ]);
  } else {
    rows.push(['Trusted timestamp', 'none']);
  }
  if (sig.certificate) {
    rows.push(
      ['Certificate', sig.certificate.subject],
      ['Issued by', sig.certificate.issuer],
      ['Valid', `${when(sig.certificate.validFrom)} to ${when(sig.certificate.validTo)}`],
      ['Serial number', sig.certificate.serialNumber],
    );
  }
  rows.push(['Our seal', sig.sealedByThisService ? 'Yes: made with our signing certificate' : 'No']);
  box.append(facts(rows));
  if (sig.problems.length > 0) box.append(h('p', {}, 'Problems found:'), list(sig.problems));
  return box;
};

const showReport = (report: Report) => {
  const verdict = VERDICTS[report.verdict];
  reportSection.hidden = false;
  reportSection.replaceChildren(
    h('h2', {}, `Result for ${report.file.name}`),
    h('p', { class: `verdict ${verdict.tone}` }, verdict.text),
  );
  const { issued } = report;
  if (issued.document && issued.exactMatch) {
    reportSection.append(
      h(
        'p',
        {},
        `We issued this exact file: audit ID ${issued.document.auditId}, signed ${when(issued.document.signedAt)}.`,
      ),
    );
  } else if (issued.document) {
    reportSection.append(
      h(
        'p',
        {},
        `We issued audit ID ${issued.document.auditId} (signed ${when(issued.document.signedAt)}), but this copy was changed after we issued it.`,
      ),
    );
  } else {
    reportSection.append(h('p', {}, 'We did not issue this file: its fingerprint is not in our records.'));
  }
  if (record) {
    const same = report.file.sha256 === record.fileHash;
    reportSection.append(
      h(
        'p',
        { class: `verdict ${same ? 'good' : 'bad'}` },
        same
          ? `It is exactly the document of audit ID ${record.auditId}.`
          : `It is not exactly the document of audit ID ${record.auditId}.`,
      ),
    );
  }
  reportSection.append(
    facts([
      ['File size', `${report.file.size} bytes`],
      ['SHA-256', report.file.sha256],
    ]),
  );
  for (const sig of report.signatures) reportSection.append(describeSignature(sig));
  if (report.problems.length > 0) reportSection.append(h('h3', {}, 'About the file'), list(report.problems));
};

const check = async (file: File) => {
  status.textContent = `Checking ${file.name}…`;
  reportSection.hidden = true;
  const form = new FormData();
  form.append('file', file, file.name);
  try {
    const report = await answerOf(
      client.POST('/api/v1/verify', {
        body: { file: file.name },
        // The file part itself (the generated type names it by a string, OpenAPI's `format: binary`).
        bodySerializer: () => form,
      }),
    );
    status.textContent = report.summary;
    showReport(report);
    reportSection.focus();
  } catch (err) {
    status.textContent = err instanceof Error ? err.message : String(err);
  }
};

input.addEventListener('change', () => {
  const file = input.files?.[0];
  if (file) void check(file);
});
drop.addEventListener('keydown', (event) => {
  if (event.key === 'Enter' || event.key === ' ') {
    event.preventDefault();
    input.click();
  }
});
drop.addEventListener('dragover', (event) => {
  event.preventDefault();
  drop.classList.add('over');
});
drop.addEventListener('dragleave', () => drop.classList.remove('over'));
drop.addEventListener('drop', (event) => {
  event.preventDefault();
  drop.classList.remove('over');
  const file = event.dataTransfer?.files[0];
  if (file) void check(file);
});
reportSection.tabIndex = -1;

const auditId = auditIdOfPath();
if (auditId) void showRecord(auditId);
