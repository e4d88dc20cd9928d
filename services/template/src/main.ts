import { runService } from '@esign/telemetry';
import { loadTemplateServiceConfig } from './config';
import { startTemplateService } from './start';

await runService({ name: 'template', loadConfig: loadTemplateServiceConfig, start: startTemplateService });
