import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer, type SMTPServerAddress } from 'smtp-server';

/** One message the capture server received. */
export interface CapturedMail {
  /** The message exactly as it came over SMTP (headers and body). */
  readonly raw: Buffer;
  /** The same message parsed by mailparser (subject, text, html, attachments, addresses). */
  readonly parsed: ParsedMail;
  /** The SMTP envelope: who it was really sent to (RCPT TO), whatever the headers say. */
  readonly envelope: { readonly from: string | undefined; readonly to: readonly string[] };
  /** Where it was written, with `directory`. */
  readonly file: string | undefined;
}

/** An in-process SMTP server that keeps what it receives (tests) or writes it as .eml files (pnpm dev). */
export interface SmtpCapture {
  readonly host: string;
  readonly port: number;
  readonly messages: readonly CapturedMail[];
  /**
   * Answer the next `count` messages with a temporary failure (451), as a struggling relay would; with
   * `only`, just the next `count` messages it picks (by their parsed subject, say), accepting the others.
   */
  failNext(count: number, only?: (mail: ParsedMail) => boolean): void;
  /** Messages refused so far through `failNext`. */
  readonly refused: number;
  /** Resolves once at least `count` messages have arrived (all of them), or fails after `timeoutMs`. */
  waitForMessages(count: number, timeoutMs?: number): Promise<readonly CapturedMail[]>;
  stop(): Promise<void>;
}

const addressOf = (a: SMTPServerAddress | false): string | undefined => (a ? a.address : undefined);

/**
 * Start an SMTP server on a loopback port (a free one by default). No TLS (STARTTLS is not offered);
 * with `auth`, only those credentials are accepted (over plain text: loopback only). With
 * `directory`, every message is also written there as `<time>-<n>.eml`.
 */
export const startSmtpCapture = async (
  options: {
    port?: number;
    host?: string;
    directory?: string;
    auth?: { user: string; password: string };
    onMessage?: (mail: CapturedMail) => void;
  } = {},
): Promise<SmtpCapture> => {
  const host = options.host ?? '127.0.0.1';
  const messages: CapturedMail[] = [];
  const waiters: (() => void)[] = [];
  let failures = 0;
  let failOnly: ((mail: ParsedMail) => boolean) | undefined;
  let refused = 0;
  let count = 0;
  if (options.directory) await mkdir(options.directory, { recursive: true });

  const server = new SMTPServer({
    logger: false,
    disabledCommands: options.auth ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
    authOptional: !options.auth,
    allowInsecureAuth: true,
    size: 64 * 1024 * 1024,
    onAuth(auth, _session, callback) {
      const expected = options.auth;
      if (expected && auth.username === expected.user && auth.password === expected.password) {
        callback(null, { user: auth.username });
      } else {
        callback(new Error('Invalid username or password'));
      }
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('error', (err) => callback(err));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks);
        void (async () => {
          try {
            const parsed = await simpleParser(raw);
            if (failures > 0 && (failOnly === undefined || failOnly(parsed))) {
              failures -= 1;
              refused += 1;
              callback(Object.assign(new Error('Try again later'), { responseCode: 451 }));
              return;
            }
            count += 1;
            let file: string | undefined;
            if (options.directory) {
              const stamp = new Date().toISOString().replace(/[:.]/g, '-');
              file = join(options.directory, `${stamp}-${String(count).padStart(4, '0')}.eml`);
              // Written whole, then renamed: a reader in another process never sees half a message.
              await writeFile(`${file}.part`, raw);
              await rename(`${file}.part`, file);
            }
            const mail: CapturedMail = {
              raw,
              parsed,
              envelope: {
                from: addressOf(session.envelope.mailFrom),
                to: session.envelope.rcptTo.map((r) => r.address),
              },
              file,
            };
            messages.push(mail);
            options.onMessage?.(mail);
            for (const wake of waiters.splice(0)) wake();
            callback();
          } catch (err) {
            callback(err instanceof Error ? err : new Error(String(err)));
          }
        })();
      });
    },
  });
  server.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const port = (server.server.address() as AddressInfo).port;

  return {
    host,
    port,
    messages,
    get refused() {
      return refused;
    },
    failNext(n, only) {
      failures = n;
      failOnly = only;
    },
    async waitForMessages(n, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (messages.length < n) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`${messages.length} of ${n} messages arrived within ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
      return messages;
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};

/**
 * The messages a capture with `directory` wrote there so far, oldest first, parsed (for a test that
 * runs in another process than the capture, such as a vitest global setup's).
 */
export const readMailDirectory = async (
  directory: string,
  cache: Map<string, { raw: Buffer; parsed: ParsedMail }> = new Map(),
): Promise<{ file: string; raw: Buffer; parsed: ParsedMail }[]> => {
  const names = (await readdir(directory).catch(() => [] as string[]))
    .filter((name) => name.endsWith('.eml'))
    .sort();
  const out: { file: string; raw: Buffer; parsed: ParsedMail }[] = [];
  for (const name of names) {
    const file = join(directory, name);
    let entry = cache.get(file);
    if (!entry) {
      const raw = await readFile(file);
      entry = { raw, parsed: await simpleParser(raw) };
      cache.set(file, entry);
    }
    out.push({ file, ...entry });
  }
  return out;
};
