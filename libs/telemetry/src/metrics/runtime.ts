import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Instruments } from './instruments';

/** CPU time, resident memory and event-loop delay of this process, read at each scrape. */
export const observeRuntime = (instruments: Instruments): (() => void) => {
  const delay = monitorEventLoopDelay({ resolution: 20 });
  delay.enable();
  instruments.observedCounter('processCpuTime', (report) => {
    const { user, system } = process.cpuUsage();
    report(user / 1e6, { 'cpu.mode': 'user' });
    report(system / 1e6, { 'cpu.mode': 'system' });
  });
  instruments.gauge('processMemory', (report) => report(process.memoryUsage.rss()));
  instruments.gauge('eventLoopDelay', (report) => {
    // Nanoseconds, over the time since the last scrape.
    report(delay.count > 0 ? delay.percentile(99) / 1e9 : 0);
    delay.reset();
  });
  return () => delay.disable();
};
