import './instrument';
import { createLogger, onShutdown } from '@esign/telemetry';
import { loadGatewayConfig } from './config';
import { startGateway } from './start';

const config = loadGatewayConfig();
const gateway = await startGateway(config);
onShutdown(createLogger({ service: 'gateway', level: config.LOG_LEVEL }), () => gateway.stop());
