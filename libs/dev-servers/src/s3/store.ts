import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseLifecycle, type LifecycleRule } from './lifecycle';
import {
  BUCKET_NAME,
  fileNameOf,
  LIFECYCLE_FILE,
  OBJECT_FILE,
  PART_FILE,
  readObjectFile,
  removeQuietly,
  TMP_DIR,
  UPLOADS_DIR,
  type Entry,
} from './storage';

export interface Bucket {
  readonly name: string;
  readonly dir: string;
  readonly created: number;
  readonly objects: Map<string, Entry>;
  /** Keys in listing order; dropped when a key appears or disappears, rebuilt by the next listing. */
  sorted: string[] | undefined;
  lifecycle: { xml: string; rules: LifecycleRule[] } | undefined;
}

export interface Part {
  readonly etag: string;
  readonly size: number;
  readonly mtime: number;
}

/** A multipart upload in progress: its parts wait in `dir` (under `.uploads/`) until complete. */
export interface Upload {
  readonly id: string;
  readonly bucket: string;
  readonly key: string;
  readonly dir: string;
  readonly initiated: number;
  readonly contentType: string;
  readonly meta: Readonly<Record<string, string>> | undefined;
  readonly parts: Map<number, Part>;
}

/**
 * The server's state: the in-memory index of buckets and objects over the folder, the uploads in
 * progress, and the counters that make ETags, temporary names and request IDs. Every rename or unlink
 * of an object file and its index update happen in the same synchronous step, which is what lets a
 * read trust the index without re-reading the header.
 */
export interface Store {
  readonly root: string;
  readonly region: string;
  readonly uploadsDir: string;
  readonly buckets: Map<string, Bucket>;
  readonly uploads: Map<string, Upload>;
  /** Unique per object version: 32 hex digits like an MD5 ETag, without reading the bytes. */
  nextEtag(): string;
  /** A fresh path under `.tmp/` for a body being received. */
  tmpPath(): string;
  /** The `x-amz-request-id` of the next response. */
  nextRequestId(): string;
  /** The request ID an error body names (the last one handed out). */
  lastRequestId(): string;
  sortedKeys(bucket: Bucket): string[];
  /** Commit: the rename makes the new version visible on disk, the index follows in the same step. */
  setObject(bucket: Bucket, key: string, entry: Entry, tmp: string): void;
  deleteObject(bucket: Bucket, key: string): void;
}

/** Read back the buckets, objects and lifecycle rules `root` holds, dropping a previous run's leftovers. */
const loadBuckets = (root: string): Map<string, Bucket> => {
  const buckets = new Map<string, Bucket>();
  for (const dirent of readdirSync(root, { withFileTypes: true })) {
    if (!dirent.isDirectory() || !BUCKET_NAME.test(dirent.name)) continue;
    const dir = join(root, dirent.name);
    const bucket: Bucket = {
      name: dirent.name,
      dir,
      created: statSync(dir).mtimeMs,
      objects: new Map(),
      sorted: undefined,
      lifecycle: undefined,
    };
    const names = readdirSync(dir);
    for (const name of names) {
      if (name === LIFECYCLE_FILE) {
        const xml = readFileSync(join(dir, name), 'utf8');
        const rules = parseLifecycle(xml);
        if (rules) bucket.lifecycle = { xml, rules };
      } else if (OBJECT_FILE.test(name)) {
        const found = readObjectFile(join(dir, name));
        if (found && fileNameOf(found.key) === name) bucket.objects.set(found.key, found.entry);
      }
    }
    // Part files that no object names: left by a crash between moving parts and committing.
    const used = new Set(
      [...bucket.objects.values()].flatMap((entry) => entry.parts?.map((p) => p.file) ?? []),
    );
    for (const name of names) {
      if (PART_FILE.test(name) && !used.has(join(dir, name))) removeQuietly(join(dir, name));
    }
    buckets.set(bucket.name, bucket);
  }
  return buckets;
};

/** Open (or create) the folder `root` as an S3 store. */
export const openStore = (options: { root: string; region: string }): Store => {
  const { root, region } = options;
  const tmpDir = join(root, TMP_DIR);
  const uploadsDir = join(root, UPLOADS_DIR);
  mkdirSync(root, { recursive: true });
  // Leftovers of a previous run: half-written bodies and unfinished multipart uploads.
  rmSync(tmpDir, { recursive: true, force: true });
  rmSync(uploadsDir, { recursive: true, force: true });
  mkdirSync(tmpDir);
  mkdirSync(uploadsDir);

  const buckets = loadBuckets(root);
  const tokenPrefix = randomBytes(8).toString('hex');
  let counter = 0;

  return {
    root,
    region,
    uploadsDir,
    buckets,
    uploads: new Map(),
    nextEtag: () => tokenPrefix + (counter++).toString(16).padStart(16, '0'),
    tmpPath: () => `${tmpDir}/${tokenPrefix}${(counter++).toString(36)}`,
    nextRequestId: () => (counter++).toString(16),
    lastRequestId: () => counter.toString(16),
    sortedKeys: (bucket) => (bucket.sorted ??= [...bucket.objects.keys()].sort()),
    setObject(bucket, key, entry, tmp) {
      renameSync(tmp, entry.file);
      const previous = bucket.objects.get(key);
      if (!previous) bucket.sorted = undefined;
      bucket.objects.set(key, entry);
      for (const part of previous?.parts ?? []) removeQuietly(part.file);
    },
    deleteObject(bucket, key) {
      const entry = bucket.objects.get(key);
      if (!entry) return;
      removeQuietly(entry.file);
      for (const part of entry.parts ?? []) removeQuietly(part.file);
      bucket.objects.delete(key);
      bucket.sorted = undefined;
    },
  };
};
