import { runService } from '@esign/telemetry';
import { loadGatewayConfig } from './config';
import { startGateway } from './start';

await runService({ name: 'gateway', loadConfig: loadGatewayConfig, start: startGateway });
