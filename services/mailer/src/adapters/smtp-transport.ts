import nodemailer from 'nodemailer';

/** A mailbox: always an object, so that no caller-supplied text is ever parsed as an address header. */
export interface TMailbox {
  readonly name: string;
  readonly address: string;
}

/** One email, ready to send. */
export interface TOutgoingMail {
  readonly to: TMailbox;
  readonly replyTo?: TMailbox;
  /** One line: CR and LF are removed before it gets here (./domain/text). */
  readonly subject: string;
  readonly text: string;
  readonly html: string;
  readonly attachments?: readonly { filename: string; content: Buffer; contentType: string }[];
}

/** Sends email. The SMTP adapter in production; tests use it against an in-process SMTP server. */
export interface MailTransport {
  send(mail: TOutgoingMail): Promise<{ messageId: string }>;
  close(): void;
}

export interface SmtpOptions {
  host: string;
  port: number;
  tls: 'tls' | 'starttls' | 'none';
  user?: string;
  password?: string;
  from: TMailbox;
}

/** nodemailer over SMTP, pooled. Its own logging stays off: it would print addresses and bodies. */
export const createSmtpTransport = (options: SmtpOptions): MailTransport => {
  const transporter = nodemailer.createTransport({
    pool: true,
    maxConnections: 4,
    host: options.host,
    port: options.port,
    secure: options.tls === 'tls',
    requireTLS: options.tls === 'starttls',
    ignoreTLS: options.tls === 'none',
    auth: options.user !== undefined ? { user: options.user, pass: options.password ?? '' } : undefined,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 60_000,
    logger: false,
    debug: false,
  });
  return {
    async send(mail) {
      const info = (await transporter.sendMail({
        from: { name: options.from.name, address: options.from.address },
        to: { name: mail.to.name, address: mail.to.address },
        replyTo: mail.replyTo ? { name: mail.replyTo.name, address: mail.replyTo.address } : undefined,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        attachments: mail.attachments?.map((a) => ({ ...a })),
        // The message text is ours: never let nodemailer read files or URLs named inside it.
        disableFileAccess: true,
        disableUrlAccess: true,
      })) as { messageId: string };
      return { messageId: info.messageId };
    },
    close: () => transporter.close(),
  };
};
