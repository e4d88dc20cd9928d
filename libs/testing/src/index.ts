export * from './infra';
export * from './fixtures';
