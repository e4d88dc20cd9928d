export * from './s3/index';
export * from './smtp-capture';
export * from './test-tsa';
export * from './openssl-ca';
export * from './free-port';
export * from './rfc3161-token';
