import { inject } from 'vitest';
import { createBlobStore, type BlobStore } from '@esign/blob';
import { connectBus, type Bus } from '@esign/bus';
import { KeyCreate, KeyRevoke, type TPlan } from '@esign/contracts';
import { createLogger } from '@esign/telemetry';
import { unackedMessages } from '@esign/testing';

const stack = inject('stack');

/** Base URL of the gateway of the shared e2e stack. */
export const baseUrl = stack.gatewayUrl;

/** The stack's object storage, to check what it keeps (signed PDFs, uploads). */
export const storage = (): BlobStore => createBlobStore({ ...stack.s3, bucket: 'esign' });

let bus: Promise<Bus> | undefined;
/** A bus client on the stack's prefix (to create and revoke keys as an operator would). */
export const operatorBus = (): Promise<Bus> =>
  (bus ??= connectBus({
    url: stack.natsUrl,
    name: 'e2e-operator',
    prefix: stack.busPrefix,
    logger: createLogger({ service: 'e2e', level: 'error' }),
    timeoutMs: 10_000,
  }));

/**
 * Messages the stack's durable consumers (`mailer-signing-requested`, `webhook-document-signed`, …)
 * have not acked yet: 0 once they have handled every event published so far. Wait for it before
 * asserting that something did *not* happen.
 */
export const unacked = async (...durables: string[]): Promise<number> =>
  unackedMessages(await operatorBus(), ...durables);

export interface TestAccount {
  apiKey: string;
  keyId: string;
  accountId: string;
  email: string;
}

let n = 0;
/** A new account with one key on the given plan (Business unless said otherwise). */
export const createAccount = async (plan: TPlan = 'business'): Promise<TestAccount> => {
  const email = `user${Date.now()}${n++}@example.com`;
  const created = await (await operatorBus()).request(KeyCreate, { email, plan });
  return { apiKey: created.apiKey, keyId: created.keyId, accountId: created.accountId, email };
};

export const revokeKey = async (keyId: string): Promise<void> => {
  await (await operatorBus()).request(KeyRevoke, { keyId });
};

export const auth = (apiKey: string): Record<string, string> => ({ Authorization: `Bearer ${apiKey}` });

/** A PNG data URI for the signatureData field. */
export const dataUri = (png: Buffer, type = 'image/png'): string =>
  `data:${type};base64,${png.toString('base64')}`;

export interface SignFormInput {
  file?: { bytes: Buffer; name: string; type?: string };
  fields?: Record<string, string | number | object>;
}

/** multipart/form-data for POST /api/v1/sign. */
export const signForm = (input: SignFormInput): FormData => {
  const form = new FormData();
  for (const [k, v] of Object.entries(input.fields ?? {})) {
    form.append(k, typeof v === 'string' ? v : JSON.stringify(v));
  }
  if (input.file) {
    form.append(
      'file',
      new Blob([new Uint8Array(input.file.bytes)], { type: input.file.type ?? 'application/octet-stream' }),
      input.file.name,
    );
  }
  return form;
};

/** POST /api/v1/sign with a key. */
export const sign = (apiKey: string, input: SignFormInput, headers: Record<string, string> = {}) =>
  fetch(`${baseUrl}/api/v1/sign`, {
    method: 'POST',
    headers: { ...auth(apiKey), ...headers },
    body: signForm(input),
  });

/** The `{ error }` of a failed response, asserting it is JSON. */
export const errorOf = async (res: Response): Promise<string> => {
  const body = (await res.json()) as { error?: unknown };
  if (typeof body.error !== 'string')
    throw new Error(`expected { error: string }, got ${JSON.stringify(body)}`);
  return body.error;
};

/** The dashboard session cookie's name on the e2e stack (plain http: no `__Host-` prefix). */
export const SESSION_COOKIE = 'esign_session';

export interface SignedInUser {
  email: string;
  password: string;
  /** `esign_session=…`, ready for a Cookie header. */
  cookie: string;
  csrfToken: string;
  /** The whole Set-Cookie of the sign-in answer. */
  setCookie: string;
}

/** JSON request init, with the headers given. */
export const jsonInit = (
  method: string,
  body: unknown,
  headers: Record<string, string> = {},
): RequestInit => ({
  method,
  headers: { 'Content-Type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

let u = 0;
/** A new account signed up and signed in through HTTP (Free plan), with its session cookie. */
export const signUpAndIn = async (): Promise<SignedInUser> => {
  const email = `dash${Date.now()}${u++}@example.com`;
  const password = `pw-${Date.now()}-${u}-long`;
  const up = await fetch(`${baseUrl}/api/auth/sign-up`, jsonInit('POST', { email, password }));
  if (up.status !== 202) throw new Error(`sign-up answered ${up.status}: ${await up.text()}`);
  const res = await fetch(`${baseUrl}/api/auth/sign-in`, jsonInit('POST', { email, password }));
  if (res.status !== 200) throw new Error(`sign-in answered ${res.status}: ${await res.text()}`);
  const body = (await res.json()) as { csrfToken: string };
  const setCookie = res.headers.get('set-cookie') ?? '';
  const cookie = setCookie.split(';')[0] ?? '';
  return { email, password, cookie, csrfToken: body.csrfToken, setCookie };
};

/** Headers of a state-changing dashboard request: the cookie, this site's Origin and the CSRF token. */
export const dashboardHeaders = (user: SignedInUser): Record<string, string> => ({
  Cookie: user.cookie,
  Origin: baseUrl,
  'X-CSRF-Token': user.csrfToken,
});
