import { ServiceError, ZAuditId, type TIssuedDocument } from '@esign/contracts';
import type { VerifyingPorts } from './verifying-ports';

/** A document we issued, and whether a copy's hash (when given) is exactly its file's. */
export type IssuedDocumentCheck = TIssuedDocument & {
  readonly exists: true;
  /** `null` without a hash to compare. */
  readonly hashMatches: boolean | null;
};

/**
 * Whether this service issued a document with this audit ID (`not_found` otherwise, also for what
 * is not an audit ID at all, without asking anyone), and with `hash` (`sha256:<hex>`, any case)
 * whether a copy someone holds is exactly the file we issued.
 */
export const checkIssuedDocument = async (
  ports: Pick<VerifyingPorts, 'findIssuedByAuditId'>,
  input: { readonly auditId: string; readonly hash?: string },
): Promise<IssuedDocumentCheck> => {
  const { auditId, hash } = input;
  if (!ZAuditId.safeParse(auditId).success) {
    throw new ServiceError('not_found', `No document with audit ID ${auditId.slice(0, 40)}`);
  }
  const document = await ports.findIssuedByAuditId(auditId);
  if (!document) throw new ServiceError('not_found', `No document with audit ID ${auditId}`);
  return {
    ...document,
    exists: true,
    hashMatches: hash === undefined ? null : hash.toLowerCase() === document.fileHash,
  };
};
