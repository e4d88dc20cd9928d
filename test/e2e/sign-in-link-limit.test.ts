import { describe, expect, it } from 'vitest';
import { baseUrl, jsonInit, signUpAndIn, unacked } from './harness';
import { mailTo, stackLog, waitForMail } from './send-harness';

// POST /api/auth/sign-in-link is limited per IP by the gateway and per address by the key service:
// at most 3 link emails per address in 15 minutes. The HTTP answer never changes (it comes before
// any lookup), so the limit says nothing about which addresses have accounts.

const requestLink = async (email: string) => {
  const res = await fetch(`${baseUrl}/api/auth/sign-in-link`, jsonInit('POST', { email }));
  return { status: res.status, body: await res.text() };
};

describe('sign-in links per address', () => {
  it('sends at most 3 link emails to an address in 15 minutes, answering every request alike', async () => {
    const { email } = await signUpAndIn();
    const nobody = `nobody${Date.now()}@example.com`;
    const answers = [];
    for (let i = 0; i < 5; i++) {
      answers.push(await requestLink(i === 4 ? email.toUpperCase() : email));
      answers.push(await requestLink(nobody));
    }
    // Ten identical answers: the known and the unknown address, under and over the limit.
    expect(new Set(answers.map((a) => `${a.status} ${a.body}`)).size).toBe(1);
    expect(answers[0]?.status).toBe(202);

    await waitForMail(email, /sign-in link/, 3);
    // The two requests over the limit, for each address, are recorded as skipped by the mailer (its log names the reason, never
    // the address), and no fourth email comes.
    await expect
      .poll(async () => (await stackLog()).split('too many sign-in links for this address').length - 1, {
        timeout: 20_000,
      })
      .toBeGreaterThanOrEqual(4);
    // Every request handled by the mailer (nothing unacked): a fourth email would be there by now.
    await expect.poll(() => unacked('mailer-sign-in-link-requested'), { timeout: 20_000 }).toBe(0);
    expect(await mailTo(email, /sign-in link/)).toHaveLength(3);
    expect(await mailTo(nobody)).toHaveLength(0);
  });
});
