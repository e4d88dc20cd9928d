import type { TIssuedDocument } from '@esign/contracts';
import { unexpected } from './fake-world';
import type { VerifyingPorts } from './verifying-ports';

/** Verifying ports for tests: each answer as the test says, and a record of what was asked. */
export interface FakeVerifyingWorld {
  readonly ports: VerifyingPorts;
  /** Upload keys handed to the verification worker. */
  readonly verified: string[];
  /** The hashes of each look-up by hash. */
  readonly lookups: (readonly string[])[];
}

export const fakeVerifyingPorts = (
  answers: Partial<Pick<VerifyingPorts, 'verifyPdf' | 'findIssuedByAuditId'>> & {
    /** Documents we issued, found by their hash (default: none). */
    readonly issued?: readonly TIssuedDocument[];
  },
): FakeVerifyingWorld => {
  const verified: string[] = [];
  const lookups: (readonly string[])[] = [];
  const ports: VerifyingPorts = {
    verifyPdf: (uploadKey) => {
      verified.push(uploadKey);
      return (answers.verifyPdf ?? unexpected('verifyPdf'))(uploadKey);
    },
    findIssuedByHashes: (fileHashes) => {
      lookups.push(fileHashes);
      return Promise.resolve((answers.issued ?? []).filter((d) => fileHashes.includes(d.fileHash)));
    },
    findIssuedByAuditId: answers.findIssuedByAuditId ?? unexpected('findIssuedByAuditId'),
  };
  return { ports, verified, lookups };
};
