/**
 * A V8 CPU profile (`.cpuprofile`, as `--cpu-prof` or the inspector's Profiler writes it) summed up:
 * self time by function and by module (npm package, our source directory, Node's internals, V8's
 * garbage collector and native code), per signing.
 */

/** The parts of a V8 CPU profile read here. */
export interface CpuProfile {
  nodes: {
    id: number;
    children?: number[];
    callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  }[];
  samples?: number[];
  timeDeltas?: number[];
}

/** Where a function's code comes from: an npm package, a directory of ours, Node, or V8 itself. */
export const moduleOf = (url: string, functionName: string): string => {
  if (!url) return functionName.startsWith('(') ? functionName : '(native/V8 builtins)';
  if (url.startsWith('node:')) return 'node: internals';
  const path = url.replace(/^file:\/\//, '');
  const nm = path.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const rest = path.slice(nm + '/node_modules/'.length).split('/');
    return rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1] ?? ''}` : (rest[0] ?? path);
  }
  // Our TypeScript, by file (tsx compiles each file to one line: columns, not lines, tell functions apart).
  const src = /\/(services|libs)\/([^/]+)\/src\/(.*)$/.exec(path);
  if (src) return `${src[2]}: ${src[3]}`;
  return path.split('/').slice(-2).join('/');
};

/**
 * Self time by function and by module, in ms per signing and as a share of the profile's samples
 * (idle time left out), with `cpuMs` (the measured CPU per signing) for scale; `what` names the
 * signings profiled (the document and level).
 */
export const summariseProfile = (
  profile: CpuProfile,
  signings: number,
  cpuMs: number,
  what: string,
  top = 20,
): string => {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  /** A native function (no URL) is named with the nearest JavaScript caller (`run` is crypto's, `writeSync` zlib's, …). */
  const callerOf = (id: number): string => {
    for (let at = parentOf.get(id); at !== undefined; at = parentOf.get(at)) {
      const frame = byId.get(at)?.callFrame;
      if (frame?.url)
        return ` <- ${frame.functionName || '(anonymous)'} in ${moduleOf(frame.url, frame.functionName)}`;
    }
    return '';
  };
  const selfUs = new Map<number, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  for (let i = 0; i < samples.length; i++) {
    // Each delta is the time before a sample; the sample stands for the time until the next one.
    const us = deltas[i + 1] ?? 0;
    const id = samples[i] ?? 0;
    selfUs.set(id, (selfUs.get(id) ?? 0) + Math.max(0, us));
  }
  /** The nearest of our files on the stack (from the sample up): what a library's or native time was spent for. */
  const ourFileAbove = (id: number): string => {
    for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) {
      const url = byId.get(at)?.callFrame.url ?? '';
      if (/\/(services|libs)\/[^/]+\/src\//.test(url)) return moduleOf(url, '');
    }
    return '(not under our code)';
  };
  const byOurFile = new Map<string, number>();
  const byFunction = new Map<string, number>();
  const byModule = new Map<string, number>();
  let total = 0;
  for (const [id, us] of selfUs) {
    const node = byId.get(id);
    if (!node) continue;
    const { functionName, url, lineNumber, columnNumber } = node.callFrame;
    if (functionName === '(idle)') continue;
    total += us;
    const module = moduleOf(url, functionName);
    const name = url
      ? `${functionName || '(anonymous)'}  [${module}:${lineNumber + 1}:${columnNumber + 1}]`
      : `${functionName}${functionName.startsWith('(') ? '' : callerOf(id)}  [${module}]`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + us);
    byModule.set(module, (byModule.get(module) ?? 0) + us);
    const file = ourFileAbove(id);
    byOurFile.set(file, (byOurFile.get(file) ?? 0) + us);
  }
  const table = (entries: Map<string, number>, limit: number) =>
    [...entries]
      .sort((a, b) => b[1] - a[1])
      .slice(0, limit)
      .map(
        ([name, us]) =>
          `  ${(us / 1000 / signings).toFixed(3).padStart(7)} ms ${((us / total) * 100).toFixed(1).padStart(5)}%  ${name}`,
      );
  return [
    `Where our CPU goes, ${what} (main thread, sampled every 0.1 ms over ${signings} signings): ${(total / 1000 / signings).toFixed(2)} ms sampled per signing (process CPU p50 ${cpuMs.toFixed(2)} ms, all threads)`,
    'self time by module:',
    ...table(byModule, 25),
    'by the nearest of our files on the stack (its own time and the library and native code it called):',
    ...table(byOurFile, 25),
    `self time by function (top ${top}):`,
    ...table(byFunction, top),
  ].join('\n');
};

/** A running CPU profile of this thread (see `startCpuProfile`). */
export interface RunningProfile {
  /** Stop profiling and return what was sampled. */
  stop(): Promise<CpuProfile>;
}

/** Start a V8 CPU profile of this thread through the inspector, sampled every 0.1 ms. */
export const startCpuProfile = async (): Promise<RunningProfile> => {
  const { Session } = await import('node:inspector/promises');
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  await session.post('Profiler.start');
  return {
    async stop() {
      const { profile } = await session.post('Profiler.stop');
      session.disconnect();
      return profile;
    },
  };
};
