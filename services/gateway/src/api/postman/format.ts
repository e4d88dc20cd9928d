import { createHash } from 'node:crypto';

// The Postman Collection v2.1 and environment formats, as far as the exports use them.

export const POSTMAN_COLLECTION_SCHEMA =
  'https://schema.getpostman.com/json/collection/v2.1.0/collection.json';

/** The sample file every file field of a multipart example sends, relative to newman's working directory. */
export const POSTMAN_SAMPLE_FILE = 'sample.pdf';

/** Where a local stack listens (`pnpm dev`). */
export const DEFAULT_BASE_URL = 'http://localhost:8080';

export interface PostmanVariable {
  key: string;
  value: string;
  type?: 'string' | 'default' | 'secret';
  description?: string;
  disabled?: boolean;
}
export interface PostmanAuth {
  type: 'bearer' | 'noauth';
  bearer?: { key: 'token'; value: string; type: 'string' }[];
}
export interface PostmanEvent {
  listen: 'test' | 'prerequest';
  script: { type: 'text/javascript'; exec: string[] };
}
export interface PostmanFormParam {
  key: string;
  type: 'text' | 'file';
  value?: string;
  src?: string;
  contentType?: string;
  description?: string;
  disabled?: boolean;
}
export interface PostmanRequest {
  method: string;
  header: PostmanVariable[];
  url: {
    raw: string;
    host: string[];
    path: string[];
    query?: PostmanVariable[];
    variable?: PostmanVariable[];
  };
  body?:
    | { mode: 'raw'; raw: string; options: { raw: { language: 'json' } } }
    | { mode: 'formdata'; formdata: PostmanFormParam[] };
  auth?: PostmanAuth;
  description?: string;
}
export interface PostmanRequestItem {
  id: string;
  name: string;
  request: PostmanRequest;
  event: PostmanEvent[];
}
export interface PostmanFolder {
  name: string;
  description?: string;
  auth?: PostmanAuth;
  item: PostmanRequestItem[];
}
export interface PostmanCollection {
  info: { _postman_id: string; name: string; version: string; description?: string; schema: string };
  auth?: PostmanAuth;
  variable: PostmanVariable[];
  item: PostmanFolder[];
}

export interface PostmanEnvironment {
  id: string;
  name: string;
  values: { key: string; value: string; type: 'default' | 'secret'; enabled: boolean }[];
  _postman_variable_scope: 'environment';
}

/** A UUID-shaped id derived from a name, so that the same document gives the same file. */
export const stableId = (name: string): string => {
  const hex = createHash('sha256').update(`esign-postman:${name}`).digest('hex');
  const variant = ((parseInt(hex.slice(16, 17), 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
};

export const bearer = (variable: string): PostmanAuth => ({
  type: 'bearer',
  bearer: [{ key: 'token', value: `{{${variable}}}`, type: 'string' }],
});
