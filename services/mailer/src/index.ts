export { startMailerService, type MailerService } from './start';
export { loadMailerConfig, ZMailerEnv, type TMailerConfig } from './config';
