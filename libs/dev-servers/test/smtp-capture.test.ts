import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  readMailDirectory,
  startSmtpCapture,
  type CapturedMail,
  type SmtpCapture,
} from '../src/smtp-capture';

/** The reply to each command: a minimal SMTP client over a socket, as a relay would talk. */
const converse = async (port: number, commands: readonly string[]): Promise<string[]> => {
  const socket: Socket = connect(port, '127.0.0.1');
  socket.setEncoding('utf8');
  let buffered = '';
  const waiting: ((reply: string) => void)[] = [];
  socket.on('data', (chunk: string) => {
    buffered += chunk;
    // A reply ends with a line whose code is followed by a space ("250 OK"), not a dash ("250-…").
    for (let end = /^\d{3} .*\r\n/m.exec(buffered); end; end = /^\d{3} .*\r\n/m.exec(buffered)) {
      const upTo = end.index + end[0].length;
      waiting.shift()?.(buffered.slice(0, upTo));
      buffered = buffered.slice(upTo);
    }
  });
  const next = () => new Promise<string>((resolve) => waiting.push(resolve));
  const replies = [await next()];
  for (const command of commands) {
    const reply = next();
    socket.write(`${command}\r\n`);
    replies.push(await reply);
  }
  socket.end();
  return replies;
};

const message = (subject: string) =>
  [
    'From: esign <noreply@esign.test>',
    'To: Ada <ada@example.com>',
    `Subject: ${subject}`,
    'Content-Type: text/plain; charset=utf-8',
    '',
    'Open http://localhost:8080/s/abc to sign.',
    '.',
  ].join('\r\n');

const send = (port: number, subject: string) =>
  converse(port, [
    'EHLO relay.test',
    'MAIL FROM:<noreply@esign.test>',
    'RCPT TO:<ada@example.com>',
    'RCPT TO:<bcc@example.com>',
    'DATA',
    message(subject),
    'QUIT',
  ]);

let directory: string;
let sut: SmtpCapture;
const seen: CapturedMail[] = [];

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'smtp-capture-test-'));
  sut = await startSmtpCapture({ directory, onMessage: (mail) => seen.push(mail) });
});

afterAll(async () => {
  await sut.stop();
  await rm(directory, { recursive: true, force: true });
});

describe('startSmtpCapture', () => {
  it('keeps a message with its envelope, parsed, and writes it as an .eml file', async () => {
    const replies = await send(sut.port, 'Please sign');
    expect(replies.at(-2)).toMatch(/^250 /);
    const [mail] = await sut.waitForMessages(1);
    expect(mail?.parsed.subject).toBe('Please sign');
    expect(mail?.parsed.text).toContain('http://localhost:8080/s/abc');
    expect(mail?.envelope).toEqual({
      from: 'noreply@esign.test',
      to: ['ada@example.com', 'bcc@example.com'],
    });
    expect(mail?.file).toMatch(/\.eml$/);
    expect(await readFile(mail?.file ?? '')).toEqual(mail?.raw);
    expect(seen).toEqual([mail]);
    const written = await readMailDirectory(directory);
    expect(written.map((m) => m.parsed.subject)).toEqual(['Please sign']);
  });

  it('answers 451 to the next messages after failNext, then accepts again', async () => {
    sut.failNext(1);
    const refused = await send(sut.port, 'Refused');
    expect(refused.at(-2)).toMatch(/^451 /);
    expect(sut.refused).toBe(1);
    await send(sut.port, 'Accepted');
    const messages = await sut.waitForMessages(2);
    expect(messages.map((m) => m.parsed.subject)).toEqual(['Please sign', 'Accepted']);
  });

  it('refuses only the messages failNext picks, accepting the others meanwhile', async () => {
    sut.failNext(1, (mail) => mail.subject === 'Your code');
    await send(sut.port, 'Your link');
    const refused = await send(sut.port, 'Your code');
    const retried = await send(sut.port, 'Your code');
    expect(refused.at(-2)).toMatch(/^451 /);
    expect(retried.at(-2)).toMatch(/^250 /);
    expect(sut.refused).toBe(2);
    const messages = await sut.waitForMessages(4);
    expect(messages.map((m) => m.parsed.subject)).toEqual([
      'Please sign',
      'Accepted',
      'Your link',
      'Your code',
    ]);
  });
});
