import type { AnyOperation } from '../api/operation';
import { getSessionOperation, signInOperation, signOutOperation, signUpOperation } from './account';
import { getDocumentOperation, listDocumentsOperation } from './documents';
import { sandboxSignOperation } from './sandbox';
import { checkIssuedDocumentOperation, verifyDocumentOperation } from './verify';
import { signDocumentOperation, signReferenceOperation } from './sign';
import { generateTemplateOperation, listTemplatesOperation } from './templates';
import { createApiKeyOperation, listApiKeysOperation, revokeApiKeyOperation } from './keys';

/**
 * Every public HTTP operation, in the order the documents list them. The router, the OpenAPI
 * document, the docs page, the Postman collection and the SDK's types all come from this list.
 */
export const OPERATIONS: readonly AnyOperation[] = [
  signDocumentOperation,
  signReferenceOperation,
  listTemplatesOperation,
  generateTemplateOperation,
  listDocumentsOperation,
  getDocumentOperation,
  sandboxSignOperation,
  verifyDocumentOperation,
  checkIssuedDocumentOperation,
  signUpOperation,
  signInOperation,
  signOutOperation,
  getSessionOperation,
  listApiKeysOperation,
  createApiKeyOperation,
  revokeApiKeyOperation,
];
