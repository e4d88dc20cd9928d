import type { ServerResponse } from 'node:http';
import { S3Failure } from './failures';
import { sendXml, type Query } from './http';
import type { Bucket, Store } from './store';
import { urlEncodeKey, xmlEscape, XMLNS } from './xml';

/** Where a page starts: after this key, or after every key under this common prefix. */
interface Cursor {
  value: string;
  isPrefix: boolean;
}

interface ListPage {
  keys: string[];
  prefixes: string[];
  truncated: boolean;
  /** The last key or common prefix returned, where the next page starts. */
  last: Cursor | undefined;
}

const lowerBound = (sorted: readonly string[], value: string) => {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((sorted[mid] as string) < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
};

/** One page of keys under `prefix`, starting after `after` (skipping the keys under it when a prefix). */
const listPage = (
  sorted: readonly string[],
  prefix: string,
  delimiter: string,
  max: number,
  after: Cursor | undefined,
): ListPage => {
  const page: ListPage = { keys: [], prefixes: [], truncated: false, last: undefined };
  let i = lowerBound(sorted, prefix);
  if (after) i = Math.max(i, lowerBound(sorted, after.value));
  let count = 0;
  while (i < sorted.length) {
    const key = sorted[i] as string;
    if (!key.startsWith(prefix)) break;
    if (after && (key === after.value || (after.isPrefix && key.startsWith(after.value)))) {
      i++;
      continue;
    }
    const cut = delimiter ? key.indexOf(delimiter, prefix.length) : -1;
    if (count === max) {
      page.truncated = true;
      break;
    }
    count++;
    if (cut >= 0) {
      const common = key.slice(0, cut + delimiter.length);
      page.prefixes.push(common);
      page.last = { value: common, isPrefix: true };
      while (i < sorted.length && (sorted[i] as string).startsWith(common)) i++;
    } else {
      page.keys.push(key);
      page.last = { value: key, isPrefix: false };
      i++;
    }
  }
  return page;
};

const encodeToken = (last: Cursor) =>
  `t${Buffer.from((last.isPrefix ? 'p' : 'k') + last.value).toString('base64url')}`;

const decodeToken = (token: string): Cursor => {
  const raw = token.startsWith('t') ? Buffer.from(token.slice(1), 'base64url').toString() : '';
  if (raw[0] !== 'p' && raw[0] !== 'k')
    throw new S3Failure(400, 'InvalidArgument', 'Invalid continuation token');
  return { value: raw.slice(1), isPrefix: raw[0] === 'p' };
};

const maxKeysOf = (query: Query) => {
  const raw = query.get('max-keys');
  if (raw === undefined) return 1000;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new S3Failure(400, 'InvalidArgument', 'Invalid max-keys');
  return Math.min(n, 1000);
};

/** ListObjectsV2 (`v2`) or V1: prefix, delimiter, pagination and `encoding-type=url`. */
export const listObjects = (store: Store, res: ServerResponse, bucket: Bucket, query: Query, v2: boolean) => {
  const prefix = query.get('prefix') ?? '';
  const delimiter = query.get('delimiter') ?? '';
  const max = maxKeysOf(query);
  const encoding = query.get('encoding-type');
  if (encoding !== undefined && encoding !== 'url') {
    throw new S3Failure(400, 'InvalidArgument', 'Invalid Encoding Method specified in Request');
  }
  const enc = encoding === 'url' ? (s: string) => xmlEscape(urlEncodeKey(s)) : xmlEscape;
  let after: Cursor | undefined;
  const token = query.get('continuation-token');
  const startAfter = query.get('start-after');
  const marker = query.get('marker');
  if (v2 && token !== undefined) after = decodeToken(token);
  else if (v2 && startAfter) after = { value: startAfter, isPrefix: false };
  else if (!v2 && marker) {
    after = { value: marker, isPrefix: delimiter !== '' && marker.endsWith(delimiter) };
  }
  const page = listPage(store.sortedKeys(bucket), prefix, delimiter, max, after);
  let xml =
    `<ListBucketResult xmlns="${XMLNS}"><Name>${xmlEscape(bucket.name)}</Name>` +
    `<Prefix>${enc(prefix)}</Prefix><MaxKeys>${max}</MaxKeys>` +
    (delimiter ? `<Delimiter>${enc(delimiter)}</Delimiter>` : '') +
    `<IsTruncated>${page.truncated}</IsTruncated>` +
    (encoding ? `<EncodingType>url</EncodingType>` : '');
  if (v2) {
    xml += `<KeyCount>${page.keys.length + page.prefixes.length}</KeyCount>`;
    if (token !== undefined) xml += `<ContinuationToken>${xmlEscape(token)}</ContinuationToken>`;
    if (startAfter) xml += `<StartAfter>${enc(startAfter)}</StartAfter>`;
    if (page.truncated && page.last) {
      xml += `<NextContinuationToken>${encodeToken(page.last)}</NextContinuationToken>`;
    }
  } else {
    xml += `<Marker>${enc(marker ?? '')}</Marker>`;
    if (page.truncated && page.last) xml += `<NextMarker>${enc(page.last.value)}</NextMarker>`;
  }
  for (const key of page.keys) {
    const entry = bucket.objects.get(key);
    if (!entry) continue;
    xml +=
      `<Contents><Key>${enc(key)}</Key><LastModified>${new Date(entry.mtime).toISOString()}</LastModified>` +
      `<ETag>&quot;${entry.etag}&quot;</ETag><Size>${entry.size}</Size><StorageClass>STANDARD</StorageClass></Contents>`;
  }
  for (const common of page.prefixes)
    xml += `<CommonPrefixes><Prefix>${enc(common)}</Prefix></CommonPrefixes>`;
  sendXml(store, res, `${xml}</ListBucketResult>`);
};

export const listBuckets = (store: Store, res: ServerResponse) => {
  let xml = `<ListAllMyBucketsResult xmlns="${XMLNS}"><Owner><ID>esign</ID><DisplayName>esign</DisplayName></Owner><Buckets>`;
  for (const bucket of [...store.buckets.values()].sort((a, b) => (a.name < b.name ? -1 : 1))) {
    xml += `<Bucket><Name>${bucket.name}</Name><CreationDate>${new Date(bucket.created).toISOString()}</CreationDate></Bucket>`;
  }
  sendXml(store, res, `${xml}</Buckets></ListAllMyBucketsResult>`);
};
