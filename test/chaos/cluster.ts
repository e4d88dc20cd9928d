/**
 * A three-server NATS cluster of the harness's own (Debian's nats-server in cluster mode, JetStream on
 * every server), for the cluster scenarios: each server on a loopback address of its own (127.0.0.1,
 * .2, .3) with its own client port, route port and store, so that one of them can be killed (kill -9),
 * started again with its store, or cut off from the others' routes for a while with iptables.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { connect, StorageType, type NatsConnection } from 'nats';
import { freePort, isListening } from '@esign/stack';

const run = promisify(execFile);

/** One server of the cluster. */
export interface ClusterServer {
  /** Its server name (`n1`, `n2`, `n3`): what stream info's `cluster.leader` names. */
  readonly name: string;
  readonly host: string;
  readonly clientPort: number;
  readonly routePort: number;
}

export interface NatsCluster {
  /** The three client URLs, comma-separated (NATS_URL). */
  readonly url: string;
  readonly servers: readonly ClusterServer[];
  /** kill -9 of one server (by name); resolves once it is gone. */
  kill9(name: string): Promise<void>;
  /** Start a killed server again, same name, ports and store; resolves once it listens. */
  start(name: string): Promise<void>;
  /** Resolves once JetStream has a meta leader (the cluster can create and look up streams). */
  waitForMetaLeader(timeoutMs?: number): Promise<void>;
  /**
   * The server leading a stream's replicas (stream info `cluster.leader`), as the servers other than
   * `askingAllBut` see it (a cut-off server still names itself until it steps down).
   */
  streamLeader(stream: string, askingAllBut?: string): Promise<string>;
  /** The servers following a stream's leader. */
  streamReplicas(stream: string, askingAllBut?: string): Promise<{ leader: string; followers: string[] }>;
  /**
   * Block one server's routes to and from the others (iptables DROP) for `ms`, then lift the block
   * (always, also when the wait is interrupted). Clients keep reaching every server.
   */
  partition(name: string, ms: number, sleep: (ms: number) => Promise<void>): Promise<void>;
  stop(): Promise<void>;
}

const waitFor = async (check: () => Promise<boolean>, what: string, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} not within ${timeoutMs} ms`);
};

/** The route connections a server process opened to the others' route ports, as `ss` lists them. */
const solicitedRoutes = async (
  pid: number,
  peerRoutePorts: readonly number[],
): Promise<{ localHost: string; localPort: number; peerHost: string; peerPort: number }[]> => {
  const { stdout } = await run('ss', ['-Htnp', 'state', 'established']);
  const routes = [];
  for (const line of stdout.split('\n')) {
    if (!line.includes(`pid=${pid},`)) continue;
    const [local, peer] = line.trim().split(/\s+/).slice(2, 4);
    const split = (a: string | undefined) => {
      const i = a?.lastIndexOf(':') ?? -1;
      return { host: a?.slice(0, i) ?? '', port: Number(a?.slice(i + 1)) };
    };
    const l = split(local);
    const p = split(peer);
    if (peerRoutePorts.includes(p.port))
      routes.push({ localHost: l.host, localPort: l.port, peerHost: p.host, peerPort: p.port });
  }
  return routes;
};

const iptables = (args: string[]) => run('iptables', ['-w', ...args]);

/** Start three servers named n1..n3 on 127.0.0.1..3, each with its store under `dir`. */
export const startNatsCluster = async (dir: string): Promise<NatsCluster> => {
  const servers: ClusterServer[] = [];
  for (let i = 1; i <= 3; i++) {
    servers.push({
      name: `n${i}`,
      host: `127.0.0.${i}`,
      clientPort: await freePort(),
      routePort: await freePort(),
    });
  }
  const children = new Map<string, ChildProcess>();
  const byName = (name: string) => {
    const s = servers.find((x) => x.name === name);
    if (!s) throw new Error(`no cluster server ${name}`);
    return s;
  };
  const routeUrl = (s: ClusterServer) => `nats://${s.host}:${s.routePort}`;

  const start = async (name: string) => {
    const s = byName(name);
    const others = servers.filter((x) => x !== s);
    const child = spawn(
      'nats-server',
      [
        '-js',
        '-sd',
        join(dir, `nats-${s.name}`),
        '-n',
        s.name,
        '-a',
        s.host,
        '-p',
        String(s.clientPort),
        '--cluster_name',
        'esign',
        '--cluster',
        routeUrl(s),
        '--routes',
        others.map(routeUrl).join(','),
      ],
      { stdio: 'ignore' },
    );
    children.set(name, child);
    await waitFor(() => isListening(s.host, s.clientPort), `nats-server ${name}`, 20_000);
  };

  const kill = async (name: string, signal: NodeJS.Signals) => {
    const child = children.get(name);
    children.delete(name);
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill(signal);
    await exited;
  };

  const clientUrl = (s: ClusterServer) => `nats://${s.host}:${s.clientPort}`;
  const url = servers.map(clientUrl).join(',');
  const withConnection = async <T>(fn: (nc: NatsConnection) => Promise<T>, allBut?: string): Promise<T> => {
    const asked = servers.filter((s) => s.name !== allBut).map(clientUrl);
    // No reconnect to the server left out: it is not told about through gossip either.
    const nc = await connect({ servers: asked, timeout: 2000, ignoreClusterUpdates: allBut !== undefined });
    try {
      return await fn(nc);
    } finally {
      await nc.close();
    }
  };

  const streamReplicas = (stream: string, askingAllBut?: string) =>
    withConnection(async (nc) => {
      const jsm = await nc.jetstreamManager({ timeout: 2000 });
      const info = await jsm.streams.info(stream);
      const leader = info.cluster?.leader;
      if (!leader) throw new Error(`stream ${stream} has no leader`);
      return { leader, followers: (info.cluster?.replicas ?? []).map((r) => r.name) };
    }, askingAllBut);

  const cluster: NatsCluster = {
    url,
    servers,
    kill9: (name) => kill(name, 'SIGKILL'),
    start,
    async waitForMetaLeader(timeoutMs = 30_000) {
      await waitFor(
        () =>
          withConnection(async (nc) => {
            // Answered only once the JetStream meta group has a leader.
            const jsm = await nc.jetstreamManager({ timeout: 2000 });
            await jsm.getAccountInfo();
            // And a stream on every server can be placed: a leader may be elected before the third
            // server has joined ("no suitable peers for placement", once in CI).
            const probe = `ESIGN_PROBE_${process.pid}_${Date.now()}`;
            await jsm.streams.add({
              name: probe,
              subjects: [`esign.probe.${probe}`],
              num_replicas: servers.length,
              storage: StorageType.Memory,
            });
            await jsm.streams.delete(probe);
            return true;
          }),
        'a JetStream meta leader with every server placeable',
        timeoutMs,
      );
    },
    async streamLeader(stream, askingAllBut) {
      return (await streamReplicas(stream, askingAllBut)).leader;
    },
    streamReplicas,
    async partition(name, ms, sleep) {
      const s = byName(name);
      const pid = children.get(name)?.pid;
      if (pid === undefined) throw new Error(`cluster server ${name} is not running`);
      const others = servers.filter((x) => x !== s);
      // Connections to a server's address come from 127.0.0.1 whoever opens them, so the routes are
      // told apart by port: every connection to or from the server's route port; the connections it
      // opened itself to the others' route ports (found with `ss` by its pid); and no new route at
      // all meanwhile (the others' route between them is established and unaffected).
      const solicited = await solicitedRoutes(
        pid,
        others.map((x) => x.routePort),
      );
      const chain = `ESIGN_CUT_${process.pid}`;
      const rules: string[][] = [
        ['-p', 'tcp', '--sport', String(s.routePort)],
        ['-p', 'tcp', '--dport', String(s.routePort)],
        ...others.map((x) => [
          '-p',
          'tcp',
          '-m',
          'conntrack',
          '--ctstate',
          'NEW',
          '--dport',
          String(x.routePort),
        ]),
        ...solicited.flatMap((r) => [
          [
            '-p',
            'tcp',
            '-s',
            r.localHost,
            '--sport',
            String(r.localPort),
            '-d',
            r.peerHost,
            '--dport',
            String(r.peerPort),
          ],
          [
            '-p',
            'tcp',
            '-s',
            r.peerHost,
            '--sport',
            String(r.peerPort),
            '-d',
            r.localHost,
            '--dport',
            String(r.localPort),
          ],
        ]),
      ];
      await iptables(['-N', chain]);
      try {
        for (const rule of rules) await iptables(['-A', chain, ...rule, '-j', 'DROP']);
        // Loopback traffic passes INPUT once per packet, in both directions of a connection.
        await iptables(['-I', 'INPUT', '1', '-j', chain]);
        await sleep(ms);
      } finally {
        await iptables(['-D', 'INPUT', '-j', chain]).catch(() => undefined);
        await iptables(['-F', chain]).catch(() => undefined);
        await iptables(['-X', chain]).catch(() => undefined);
      }
    },
    async stop() {
      // SIGTERM: each server shuts down cleanly; the stores are removed with the folder.
      await Promise.all(servers.map((s) => kill(s.name, 'SIGTERM')));
    },
  };
  try {
    for (const s of servers) await start(s.name);
    await cluster.waitForMetaLeader();
  } catch (err) {
    await cluster.stop();
    throw err;
  }
  return cluster;
};
