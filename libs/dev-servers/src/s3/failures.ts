/** An S3 error: the status and `<Code>` the client sees, and extra elements of the `<Error>` body. */
export class S3Failure extends Error {
  override readonly name = 'S3Failure';

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: Readonly<Record<string, string>> = {},
  ) {
    super(message);
  }
}

export const noSuchBucket = (name: string) =>
  new S3Failure(404, 'NoSuchBucket', 'The specified bucket does not exist', { BucketName: name });

export const noSuchKey = (bucket: string, key: string) =>
  new S3Failure(404, 'NoSuchKey', 'The specified key does not exist.', { BucketName: bucket, Key: key });

/** Anything outside the subset served: refused, so that nothing is silently misread as a plain write. */
export const notImplemented = () =>
  new S3Failure(
    501,
    'NotImplemented',
    'A header or query you provided implies functionality that is not implemented',
  );

export const noSuchUpload = (id: string) =>
  new S3Failure(404, 'NoSuchUpload', 'The specified multipart upload does not exist.', { UploadId: id });

export const malformedXml = (message = 'The XML you provided was not well-formed') =>
  new S3Failure(400, 'MalformedXML', message);

export const incompleteBody = () =>
  new S3Failure(400, 'IncompleteBody', 'You did not provide the number of bytes specified');
