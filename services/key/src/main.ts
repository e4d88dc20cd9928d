import { runService } from '@esign/telemetry';
import { loadKeyServiceConfig } from './config';
import { startKeyService } from './start';

await runService({ name: 'key', loadConfig: loadKeyServiceConfig, start: startKeyService });
