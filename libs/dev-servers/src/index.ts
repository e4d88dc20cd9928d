export * from './s3-server';
export * from './start-test-s3';
export * from './smtp-capture';
export * from './test-tsa';
export * from './openssl-ca';
