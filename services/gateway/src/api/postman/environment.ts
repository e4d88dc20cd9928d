import { DEFAULT_BASE_URL, stableId, type PostmanEnvironment } from './format';

export interface PostmanEnvironmentOptions {
  /** The deployment's public sandbox token. */
  readonly sandboxToken: string;
  /** Where clients reach the gateway (default http://localhost:8080). */
  readonly baseUrl?: string | undefined;
  readonly name?: string;
}

/**
 * The Postman environment: `baseUrl`, `sandboxToken` (public) and `apiKey`, empty and marked secret
 * (each user sets their own; a key is never exported).
 */
export const buildPostmanEnvironment = (options: PostmanEnvironmentOptions): PostmanEnvironment => {
  const name = options.name ?? 'esign';
  return {
    id: stableId(`environment:${name}`),
    name,
    values: [
      {
        key: 'baseUrl',
        value: (options.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, ''),
        type: 'default',
        enabled: true,
      },
      { key: 'sandboxToken', value: options.sandboxToken, type: 'default', enabled: true },
      { key: 'apiKey', value: '', type: 'secret', enabled: true },
    ],
    _postman_variable_scope: 'environment',
  };
};
