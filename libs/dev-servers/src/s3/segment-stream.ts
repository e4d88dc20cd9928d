import { closeSync, openSync, read } from 'node:fs';
import { Readable } from 'node:stream';
import type { Entry } from './storage';

const COPY_CHUNK = 1024 * 1024;

/** A byte range of one file. */
interface Segment {
  readonly file: string;
  position: number;
  remaining: number;
}

/** The byte ranges of files that hold `length` bytes of an object from `start`. */
export const segmentsOf = (entry: Entry, start: number, length: number): Segment[] => {
  if (!entry.parts) return [{ file: entry.file, position: entry.offset + start, remaining: length }];
  const segments: Segment[] = [];
  let partStart = 0;
  const end = start + length;
  for (const part of entry.parts) {
    const partEnd = partStart + part.size;
    if (partEnd > start && partStart < end) {
      const from = Math.max(start, partStart);
      const to = Math.min(end, partEnd);
      segments.push({ file: part.file, position: from - partStart, remaining: to - from });
    }
    partStart = partEnd;
  }
  return segments;
};

/**
 * Reads byte ranges of files one after another. Every file is opened before the first byte is sent,
 * so an object replaced or deleted meanwhile is still read whole (open files outlive their names).
 */
export class SegmentStream extends Readable {
  private index = 0;
  private reading = false;
  private closeWhenIdle: (() => void) | undefined;

  private constructor(private readonly segments: (Segment & { fd: number })[]) {
    super({ highWaterMark: COPY_CHUNK });
  }

  /** Open every segment's file; throws (with nothing left open) when one is missing. */
  static open(segments: Segment[]): SegmentStream {
    const opened: (Segment & { fd: number })[] = [];
    try {
      for (const segment of segments) opened.push({ ...segment, fd: openSync(segment.file, 'r') });
    } catch (err) {
      for (const segment of opened) closeSync(segment.fd);
      throw err;
    }
    return new SegmentStream(opened);
  }

  override _read(): void {
    let segment = this.segments[this.index];
    while (segment && segment.remaining === 0) segment = this.segments[++this.index];
    if (!segment) {
      this.push(null);
      return;
    }
    const current = segment;
    const buf = Buffer.allocUnsafe(Math.min(COPY_CHUNK, current.remaining));
    this.reading = true;
    read(current.fd, buf, 0, buf.length, current.position, (err, bytesRead) => {
      this.reading = false;
      if (this.closeWhenIdle) {
        this.closeWhenIdle();
        return;
      }
      if (err) {
        this.destroy(err);
        return;
      }
      if (bytesRead === 0) {
        this.destroy(new Error('object file is shorter than its index says'));
        return;
      }
      current.position += bytesRead;
      current.remaining -= bytesRead;
      this.push(bytesRead === buf.length ? buf : buf.subarray(0, bytesRead));
    });
  }

  override _destroy(err: Error | null, callback: (err?: Error | null) => void): void {
    // Closing a descriptor while the thread pool still reads from it could hit a reused number.
    const close = () => {
      for (const segment of this.segments) closeSync(segment.fd);
      callback(err);
    };
    if (this.reading) this.closeWhenIdle = close;
    else close();
  }
}
