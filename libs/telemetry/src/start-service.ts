/**
 * Something a service starts and must stop again: a connection, a listener, a timer, a worker pool.
 * What `start` resolves to is handed to the resources started after it.
 */
export interface Resource<T = void> {
  /** Names the resource in the error of a failed stop. */
  readonly name: string;
  start(): Promise<T> | T;
  /** Let go of it; called once, in reverse order of start (also when a later resource failed to start). */
  stop?(value: T): Promise<void> | void;
  /** Whether it can do its work now: the service is ready when every resource started so far is. */
  ready?(value: T): Promise<boolean> | boolean;
}

/** Start one resource, stopped with the service; resolves to what the resource's `start` resolved to. */
export type UseResource = <T>(resource: Resource<T>) => Promise<T>;

/** A started service: what its `start` returned, and `stop`. */
export type StartedService<R> = R & {
  /** Stop every resource in reverse order of start; once, however often it is called. */
  stop(): Promise<void>;
};

/**
 * The lifecycle every service shares: `start` lists the service's resources in the order they must
 * start (migrate, connect, serve, health…), each through `use`. They stop in reverse order, so that
 * nothing is closed while what was started after it (and may use it) still runs. When one fails to
 * start, those already started are stopped before the error is rethrown. `ready` answers whether
 * every resource started so far is ready, for /readyz (see `healthServer`).
 */
export const startService = async <R extends object>(
  start: (use: UseResource, ready: () => Promise<boolean>) => Promise<R>,
): Promise<StartedService<R>> => {
  const started: { name: string; stop: () => Promise<void>; ready: () => Promise<boolean> }[] = [];
  const use: UseResource = async (resource) => {
    const value = await resource.start();
    started.push({
      name: resource.name,
      stop: async () => {
        await resource.stop?.(value);
      },
      ready: async () => (resource.ready ? await resource.ready(value) : true),
    });
    return value;
  };
  const ready = async () => {
    // In start order, short-circuited: one that is not ready spares the checks after it.
    for (const resource of [...started]) {
      if (!(await resource.ready())) return false;
    }
    return true;
  };
  const stopAll = async (): Promise<unknown[]> => {
    const failures: unknown[] = [];
    for (const resource of started.splice(0).reverse()) {
      // One that fails to stop does not keep the others open.
      await resource.stop().catch((err: unknown) => {
        failures.push(new Error(`could not stop ${resource.name}`, { cause: err }));
      });
    }
    return failures;
  };
  let service: R;
  try {
    service = await start(use, ready);
  } catch (err) {
    // The start's own error is the one worth reporting; failures to undo it would only hide it.
    await stopAll();
    throw err;
  }
  let stopping: Promise<void> | undefined;
  return {
    ...service,
    stop: () => {
      stopping ??= stopAll().then((failures) => {
        const [first] = failures;
        if (failures.length > 0) throw first;
      });
      return stopping;
    },
  };
};
