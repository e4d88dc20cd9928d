import { beforeAll, describe, expect, it } from 'vitest';
import { makePdf, makePng, runPdfTool } from '@esign/testing';
import { auth, baseUrl, createAccount, signForm, type TestAccount } from './harness';
import { newRecipient, pageCall, setClockOffset, waitForMail, type Mail } from './send-harness';

/**
 * One-time email codes end to end (HTTP, the SMTP server's mailbox, the real PDF tools): a recipient
 * whose sender set `requireEmailCode` gets their link and, in an email of its own, a 6-digit code; until
 * the code is entered the link gives nothing of the document and acts on nothing (403); a wrong code is
 * 400 with the tries left, the right one unlocks the link; 5 wrong tries lock the code and a new one can
 * be asked for; a code older than 10 minutes (document-store's clock moved) is refused. The certificate
 * of completion lists the verification.
 */

let business: TestAccount;
let pdf: Buffer;
let png: string;

beforeAll(async () => {
  business = await createAccount('business');
  pdf = await makePdf({ pages: 1, text: 'Code agreement' });
  png = (await makePng()).toString('base64');
});

const SUBJECT = 'Please sign the code agreement';
const CODE_SUBJECT = new RegExp(`^Your code for ${SUBJECT}$`);

const createEnvelope = async (recipients: unknown[]): Promise<{ envelopeId: string }> => {
  const res = await fetch(`${baseUrl}/api/v1/envelopes`, {
    method: 'POST',
    headers: auth(business.apiKey),
    body: signForm({
      file: { bytes: pdf, name: 'code-agreement.pdf', type: 'application/pdf' },
      fields: { recipients, subject: SUBJECT },
    }),
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as { envelopeId: string };
};

const withCode = (email: string, role: 'signer' | 'approver') => ({
  name: role === 'signer' ? 'Cody Signer' : 'Ava Approver',
  email,
  role,
  order: 1,
  requireEmailCode: true,
  ...(role === 'signer' ? { fields: [{ type: 'signature', page: 0, x: 10, y: 70, width: 30 }] } : {}),
});

const linkIn = (mail: Mail | undefined): string => {
  const match = /https?:\/\/[^\s"<>]+\/e\/([A-Za-z0-9_-]{43})/.exec(mail?.text ?? '');
  if (!match?.[1]) throw new Error(`no envelope link in: ${mail?.text}`);
  return match[1];
};

const codeIn = (mail: Mail | undefined): string => {
  const match = /^(\d{6})$/m.exec(mail?.text ?? '');
  if (!match?.[1]) throw new Error(`no code in: ${mail?.text}`);
  return match[1];
};

/** The link email and the code emails of `address` (waiting for `codes` of them). */
const mailsOf = async (address: string, codes = 1) => {
  const codeMails = await waitForMail(address, CODE_SUBJECT, codes, 30_000);
  const [linkMail] = await waitForMail(address, new RegExp(`^${SUBJECT}$`), 1, 30_000);
  return { token: linkIn(linkMail), codeMails, linkMail };
};

const verify = (token: string, code: string) => pageCall('/envelope/api/verify-code', token, { code });

/** A code that is not `code`. */
const wrongFor = (code: string) => (code === '000000' ? '111111' : '000000');

describe('one-time email codes, end to end', () => {
  it('a signer gets the link and the code apart; nothing before the code; a wrong code, then the right one; signing works', async () => {
    const signer = newRecipient();
    const { envelopeId } = await createEnvelope([withCode(signer, 'signer')]);
    const { token, codeMails, linkMail } = await mailsOf(signer);
    expect(codeMails).toHaveLength(1);
    const code = codeIn(codeMails[0]);
    // The code's email carries no link; the link's email no code.
    expect(codeMails[0]?.text).not.toMatch(/https?:\/\//);
    expect(String(codeMails[0]?.parsed.html)).not.toMatch(/<a\s|https?:\/\//);
    expect(linkMail?.text).not.toContain(code);

    const recipient = await pageCall('/envelope/api/recipient', token);
    expect(recipient.status).toBe(200);
    expect(await recipient.json()).toMatchObject({ codeRequired: true, fileName: 'code-agreement.pdf' });

    // Before the code: no document, no view, no signature, no decline.
    for (const [path, body] of [
      ['/envelope/api/document', undefined],
      ['/envelope/api/view', {}],
      ['/envelope/api/sign', { signature: { mode: 'draw', imageBase64: png } }],
      ['/envelope/api/decline', { reason: 'no' }],
    ] as const) {
      const res = await pageCall(path, token, body);
      expect(res.status, path).toBe(403);
      expect(await res.json()).toEqual({
        error: 'Enter the one-time code we emailed you before you open this document.',
        codeRequired: true,
      });
    }

    const wrong = await verify(token, wrongFor(code));
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({ outcome: 'wrong', attemptsLeft: 4 });
    const right = await verify(token, code);
    expect(right.status, await right.clone().text()).toBe(200);

    expect(await (await pageCall('/envelope/api/recipient', token)).json()).toMatchObject({
      codeRequired: false,
    });
    const document = await pageCall('/envelope/api/document', token);
    expect(document.status).toBe(200);
    expect(
      Buffer.from(await document.arrayBuffer())
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');
    expect((await pageCall('/envelope/api/view', token, {})).status).toBe(200);
    const signed = await pageCall('/envelope/api/sign', token, {
      signature: { mode: 'draw', imageBase64: png },
    });
    expect(signed.status, await signed.clone().text()).toBe(200);
    expect(await signed.json()).toMatchObject({ status: 'signed', completing: true });

    // The certificate of completion lists the verification with its IP address.
    const until = Date.now() + 30_000;
    let final: Response;
    for (;;) {
      final = await fetch(`${baseUrl}/api/v1/envelopes/${envelopeId}/document`, {
        headers: auth(business.apiKey),
      });
      if (final.headers.get('x-complete') === 'true' || Date.now() > until) break;
      await new Promise((r) => setTimeout(r, 300));
    }
    expect(final.headers.get('x-complete')).toBe('true');
    const text = (await runPdfTool('pdftotext', ['{file}', '-'], Buffer.from(await final.arrayBuffer())))
      .stdout;
    expect(text).toContain('code-verified');
  });

  it('locks a code after 5 wrong tries; a new code asked for works', async () => {
    const approver = newRecipient();
    await createEnvelope([withCode(approver, 'approver')]);
    const { token, codeMails } = await mailsOf(approver);
    const code = codeIn(codeMails[0]);
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await verify(token, wrongFor(code))).status);
    expect(statuses).toEqual([400, 400, 400, 400, 423]);
    const locked = await verify(token, code);
    expect(locked.status).toBe(423);
    expect(await locked.json()).toMatchObject({ outcome: 'locked' });
    expect((await pageCall('/envelope/api/approve', token, {})).status).toBe(403);

    const requested = await pageCall('/envelope/api/request-code', token, {});
    expect(requested.status, await requested.clone().text()).toBe(202);
    const again = await waitForMail(approver, CODE_SUBJECT, 2, 30_000);
    // The new code (the mailbox's order is not the sending order).
    const codes = again.map(codeIn);
    const fresh = codes.find((c) => c !== code) ?? codes[1] ?? '';
    const ok = await verify(token, fresh);
    expect(ok.status, await ok.clone().text()).toBe(200);
    const approved = await pageCall('/envelope/api/approve', token, {});
    expect(approved.status, await approved.clone().text()).toBe(200);
  });

  it('refuses a code past its 10 minutes (the clock moved)', async () => {
    const approver = newRecipient();
    await createEnvelope([withCode(approver, 'approver')]);
    const { token, codeMails } = await mailsOf(approver);
    const code = codeIn(codeMails[0]);
    try {
      await setClockOffset(10 * 60_000 + 5_000);
      const expired = await verify(token, code);
      expect(expired.status).toBe(423);
      expect(await expired.json()).toMatchObject({ outcome: 'expired' });
    } finally {
      await setClockOffset(0);
    }
    expect((await pageCall('/envelope/api/document', token)).status).toBe(403);
  });
});
