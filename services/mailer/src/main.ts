import { runService } from '@esign/telemetry';
import { loadMailerConfig } from './config';
import { startMailerService } from './start';

await runService({ name: 'mailer', loadConfig: loadMailerConfig, start: startMailerService });
