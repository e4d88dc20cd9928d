import type { AnyOperation } from '../api/operation';
import {
  getSessionOperation,
  redeemSignInLinkOperation,
  requestSignInLinkOperation,
  signInOperation,
  signOutOperation,
  signUpOperation,
} from './account';
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
import { generateTemplateOperation, listTemplatesOperation } from './templates';
import {
  dashboardSignOperation,
  downloadDashboardDocumentOperation,
  getDashboardDocumentOperation,
  listDashboardDocumentsOperation,
  listSentRequestsOperation,
} from './dashboard';
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
  createDashboardWebhookOperation,
  deleteDashboardWebhookOperation,
  getDashboardWebhookOperation,
  listDashboardWebhookDeliveriesOperation,
  listDashboardWebhooksOperation,
  replayDashboardWebhookEventOperation,
  rotateDashboardWebhookSecretOperation,
  sendTestDashboardWebhookOperation,
  updateDashboardWebhookOperation,
} from './webhooks';

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
  downloadDocumentOperation,
  sandboxSignOperation,
  createWebhookOperation,
  listWebhooksOperation,
  getWebhookOperation,
  updateWebhookOperation,
  rotateWebhookSecretOperation,
  listWebhookDeliveriesOperation,
  sendTestWebhookOperation,
  replayWebhookEventOperation,
  deleteWebhookOperation,
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
  listDashboardDocumentsOperation,
  getDashboardDocumentOperation,
  downloadDashboardDocumentOperation,
  dashboardSignOperation,
  listSentRequestsOperation,
  listDashboardWebhooksOperation,
  createDashboardWebhookOperation,
  getDashboardWebhookOperation,
  updateDashboardWebhookOperation,
  rotateDashboardWebhookSecretOperation,
  listDashboardWebhookDeliveriesOperation,
  sendTestDashboardWebhookOperation,
  replayDashboardWebhookEventOperation,
  deleteDashboardWebhookOperation,
];
