import { ZIsoTimestamp } from '@esign/contracts';
import { z } from 'zod';
import { named } from '../api/named';
import { defineOperation } from '../api/operation';
import { CODE_MESSAGES, requestEnvelopeCode, verifyEnvelopeCode } from '../operations/envelope-code';
import { findActingLink } from '../operations/envelope-step';
import { ENDED_RESPONSE, TAG, ZTokenHeaders, answeringEnded, tokenOf } from './envelope-page';

/**
 * The envelope page's one-time code calls, for a `requireEmailCode` recipient (the recipient view says
 * `codeRequired`): enter the code emailed to them, or ask for a new one. Until the code is verified the
 * document, the view, signing, approving and declining answer 403 (`EnvelopeCodeRequired`).
 */

const ZCodeRefused = named(
  'EnvelopeCodeRefused',
  'The code was not accepted: `wrong` (400, with the tries left), or `expired` / `locked` (423: ask for a new code).',
  z.object({
    error: z.string(),
    outcome: z.enum(['wrong', 'expired', 'locked']),
    attemptsLeft: z.number().int().positive().optional(),
  }),
);

export const verifyEnvelopeCodeOperation = defineOperation({
  id: 'verifyEnvelopeCode',
  method: 'post',
  path: '/envelope/api/verify-code',
  tag: TAG,
  summary: 'Enter the one-time code',
  description:
    'A recipient whose sender asked for an email code enters the 6-digit code emailed to them; once accepted the link shows the document and acts. A wrong code answers 400 with the tries left; after 5 wrong tries, or 10 minutes after it was sent, the code no longer works (423): ask for a new one.',
  auth: 'none',
  dashboard: true,
  originCheck: 'ifSent',
  request: {
    headers: ZTokenHeaders,
    json: z.object({
      code: z
        .string({ error: 'Enter the 6-digit code from the email.' })
        .trim()
        .regex(/^[0-9]{6}$/, 'Enter the 6-digit code from the email.'),
    }),
    example: { code: '042917' },
  },
  responses: {
    200: { description: 'Accepted', json: z.object({ verifiedAt: ZIsoTimestamp }) },
    400: { description: 'A wrong code (with the tries left)', json: ZCodeRefused },
    410: ENDED_RESPONSE,
    423: { description: 'The code expired or is locked: ask for a new one', json: ZCodeRefused },
  },
  errors: ['invalid_argument', 'not_found', 'conflict', 'unavailable', 'internal'],
  handle: ({ headers, body, client }, deps) =>
    answeringEnded(async () => {
      const tokenHash = tokenOf(headers).hash;
      const link = await findActingLink(deps.envelopes, tokenHash);
      const answer = await verifyEnvelopeCode(deps.envelopes, link, {
        tokenHash,
        code: body.code,
        ipAddress: client.ip,
        userAgent: client.userAgent,
      });
      const noStore = { 'Cache-Control': 'no-store' };
      switch (answer.outcome) {
        case 'verified':
          return { status: 200, json: { verifiedAt: answer.verifiedAt }, headers: noStore };
        case 'wrong':
          return {
            status: 400,
            json: {
              error: CODE_MESSAGES.wrong(answer.attemptsLeft),
              outcome: 'wrong',
              attemptsLeft: answer.attemptsLeft,
            },
            headers: noStore,
          };
        default:
          return {
            status: 423,
            json: { error: CODE_MESSAGES[answer.outcome], outcome: answer.outcome },
            headers: noStore,
          };
      }
    }),
});

export const requestEnvelopeCodeOperation = defineOperation({
  id: 'requestEnvelopeCode',
  method: 'post',
  path: '/envelope/api/request-code',
  tag: TAG,
  summary: 'Email a new one-time code',
  description:
    'Emails the recipient a new 6-digit code for this link (the earlier one stops working). At most 5 an hour per link (429).',
  auth: 'none',
  dashboard: true,
  originCheck: 'ifSent',
  request: { headers: ZTokenHeaders },
  responses: {
    202: {
      description: 'A new code is on its way',
      json: z.object({ requestsLeft: z.number().int().nonnegative() }),
    },
    410: ENDED_RESPONSE,
  },
  errors: ['not_found', 'conflict', 'rate_limited', 'unavailable', 'internal'],
  handle: ({ headers }, deps) =>
    answeringEnded(async () => {
      const tokenHash = tokenOf(headers).hash;
      const link = await findActingLink(deps.envelopes, tokenHash);
      const reply = await requestEnvelopeCode(deps.envelopes, link, tokenHash);
      return {
        status: 202,
        json: { requestsLeft: reply.requestsLeft },
        headers: { 'Cache-Control': 'no-store' },
      };
    }),
});
