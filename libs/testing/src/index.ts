export * from './infra';
export * from './fixtures';
export * from './webhook-receiver';
export * from './test-pki';
export * from './consumer-lag';
export * from './prometheus';
// The servers `pnpm dev` runs are tests' servers too: one import for a test that needs S3, SMTP or a TSA.
export * from '@esign/dev-servers';
export * from './metrics';
