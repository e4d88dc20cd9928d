import { loadConfig, ZBaseEnv, ZBlobEnv, ZDbEnv, ZPort } from '@esign/config';
import { z } from 'zod';

/** `Name <address>` or a bare address, as nodemailer takes it: an object, never a header string. */
const ZMailbox = z.string().transform((value, ctx) => {
  const match = /^\s*(?:"?([^"<>\r\n]*?)"?\s*<([^<>\s]+)>|([^<>\s]+))\s*$/.exec(value);
  const address = match?.[2] ?? match?.[3] ?? '';
  if (!z.email().safeParse(address).success) {
    ctx.addIssue({ code: 'custom', message: 'must be an address or "Name <address>"' });
    return z.NEVER;
  }
  return { name: match?.[1]?.trim() ?? '', address };
});

/** Environment of the mailer. */
export const ZMailerEnv = ZBaseEnv.extend(ZDbEnv.shape)
  .extend(ZBlobEnv.shape)
  .extend({
    SMTP_HOST: z
      .string()
      .min(1)
      .default('127.0.0.1')
      .describe('The SMTP relay (Mailpit in compose, the in-process catcher in `pnpm dev`).'),
    SMTP_PORT: ZPort.default(587).describe('Port of the SMTP relay.'),
    SMTP_TLS: z
      .enum(['tls', 'starttls', 'none'])
      .default('starttls')
      .describe(
        '`tls`: TLS from the first byte (port 465); `starttls`: plain connection upgraded with STARTTLS, which must succeed; `none`: no TLS at all (a relay on the same host or a test catcher only).',
      ),
    SMTP_USER: z
      .string()
      .optional()
      .describe('User name for SMTP authentication (set with SMTP_PASSWORD; unset: no authentication).'),
    SMTP_PASSWORD: z.string().optional().describe('Password for SMTP authentication (set with SMTP_USER).'),
    MAIL_FROM: ZMailbox.default({ name: 'eSign', address: 'no-reply@esign.local' }).meta({
      description:
        'The From of every email, `Name <address>` or an address. Replies to a request go to the sender (Reply-To).',
      default: 'eSign <no-reply@esign.local>',
    }),
    PUBLIC_BASE_URL: z
      .url()
      .default('http://localhost:8080')
      .describe('The gateway as people reach it: signing links are `<PUBLIC_BASE_URL>/s/<token>`.'),
    MAIL_ATTACHMENT_MAX_BYTES: z.coerce
      .number()
      .int()
      .positive()
      .default(10 * 1024 * 1024)
      .describe('Signed PDFs up to this size are attached; larger ones are sent as a download link.'),
    MAIL_DOWNLOAD_LINK_TTL_HOURS: z.coerce
      .number()
      .int()
      .min(1)
      .max(168)
      .default(168)
      .describe(
        'How long a download link in a completion email works (S3 presigning allows at most 7 days).',
      ),
    S3_PUBLIC_ENDPOINT: z
      .url()
      .optional()
      .describe('Object storage as people reach it, for download links (default: S3_ENDPOINT).'),
    MAIL_CONCURRENCY: z.coerce
      .number()
      .int()
      .min(1)
      .max(64)
      .default(4)
      .describe('Events handled at once per event kind.'),
    MAIL_MAX_DELIVERIES: z.coerce
      .number()
      .int()
      .min(1)
      .max(100)
      .default(10)
      .describe('Deliveries of one event before it is parked (logged at error level).'),
    MAIL_RETRY_DELAYS_MS: z
      .string()
      .default('1000,5000,30000,120000,600000')
      .transform((value, ctx) => {
        const delays = value.split(',').map((part) => Number(part.trim()));
        if (delays.length === 0 || delays.some((d) => !Number.isInteger(d) || d < 0)) {
          ctx.addIssue({ code: 'custom', message: 'comma-separated whole milliseconds' });
          return z.NEVER;
        }
        return delays;
      })
      .describe(
        'Delays before each redelivery after a failure, comma-separated milliseconds (the last repeats).',
      ),
  })
  .superRefine((env, ctx) => {
    if ((env.SMTP_USER === undefined) !== (env.SMTP_PASSWORD === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: ['SMTP_PASSWORD'],
        message: 'set SMTP_USER and SMTP_PASSWORD together',
      });
    }
  });
export type TMailerConfig = z.infer<typeof ZMailerEnv>;

/** Parse the mailer's configuration once, failing fast with every problem named. */
export const loadMailerConfig = (env: NodeJS.ProcessEnv = process.env): TMailerConfig =>
  loadConfig(ZMailerEnv, env);
