export { startKeyService, type KeyService } from './start';
export { loadKeyServiceConfig, ZKeyServiceEnv, type TKeyServiceConfig } from './config';
export { hashApiKey } from './domain/hash-api-key';
