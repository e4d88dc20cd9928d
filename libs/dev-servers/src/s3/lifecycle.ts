import { renameSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { malformedXml, S3Failure } from './failures';
import { readBody, send, sendXml } from './http';
import { LIFECYCLE_FILE, removeQuietly } from './storage';
import type { Bucket, Store } from './store';
import { xmlUnescape } from './xml';

/**
 * Bucket lifecycle: the configuration is stored as sent (and given back as is); of its rules, only
 * `Expiration.Days` for a prefix is honoured, by a periodic sweep.
 */

export interface LifecycleRule {
  readonly prefix: string;
  readonly days: number;
}

const DAY_MS = 86_400_000;

/** The enabled expiration rules of a LifecycleConfiguration, or undefined when `xml` is not one. */
export const parseLifecycle = (xml: string): LifecycleRule[] | undefined => {
  if (!/<LifecycleConfiguration[\s>]/.test(xml)) return undefined;
  const rules: LifecycleRule[] = [];
  for (const [, body = ''] of xml.matchAll(/<Rule>([\s\S]*?)<\/Rule>/g)) {
    if (/<Status>\s*Enabled\s*<\/Status>/.exec(body) === null) continue;
    const days = /<Expiration>[\s\S]*?<Days>\s*(\d+)\s*<\/Days>[\s\S]*?<\/Expiration>/.exec(body)?.[1];
    if (days === undefined) continue;
    // Filter/Prefix, Filter/And/Prefix or the legacy Rule/Prefix: the first Prefix element is the one.
    const prefix = /<Prefix>([^<]*)<\/Prefix>/.exec(body)?.[1] ?? '';
    rules.push({ prefix: xmlUnescape(prefix), days: Number(days) });
  }
  return rules;
};

/** Apply every bucket's expiration rules as of `now`; returns how many objects were deleted. */
export const sweepExpired = (store: Store, now = Date.now()) => {
  let deleted = 0;
  for (const bucket of store.buckets.values()) {
    for (const rule of bucket.lifecycle?.rules ?? []) {
      const cutoff = now - rule.days * DAY_MS;
      for (const [key, entry] of bucket.objects) {
        if (entry.mtime <= cutoff && key.startsWith(rule.prefix)) {
          store.deleteObject(bucket, key);
          deleted++;
        }
      }
    }
  }
  return deleted;
};

export const putLifecycle = async (
  store: Store,
  req: IncomingMessage,
  res: ServerResponse,
  bucket: Bucket,
) => {
  const xml = await readBody(req);
  const rules = parseLifecycle(xml);
  if (!rules) throw malformedXml();
  const tmp = store.tmpPath();
  writeFileSync(tmp, xml);
  renameSync(tmp, join(bucket.dir, LIFECYCLE_FILE));
  bucket.lifecycle = { xml, rules };
  send(store, res, 200, {});
};

export const getLifecycle = (store: Store, res: ServerResponse, bucket: Bucket) => {
  if (!bucket.lifecycle) {
    throw new S3Failure(404, 'NoSuchLifecycleConfiguration', 'The lifecycle configuration does not exist', {
      BucketName: bucket.name,
    });
  }
  const xml = bucket.lifecycle.xml.replace(/^\s*<\?xml[^>]*\?>\s*/, '');
  sendXml(store, res, xml);
};

export const deleteLifecycle = (store: Store, res: ServerResponse, bucket: Bucket) => {
  removeQuietly(join(bucket.dir, LIFECYCLE_FILE));
  bucket.lifecycle = undefined;
  send(store, res, 204, {});
};
