// First: the public schemas, in the order of the OpenAPI document.
import './schemas';
import type { AnyOperation } from '../api/operation';
import { getSessionOperation, signInOperation, signOutOperation, signUpOperation } from './account';
import { redeemSignInLinkOperation, requestSignInLinkOperation } from './sign-in-link';
import { downloadDocumentOperation, getDocumentOperation, listDocumentsOperation } from './documents';
import { sandboxSignOperation } from './sandbox';
import { checkIssuedDocumentOperation, verifyDocumentOperation } from './verify';
import { signDocumentOperation, signReferenceOperation } from './sign';
import {
  cancelSendOperation,
  resendSendOperation,
  sendForSigningOperation,
  signingStatusOperation,
} from './send';
import {
  declineThroughLinkOperation,
  getSigningDocumentOperation,
  getSigningRequestOperation,
  openSigningPageOperation,
  recordSigningViewOperation,
  signThroughLinkOperation,
} from './signing-page';
import {
  cancelEnvelopeOperation,
  createEnvelopeOperation,
  getEnvelopeDocumentOperation,
  getEnvelopeOperation,
  listEnvelopesOperation,
  replaceEnvelopeRecipientOperation,
  resendEnvelopeRecipientOperation,
} from './envelopes';
import {
  approveEnvelopeThroughLinkOperation,
  declineEnvelopeThroughLinkOperation,
  getEnvelopeLinkDocumentOperation,
  getEnvelopeRecipientOperation,
  openEnvelopePageOperation,
  recordEnvelopeViewOperation,
  signEnvelopeThroughLinkOperation,
} from './envelope-page';
import {
  createSigningUrlOperation,
  getEmbedOriginsOperation,
  setEmbedOriginsOperation,
} from './envelope-embed';
import { requestEnvelopeCodeOperation, verifyEnvelopeCodeOperation } from './envelope-code-page';
import { generateTemplateOperation, listTemplatesOperation } from './templates';
import { listSentRequestsOperation } from './dashboard';
import { createApiKeyOperation, listApiKeysOperation, revokeApiKeyOperation } from './keys';
import {
  createWebhookOperation,
  deleteWebhookOperation,
  getWebhookOperation,
  listWebhookDeliveriesOperation,
  listWebhooksOperation,
  replayWebhookEventOperation,
  rotateWebhookSecretOperation,
  sendTestWebhookOperation,
  updateWebhookOperation,
} from './webhooks';

/**
 * Every public HTTP operation, in the order the documents list them; an operation of the account is
 * listed twice, as offered to API keys (`.apiKey`) and to the dashboard session (`.session`). The router, the OpenAPI
 * document, the docs page, the Postman collection and the SDK's types all come from this list.
 */
export const OPERATIONS: readonly AnyOperation[] = [
  signDocumentOperation.apiKey,
  signReferenceOperation,
  listTemplatesOperation,
  generateTemplateOperation,
  listDocumentsOperation.apiKey,
  getDocumentOperation.apiKey,
  downloadDocumentOperation.apiKey,
  sandboxSignOperation,
  createWebhookOperation.apiKey,
  listWebhooksOperation.apiKey,
  getWebhookOperation.apiKey,
  updateWebhookOperation.apiKey,
  rotateWebhookSecretOperation.apiKey,
  listWebhookDeliveriesOperation.apiKey,
  sendTestWebhookOperation.apiKey,
  replayWebhookEventOperation.apiKey,
  deleteWebhookOperation.apiKey,
  verifyDocumentOperation,
  checkIssuedDocumentOperation,
  signUpOperation,
  signInOperation,
  requestSignInLinkOperation,
  redeemSignInLinkOperation,
  signOutOperation,
  getSessionOperation,
  listApiKeysOperation,
  createApiKeyOperation,
  revokeApiKeyOperation,
  sendForSigningOperation,
  signingStatusOperation,
  resendSendOperation,
  cancelSendOperation,
  openSigningPageOperation,
  getSigningRequestOperation,
  getSigningDocumentOperation,
  recordSigningViewOperation,
  signThroughLinkOperation,
  declineThroughLinkOperation,
  createEnvelopeOperation.apiKey,
  listEnvelopesOperation.apiKey,
  getEnvelopeOperation.apiKey,
  resendEnvelopeRecipientOperation.apiKey,
  replaceEnvelopeRecipientOperation.apiKey,
  getEnvelopeDocumentOperation.apiKey,
  createSigningUrlOperation,
  cancelEnvelopeOperation.apiKey,
  getEmbedOriginsOperation.apiKey,
  setEmbedOriginsOperation.apiKey,
  openEnvelopePageOperation,
  getEnvelopeRecipientOperation,
  getEnvelopeLinkDocumentOperation,
  recordEnvelopeViewOperation,
  signEnvelopeThroughLinkOperation,
  approveEnvelopeThroughLinkOperation,
  declineEnvelopeThroughLinkOperation,
  verifyEnvelopeCodeOperation,
  requestEnvelopeCodeOperation,
  listDocumentsOperation.session,
  getDocumentOperation.session,
  downloadDocumentOperation.session,
  signDocumentOperation.session,
  listSentRequestsOperation,
  listWebhooksOperation.session,
  createWebhookOperation.session,
  getWebhookOperation.session,
  updateWebhookOperation.session,
  rotateWebhookSecretOperation.session,
  listWebhookDeliveriesOperation.session,
  sendTestWebhookOperation.session,
  replayWebhookEventOperation.session,
  deleteWebhookOperation.session,
  getEmbedOriginsOperation.session,
  setEmbedOriginsOperation.session,
  listEnvelopesOperation.session,
  createEnvelopeOperation.session,
  getEnvelopeOperation.session,
  cancelEnvelopeOperation.session,
  resendEnvelopeRecipientOperation.session,
  replaceEnvelopeRecipientOperation.session,
  getEnvelopeDocumentOperation.session,
];
