import { z } from 'zod';
import { ZFileHash, ZIssuedDocument, ZSignatureReport } from '@esign/contracts';
import { named } from '../api/named';

export const ZPublicIssuedDocument = named(
  'IssuedDocument',
  'A document this service issued, as anyone may see it: no account, the signer masked.',
  ZIssuedDocument,
);

export const ZVerificationReport = named(
  'VerificationReport',
  'What a public verification found in a PDF: every signature checked, and whether the file is one this service issued.',
  z.object({
    verdict: z.enum(['valid', 'modified', 'invalid', 'unsigned']).meta({
      description:
        'valid: every signature verifies and the last covers the whole file; modified: they verify, but the file was changed after the last one; invalid: a signature does not verify (or the file is damaged); unsigned: no signature',
    }),
    summary: z.string().meta({ description: 'The verdict in one plain sentence' }),
    file: z.object({
      name: z.string(),
      size: z.number().int(),
      sha256: ZFileHash,
    }),
    issued: z.object({
      exactMatch: z
        .boolean()
        .meta({ description: "The file's SHA-256 is the one we recorded for a document we issued" }),
      document: ZPublicIssuedDocument.nullable().meta({
        description:
          'The document we issued: the one this file is exactly, else the one a signature of it signed (the file was changed after we issued it); null when we issued neither',
      }),
    }),
    signatures: z.array(
      ZSignatureReport.extend({
        issuedAuditId: z.string().nullable().meta({
          description:
            'Audit ID of the first document we issued that holds this signature: a revision of this file (the signed one, or it with the DSS we added after it) is exactly that document',
        }),
      }),
    ),
    problems: z.array(z.string()),
  }),
);

export const ZIssuedDocumentCheck = named(
  'IssuedDocumentCheck',
  'Whether an audit ID is one we issued, and (with ?hash=) whether a copy is exactly that document.',
  ZIssuedDocument.extend({
    exists: z.literal(true),
    hashMatches: z
      .boolean()
      .nullable()
      .meta({ description: 'With ?hash=: the hash is the one we issued; null without it' }),
  }),
);
