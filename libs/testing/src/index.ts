export * from './infra';
export * from './fixtures';
export * from './s3-server';
