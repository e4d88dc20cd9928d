import { PLAN_LIMITS, ServiceError, type TPlan, type TPosition, type TSignature } from '@esign/contracts';
import type { FileDeclaration } from '../api/operation';
import type { GatewayDeps } from '../deps';
import type { ReceivedFile } from '../http/receive-upload';
import { parseImageDataUri } from '../http/sniff';
import { fingerprintOf } from '../operations/idempotency';
import { signDocument, type SignedDocument } from '../operations/sign-document';
import { planLimitedFile, ZSignFields, type TSignFields } from './sign-fields';

// The multipart sign form, as both ways of signing an upload take it: POST /api/v1/sign with an API
// key (answers the PDF) and the dashboard's POST /api/sign (answers where the PDF is).

const toSignature = (fields: TSignFields): TSignature => {
  if (fields.mode === 'type') {
    return { mode: 'type', typedName: fields.typedName ?? '', color: fields.sigColor.toLowerCase() };
  }
  const image = parseImageDataUri(fields.signatureData ?? '');
  if (!image) {
    throw new ServiceError(
      'invalid_argument',
      'signatureData must be a base64 data URI of a PNG or JPEG image (data:image/png;base64,...)',
      'signatureData',
    );
  }
  return { mode: fields.mode, imageBase64: image.base64 };
};

const toPositions = (fields: TSignFields): TPosition[] =>
  fields.positions ?? [{ x: fields.x, y: fields.y, page: fields.page, width: fields.width }];

/** What a multipart sign request gives the sign workflow (POST /api/v1/sign and the dashboard's). */
interface SignFormInput {
  readonly file: ReceivedFile;
  readonly fields: TSignFields;
  readonly rawFields: Readonly<Record<string, string>>;
  readonly headers: { readonly 'Idempotency-Key'?: string | undefined };
  readonly client: { readonly ip: string; readonly userAgent: string };
  readonly receivedAt: string;
}

/**
 * Runs the sign workflow for a multipart sign request of an account (its plan as the caller's key or
 * session says: a plan without a limit makes no reservation): the signature and positions from the
 * fields, the signer from the fields and the client, the Idempotency-Key with the request's
 * fingerprint. Answered within SIGN_TIMEOUT_MS of the upload being in (plus a short clean-up).
 */
export const signUploadedForm = (
  deps: Pick<GatewayDeps, 'signing' | 'config'>,
  account: { readonly accountId: string; readonly plan: TPlan },
  input: SignFormInput,
): Promise<SignedDocument> => {
  const { file, fields } = input;
  const idempotencyKey = input.headers['Idempotency-Key'];
  return signDocument(deps.signing, {
    deadline: Date.now() + deps.config.SIGN_TIMEOUT_MS,
    accountId: account.accountId,
    unlimitedPlan: PLAN_LIMITS[account.plan].documentsPerMonth === null,
    upload: file,
    signature: toSignature(fields),
    positions: toPositions(fields),
    usedPositions: fields.positions !== undefined,
    signer: {
      name: fields.signerName,
      email: fields.signerEmail,
      ipAddress: input.client.ip,
      userAgent: input.client.userAgent,
    },
    receivedAt: input.receivedAt,
    idempotency: idempotencyKey
      ? { key: idempotencyKey, requestHash: fingerprintOf(file, input.rawFields) }
      : undefined,
  });
};

/**
 * The multipart part of a sign request (POST /api/v1/sign and the dashboard's POST /api/sign): the
 * fields, and a file limited to the caller's plan while it streams.
 */
export const SIGN_MULTIPART: { readonly fields: typeof ZSignFields; readonly file: FileDeclaration } = {
  fields: ZSignFields,
  file: planLimitedFile({
    description: 'PDF, PNG or JPG',
    accept: ['pdf', 'png', 'jpeg'],
    maxBytes: (config) => config.SIGN_MAX_FILE_BYTES,
  }),
};

/** An example of the form's fields, for the documents. */
export const SIGN_EXAMPLE = {
  signerName: 'Ada Lovelace',
  signerEmail: 'ada@example.com',
  mode: 'type',
  typedName: 'Ada Lovelace',
  positions: [{ x: 60, y: 80, page: 0, width: 30 }],
};
