import type { Request, Response, Router } from 'express';
import express from 'express';
import { PdfSign, ServiceError, signedFileNameFor } from '@esign/contracts';
import type { TPosition, TSignature } from '@esign/contracts';
import type { GatewayDeps } from '../deps';
import { principalOf } from '../http/auth';
import { clientIp, userAgent } from '../http/client-info';
import { receiveUpload } from '../http/receive-upload';
import { parseImageDataUri } from '../http/sniff';
import { parseOrThrow } from '../http/validation';
import { findEarlier, fingerprintOf, readIdempotencyKey, winnerOfRace } from './idempotency';
import { recordOrDiscard } from './record-or-discard';
import { ZSignFields, type TSignFields } from '../sign-fields';
import { renderSignReference, signReference } from '../pages/sign-reference';

/** Content-Disposition with an ASCII fallback and the UTF-8 name (RFC 6266 / 5987). */
export const attachment = (fileName: string): string => {
  const ascii = fileName.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
};

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

/**
 * The signer names a position as `positions.<i>.<field>`; say it the way the client wrote it:
 * `positions[i].field`, or just `page` when the client sent the single x/y/page/width fields.
 */
const inClientTerms = (err: unknown, usedPositions: boolean): unknown => {
  if (!(err instanceof ServiceError) || !err.field?.startsWith('positions.')) return err;
  const [, index, leaf] = err.field.split('.');
  const field = usedPositions ? `positions[${index}]${leaf ? `.${leaf}` : ''}` : (leaf ?? 'page');
  const message = err.message.replace(/^positions\.\d+(\.\w+)?: /, usedPositions ? `${field}: ` : '');
  return new ServiceError(err.code, message, field);
};

/** GET /api/v1/sign (no auth): the field reference, built once from the schema the handler uses. */
export const signReferenceRoute = (deps: GatewayDeps) => {
  const reference = signReference({ maxFileBytes: deps.config.SIGN_MAX_FILE_BYTES });
  const html = renderSignReference(reference);
  return (req: Request, res: Response) => {
    if (req.accepts(['html', 'json']) === 'html') res.type('html').send(html);
    else res.json(reference);
  };
};

/** The answer to a retry: the earlier document, named as the signer named it (`signedFileNameFor`). */
const replayOf = (earlier: {
  auditId: string;
  signedAt: string;
  fileHash: string;
  objectKey: string;
  size: number;
  fileName: string;
}) => ({
  ...earlier,
  downloadName: signedFileNameFor(earlier.fileName),
  replayed: true,
});

/** 200 with a signed PDF streamed from storage and the headers that describe it. */
const sendSigned = async (
  deps: GatewayDeps,
  res: Response,
  signed: {
    auditId: string;
    signedAt: string;
    fileHash: string;
    objectKey: string;
    size: number;
    /** Content-Disposition file name. */
    downloadName: string;
    replayed: boolean;
  },
): Promise<void> => {
  const body = await deps.blob.get(signed.objectKey);
  res.status(200).set({
    'Content-Type': 'application/pdf',
    'Content-Length': String(signed.size),
    'Content-Disposition': attachment(signed.downloadName),
    'X-Audit-Id': signed.auditId,
    'X-Signed-At': signed.signedAt,
    'X-File-Hash': signed.fileHash,
    'Cache-Control': 'no-store',
    ...(signed.replayed ? { 'Idempotent-Replayed': 'true' } : {}),
  });
  body.on('error', (err) => {
    deps.logger.error('streaming the signed PDF failed', { auditId: signed.auditId, err });
    res.destroy(err);
  });
  body.pipe(res);
};

export const signRouter = (deps: GatewayDeps): Router => {
  const router = express.Router();
  router.post('/sign', async (req, res) => {
    const principal = principalOf(res);
    const receivedAt = new Date().toISOString();
    const ipAddress = clientIp(req);
    const agent = userAgent(req);
    const t0 = performance.now();
    const idempotencyKey = readIdempotencyKey(req);
    const upload = await receiveUpload(req, {
      blob: deps.blob,
      maxFileBytes: deps.config.SIGN_MAX_FILE_BYTES,
      accept: ['pdf', 'png', 'jpeg'],
      logger: deps.logger,
      // A retry is recognised by its fingerprint, of which the file's SHA-256 is part.
      hash: idempotencyKey !== undefined,
    });
    try {
      if (!upload.file)
        throw new ServiceError('invalid_argument', 'file is required (PDF, PNG or JPG)', 'file');
      const fields = parseOrThrow(ZSignFields, upload.fields);
      const signature = toSignature(fields);
      const idempotency = idempotencyKey
        ? { key: idempotencyKey, requestHash: fingerprintOf(upload.file, upload.fields) }
        : undefined;
      if (idempotency) {
        const earlier = await findEarlier(deps, principal.accountId, idempotency);
        if (earlier) {
          // A retry of a request that was signed: the same document again, nothing signed twice.
          await deps.blob.remove(upload.file.key).catch(() => undefined);
          await sendSigned(deps, res, replayOf(earlier));
          return;
        }
      }
      const t1 = performance.now();
      const signed = await deps.bus
        .request(
          PdfSign,
          {
            accountId: principal.accountId,
            uploadKey: upload.file.key,
            fileName: upload.file.fileName,
            kind: upload.file.kind,
            signature,
            positions: toPositions(fields),
            signer: {
              name: fields.signerName,
              email: fields.signerEmail,
              ipAddress,
              userAgent: agent,
            },
            receivedAt,
          },
          { timeoutMs: deps.config.SIGN_TIMEOUT_MS },
        )
        .catch((err: unknown) => {
          throw inClientTerms(err, fields.positions !== undefined);
        });
      // 200 only once the record is durable: a GET right after finds it.
      const t2 = performance.now();
      try {
        await recordOrDiscard(deps, principal.accountId, signed.signedKey, {
          accountId: principal.accountId,
          auditId: signed.auditId,
          fileName: upload.file.fileName,
          signerName: fields.signerName,
          signerEmail: fields.signerEmail,
          ipAddress,
          userAgent: agent,
          signedAt: signed.signedAt,
          fileHash: signed.fileHash,
          originalHash: signed.originalHash,
          objectKey: signed.signedKey,
          size: signed.size,
          pageCount: signed.pageCount,
          events: signed.events,
          idempotency,
        });
      } catch (err) {
        // Another request under the same key was recorded meanwhile (ours was discarded): answer with
        // that document, as any later retry would be.
        await sendSigned(
          deps,
          res,
          replayOf(await winnerOfRace(deps, principal.accountId, idempotency, err)),
        );
        return;
      }
      const t3 = performance.now();
      await sendSigned(deps, res, {
        auditId: signed.auditId,
        signedAt: signed.signedAt,
        fileHash: signed.fileHash,
        objectKey: signed.signedKey,
        size: signed.size,
        downloadName: signed.signedFileName,
        replayed: false,
      });
      res.once('finish', () => {
        const ms = (from: number, to: number) => Math.round((to - from) * 10) / 10;
        const t4 = performance.now();
        // Where a sign request spent its time, for whoever reads the logs without traces.
        deps.logger.info('document signed', {
          auditId: signed.auditId,
          bytes: upload.file?.size,
          uploadMs: ms(t0, t1),
          signMs: ms(t1, t2),
          recordMs: ms(t2, t3),
          downloadMs: ms(t3, t4),
        });
      });
    } catch (err) {
      // The signer deletes the upload when it is done with it; if it never got it (or we stopped waiting),
      // it is ours to remove. Removing twice is harmless.
      if (upload.file) await deps.blob.remove(upload.file.key).catch(() => undefined);
      throw err;
    }
  });
  return router;
};
