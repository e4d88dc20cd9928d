/**
 * A hash router: `#/documents?search=nda&page=2` → route `documents`, no parameter, that query.
 * `#/documents/ESG-…` → route `documents`, parameter `ESG-…`. The server serves one page at
 * /dashboard whatever the view, and the back button works without any server routes.
 */
export interface Route {
  readonly name: string;
  readonly param: string | undefined;
  readonly query: URLSearchParams;
}

export const currentRoute = (hash: string = location.hash): Route => {
  const [path = '', search = ''] = hash.replace(/^#\/?/, '').split('?', 2);
  const [name = '', param] = path.split('/').map((part) => decodeURIComponent(part));
  return { name, param: param || undefined, query: new URLSearchParams(search) };
};

/** The hash of a view, with a query (empty values left out). */
export const hashOf = (name: string, query: Record<string, string | number | undefined> = {}): string => {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== '') params.set(key, String(value));
  }
  const search = params.toString();
  return `#/${name}${search ? `?${search}` : ''}`;
};

export const navigate = (hash: string): void => {
  if (location.hash === hash) window.dispatchEvent(new HashChangeEvent('hashchange'));
  else location.hash = hash;
};
