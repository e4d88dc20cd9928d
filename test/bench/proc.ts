/**
 * What the benchmark scripts read of other processes from /proc (Linux): CPU time, per process and
 * per thread, and resident memory. A process or thread that has ended reads as 0 (or is left out).
 */
import { readdirSync, readFileSync } from 'node:fs';

/** CPU time (user + system) so far, in ms, from a `stat` file of /proc (a process's or a thread's). */
const statCpuMs = (path: string): number => {
  try {
    const fields = readFileSync(path, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return 0;
  }
};

/** CPU time of a process so far, in ms. */
export const cpuMs = (pid: number): number => statCpuMs(`/proc/${pid}/stat`);

/**
 * CPU time so far of each Postgres backend serving `database` (found anew at each call: connections
 * come and go), in ms by pid. Postgres's shared processes (WAL writer, checkpointer) are left out: on a
 * shared server they work for every database.
 */
export const postgresBackendsCpuMs = (database: string): Map<number, number> => {
  const backends = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() !== 'postgres') continue;
      if (!readFileSync(`/proc/${entry}/cmdline`, 'latin1').includes(` ${database} `)) continue;
      backends.set(Number(entry), cpuMs(Number(entry)));
    } catch {
      // gone
    }
  }
  return backends;
};

/** CPU time of each thread of a process so far, in ms, by thread id (in the order they started). */
export const threadCpuMs = (pid: number): Map<number, number> => {
  const threads = new Map<number, number>();
  try {
    const tids = readdirSync(`/proc/${pid}/task`).map(Number);
    for (const tid of tids.sort((a, b) => a - b))
      threads.set(tid, statCpuMs(`/proc/${pid}/task/${tid}/stat`));
  } catch {
    // The process ended.
  }
  return threads;
};

/** Resident memory of a process, in bytes (0 once it has ended). */
export const rssBytes = (pid: number): number => {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
};

/** Processes by their name (`comm`: Postgres, NATS), for CPU accounting. */
export const pidsNamed = (pattern: RegExp): number[] => {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (pattern.test(readFileSync(`/proc/${entry}/comm`, 'utf8').trim())) pids.push(Number(entry));
    } catch {
      // gone
    }
  }
  return pids;
};
