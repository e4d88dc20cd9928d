export { startWebhookService, type WebhookService } from './start';
export { loadWebhookConfig, ZWebhookEnv, type TWebhookConfig } from './config';
