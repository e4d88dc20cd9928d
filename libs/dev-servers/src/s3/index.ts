export { startS3Server, type S3Server, type S3ServerOptions } from './server';
export { startTestS3, type TestS3 } from './start-test-s3';
