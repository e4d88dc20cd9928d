import { runService } from '@esign/telemetry';
import { loadWebhookConfig } from './config';
import { startWebhookService } from './start';

await runService({ name: 'webhook', loadConfig: loadWebhookConfig, start: startWebhookService });
