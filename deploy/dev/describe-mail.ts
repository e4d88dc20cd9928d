import type { CapturedMail } from '@esign/dev-servers';

/**
 * What `pnpm dev` prints for a caught email, as log lines (JSON, like the services'): who it is for,
 * its subject and file, and each signing link in it, so that a developer can open the signing page
 * without a mail client.
 */
export const describeCapturedMail = (mail: CapturedMail): string[] => {
  const time = new Date().toISOString();
  const lines = [
    JSON.stringify({
      time,
      level: 'info',
      msg: 'email caught',
      to: mail.envelope.to.join(', '),
      subject: mail.parsed.subject ?? '',
      file: mail.file,
    }),
  ];
  for (const [url] of (mail.parsed.text ?? '').matchAll(/https?:\/\/\S+?\/s\/[A-Za-z0-9_-]{43}/g)) {
    lines.push(JSON.stringify({ time, level: 'info', msg: 'signing link', url }));
  }
  return lines;
};
