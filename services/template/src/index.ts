export { startTemplateService, type TemplateService } from './start';
export { loadTemplateServiceConfig, ZTemplateServiceEnv, type TTemplateServiceConfig } from './config';
export { TEMPLATES } from './templates';
