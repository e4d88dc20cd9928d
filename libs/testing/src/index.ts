export * from './infra';
export * from './fixtures';
export * from './s3-server';
export * from './smtp-capture';
export * from './test-tsa';
export * from './webhook-receiver';
export * from './test-pki';
