import { describe, expect, it, beforeAll } from 'vitest';
import { makePdf, runPdfTool } from '@esign/testing';
import { auth, baseUrl, createAccount, errorOf, signForm, type TestAccount } from './harness';
import { mailTo, newRecipient, pageCall, waitForMail, type Mail } from './send-harness';

/**
 * Replacing and resending a recipient of an envelope, end to end through HTTP, the SMTP server's
 * mailbox and pdftotext: a signer is replaced before signing; the new person is emailed a link at once,
 * the replaced person's link answers 404, a resend gives the new person a fresh link and kills their
 * first, the new person signs, and the certificate of completion names both people.
 */

let business: TestAccount;
let pdf: Buffer;

beforeAll(async () => {
  business = await createAccount('business');
  pdf = await makePdf({ pages: 1, text: 'Replacement agreement' });
});

interface Envelope {
  envelopeId: string;
  status: string;
  recipients: {
    recipientId: string;
    name: string;
    email: string;
    status: string;
    replaces?: { name: string; email: string; replacedAt: string }[];
  }[];
}

const api = (path: string, init: RequestInit = {}) =>
  fetch(`${baseUrl}/api/v1/envelopes${path}`, {
    ...init,
    headers: { ...auth(business.apiKey), ...(init.headers as Record<string, string> | undefined) },
  });

const waitForEnvelope = async (id: string, predicate: (e: Envelope) => boolean, timeoutMs = 30_000) => {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const envelope = (await (await api(`/${id}`)).json()) as Envelope;
    if (predicate(envelope)) return envelope;
    if (Date.now() > until) throw new Error(`envelope ${id} did not get there: ${JSON.stringify(envelope)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
};

const typedSignature = (name: string) => ({ mode: 'type', typedName: name, color: '#1e3a8a' });

const ENVELOPE_LINK = /(https?:\/\/[^\s"<>]+\/e\/([A-Za-z0-9_-]{43}))/;

/** The envelope links in the emails to `address`, oldest first. */
const linksTo = async (address: string): Promise<string[]> =>
  (await mailTo(address))
    .sort((a: Mail, b: Mail) => (a.parsed.date?.getTime() ?? 0) - (b.parsed.date?.getTime() ?? 0))
    .flatMap((m) => {
      const token = ENVELOPE_LINK.exec(m.text)?.[2];
      return token ? [token] : [];
    });

/** Waits for the `count`-th email with a link to `address` and answers that link's token. */
const nthLink = async (address: string, count: number): Promise<string> => {
  await waitForMail(address, undefined, count, 30_000);
  const links = await linksTo(address);
  const token = links[count - 1];
  if (links.length < count || !token) throw new Error(`${links.length} links to ${address}`);
  return token;
};

describe('replacing and resending a recipient of an envelope', () => {
  it('replaced before signing: the new person gets a link, the old one is dead, the certificate names both', async () => {
    const [oldEmail, newEmail, copyEmail] = [newRecipient(), newRecipient(), newRecipient()];
    const created = await api('', {
      method: 'POST',
      body: signForm({
        file: { bytes: pdf, name: 'replacement.pdf', type: 'application/pdf' },
        fields: {
          recipients: [
            {
              name: 'Olga Original',
              email: oldEmail,
              role: 'signer',
              order: 1,
              fields: [{ type: 'signature', page: 0, x: 10, y: 70, width: 25 }],
            },
            { name: 'Carl Copy', email: copyEmail, role: 'cc', order: 1 },
          ],
        },
      }),
    });
    expect(created.status, await created.clone().text()).toBe(201);
    const envelope = (await created.json()) as Envelope;
    const place = envelope.recipients[0]?.recipientId ?? '';
    const oldToken = await nthLink(oldEmail, 1);
    expect((await pageCall('/envelope/api/recipient', oldToken)).status).toBe(200);

    // Another person of the group cannot take the place; then the real replacement.
    const taken = await api(`/${envelope.envelopeId}/recipients/${place}/replace`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Carl Again', email: copyEmail }),
    });
    expect(taken.status).toBe(400);
    expect(await errorOf(taken)).toContain('email');
    const replaced = await api(`/${envelope.envelopeId}/recipients/${place}/replace`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Nina Newcomer', email: newEmail }),
    });
    expect(replaced.status, await replaced.clone().text()).toBe(200);
    const after = (await replaced.json()) as Envelope;
    expect(after.recipients[0]).toMatchObject({
      recipientId: place,
      name: 'Nina Newcomer',
      email: newEmail,
      status: 'notified',
      replaces: [{ name: 'Olga Original', email: oldEmail }],
    });

    // The old link is dead for the page and for every act.
    const oldPage = await pageCall('/envelope/api/recipient', oldToken);
    expect(oldPage.status).toBe(404);
    expect(
      (await pageCall('/envelope/api/sign', oldToken, { signature: typedSignature('Olga') })).status,
    ).toBe(404);

    // The new person is emailed at once; a resend gives them a new link and kills the first.
    const firstNew = await nthLink(newEmail, 1);
    const resent = await api(`/${envelope.envelopeId}/recipients/${place}/resend`, { method: 'POST' });
    expect(resent.status, await resent.clone().text()).toBe(200);
    const secondNew = await nthLink(newEmail, 2);
    expect(secondNew).not.toBe(firstNew);
    expect((await pageCall('/envelope/api/recipient', firstNew)).status).toBe(404);
    const view = await pageCall('/envelope/api/recipient', secondNew);
    expect(view.status).toBe(200);
    const shown = JSON.stringify(await view.json());
    expect(shown).toContain('Nina Newcomer');
    expect(shown).not.toContain(oldEmail);

    expect((await pageCall('/envelope/api/view', secondNew, {})).status).toBe(200);
    const signed = await pageCall('/envelope/api/sign', secondNew, {
      signature: typedSignature('Nina Newcomer'),
    });
    expect(signed.status, await signed.clone().text()).toBe(200);

    const done = await waitForEnvelope(envelope.envelopeId, (e) => e.status === 'completed');
    expect(done.recipients[0]?.status).toBe('signed');
    // A recipient who acted cannot be resent or replaced any more.
    expect((await api(`/${envelope.envelopeId}/recipients/${place}/resend`, { method: 'POST' })).status).toBe(
      409,
    );

    const final = await api(`/${envelope.envelopeId}/document`);
    expect(final.headers.get('x-complete')).toBe('true');
    const text = (await runPdfTool('pdftotext', ['{file}', '-'], Buffer.from(await final.arrayBuffer())))
      .stdout;
    const flat = text.replace(/\s+/g, ' ');
    expect(flat).toContain(`Olga Original <${oldEmail}>`);
    expect(flat).toContain(`Nina Newcomer <${newEmail}>`);
    expect(flat).toContain(`Replaced by Nina Newcomer <${newEmail}>`);
    expect(flat).toContain(`In place of Olga Original <${oldEmail}>`);
    // The replaced person never got the completed document; the new one did.
    await waitForMail(newEmail, /^Completed:/, 1, 30_000);
    expect(await mailTo(oldEmail, /^Completed:/)).toHaveLength(0);
  });
});
