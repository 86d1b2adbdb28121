import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { chmod, chown, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { createApiKey } from '../../auth/api-keys.ts';
import { systemClock } from '../../clock.ts';
import { freePort } from '../../db/embedded-postgres.ts';
import { migrate, openOrm } from '../../db/orm.ts';
import { createOrganization } from '../../organizations/organization-admin.ts';
import {
  APP_DATABASE,
  APP_ROLE,
  BINARIES,
  databaseHaproxyCfg,
  dataDir,
  frontHaproxyCfg,
  type NodeSpec,
  nodeDir,
  PG_BIN,
  patroniYaml,
  pgbackrestConf,
  pgbackrestConfig,
  type Secrets,
  STANZA,
  socketDir,
} from './files.ts';
import {
  alive,
  ClusterError,
  isZombie,
  markedProcesses,
  spawnDetached,
  stopMarked,
  waitFor,
} from './processes.ts';

const run = promisify(execFile);

const SERVER_DIR = path.resolve(fileURLToPath(new URL('../../..', import.meta.url)));
const SHIPPED_HAPROXY_CFG = path.resolve(SERVER_DIR, '..', 'deploy', 'haproxy.cfg');
const STATE_FILE = 'cluster.json';
const NODE_NAMES = ['pg1', 'pg2', 'pg3'];
const INSTANCES = 2;

export type Role = 'leader' | 'sync_standby' | 'replica' | 'stopped' | 'starting';

export interface ClusterStatus {
  url: string;
  apiKey: string;
  organizationId: string;
  databaseUrl: string;
  nodes: { name: string; role: Role; postgresPid: number | null; patroniPid: number | null; port: number }[];
  instances: { pid: number; port: number }[];
}

interface ClusterState {
  kind: 'cluster';
  dir: string;
  ports: {
    etcd: number;
    etcdPeer: number;
    database: number;
    databaseStats: number;
    front: number;
    frontStats: number;
  };
  nodes: NodeSpec[];
  instancePorts: number[];
  secrets: Secrets;
  apiKey: string;
  organizationId: string;
}

interface RestoreState {
  kind: 'restore';
  dir: string;
  port: number;
  databaseUrl: string;
}

type State = ClusterState | RestoreState;

export type Log = (line: string) => void;

/** The `postgres` OS user when we are root (Postgres refuses root), else ourselves. */
async function postgresUser(): Promise<{ uid: number; gid: number } | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  try {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: group } = await run('id', ['-g', 'postgres']);
    return { uid: Number(stdout.trim()), gid: Number(group.trim()) };
  } catch {
    throw new ClusterError(
      'running as root needs the `postgres` OS user (made by Debian package postgresql-15)',
    );
  }
}

/** A folder the Postgres side (postgres user) owns. */
async function ownedDir(folder: string, mode = 0o700): Promise<void> {
  await mkdir(folder, { recursive: true, mode });
  const user = await postgresUser();
  if (user) await chown(folder, user.uid, user.gid);
  await chmod(folder, mode);
}

/** Runs a command as the postgres user (when root); output returned, failures thrown with stderr. */
async function asPostgres(dir: string, command: string, args: string[], timeoutMs = 600_000) {
  const user = await postgresUser();
  try {
    return await run(command, args, {
      cwd: dir,
      env: { PATH: process.env.PATH, HOME: dir, LANG: 'C.UTF-8', PIS_CLUSTER_DIR: dir },
      timeout: timeoutMs,
      maxBuffer: 64 * 1024 * 1024,
      ...(user ?? {}),
    });
  } catch (error) {
    const { stderr, stdout } = error as { stderr?: string; stdout?: string };
    const said = `${stderr ?? ''}${stdout ?? ''}`.trim().split('\n').slice(-3).join(' | ');
    throw new ClusterError(
      `${path.basename(command)} ${args.at(-1)} failed: ${said || (error as Error).message}`,
    );
  }
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => server.close(() => resolve(true)));
  });
}

const secret = () => randomBytes(24).toString('base64url');

async function readState(dir: string): Promise<State> {
  const file = path.join(dir, STATE_FILE);
  if (!existsSync(file)) throw new ClusterError(`${dir} holds no cluster (no ${STATE_FILE})`);
  return JSON.parse(await readFile(file, 'utf8')) as State;
}

async function writeState(state: State): Promise<void> {
  await writeFile(path.join(state.dir, STATE_FILE), `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
}

/** Refuses a DIR with anything running under it, or anything in it at all. */
async function claimDir(dir: string, purpose: string): Promise<void> {
  const running = await markedProcesses(dir);
  if (running.length > 0) {
    throw new ClusterError(
      `${dir} is in use: ${running.length} processes run under it (pid ${running[0]?.pid}); run \`cluster down ${dir}\` first`,
    );
  }
  if (existsSync(dir)) {
    if (!statSync(dir).isDirectory()) throw new ClusterError(`${dir} is not a folder`);
    if ((await readdir(dir)).length > 0) {
      throw new ClusterError(`${dir} is in use: not empty (${purpose} needs a new or empty folder)`);
    }
  }
  await mkdir(dir, { recursive: true });
  await chmod(dir, 0o755);
  await mkdir(path.join(dir, 'log'), { recursive: true });
  await ownedDir(path.join(dir, 'log'), 0o755);
  await ownedDir(socketDir(dir), 0o755);
  const user = await postgresUser();
  if (user) {
    // Every folder above DIR must let the postgres user through.
    try {
      await run('test', ['-w', socketDir(dir)], { ...user });
    } catch {
      throw new ClusterError(
        `${dir} is not reachable by the postgres OS user: a folder above it is closed (chmod o+x)`,
      );
    }
  }
  if (path.join(socketDir(dir), '.s.PGSQL.65535').length > 100) {
    throw new ClusterError(`${dir} is too long a path for Postgres's socket (at most ~80 characters)`);
  }
}

/** Whether every Debian package the cluster needs is installed. */
export const PACKAGES_PRESENT = () => BINARIES.every((binary) => existsSync(binary.path));

function checkPackages(): void {
  const missing = BINARIES.filter((binary) => !existsSync(binary.path)).map((binary) => binary.packageName);
  if (missing.length > 0) {
    throw new ClusterError(
      `Debian package missing: ${missing.join(', ')} (apt-get install -y ${missing.join(' ')})`,
    );
  }
}

async function ports(count: number, fixed: number[]): Promise<number[]> {
  const taken = new Set(fixed);
  const chosen: number[] = [];
  while (chosen.length < count) {
    const port = await freePort();
    if (!taken.has(port)) {
      taken.add(port);
      chosen.push(port);
    }
  }
  return chosen;
}

interface Member {
  name: string;
  role: string;
  state: string;
  port: number;
  lag?: number | string;
}

/** Patroni's view of the cluster from the first node that answers. */
async function patroniCluster(nodes: NodeSpec[]): Promise<Member[] | undefined> {
  for (const node of nodes) {
    const response = await fetch(`http://127.0.0.1:${node.restPort}/cluster`, {
      signal: AbortSignal.timeout(1_500),
    }).catch(() => undefined);
    if (response?.ok) return ((await response.json()) as { members: Member[] }).members;
  }
  return undefined;
}

const superuserUrl = (state: ClusterState, port = state.ports.database, database = 'postgres') =>
  `postgres://postgres:${encodeURIComponent(state.secrets.superuser)}@127.0.0.1:${port}/${database}`;

export const appUrl = (secrets: Secrets, port: number) =>
  `postgres://${APP_ROLE}:${encodeURIComponent(secrets.app)}@127.0.0.1:${port}/${APP_DATABASE}`;

async function query<Row>(
  url: string,
  text: string,
  values: unknown[] = [],
  timeoutMs = 3_000,
): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
  await client.connect();
  try {
    return (await client.query(text, values)).rows as Row[];
  } finally {
    await client.end().catch(() => {});
  }
}

/** `npm run cluster -- up DIR [--port P]`: everything started and ready, or nothing left running. */
export async function up(
  dir: string,
  options: { port?: number | undefined },
  log: Log,
): Promise<ClusterStatus> {
  checkPackages();
  if (options.port !== undefined && !(await portFree(options.port))) {
    throw new ClusterError(`port ${options.port} is taken`);
  }
  await claimDir(dir, 'up');
  try {
    return await startCluster(dir, options, log);
  } catch (error) {
    log(`up failed; stopping what started under ${dir}`);
    await stopMarked(dir, log);
    throw error;
  }
}

async function startCluster(
  dir: string,
  options: { port?: number | undefined },
  log: Log,
): Promise<ClusterStatus> {
  const fixed = options.port === undefined ? [] : [options.port];
  const free = await ports(6 + NODE_NAMES.length * 2 + INSTANCES, fixed);
  const take = () => free.shift() as number;
  const state: ClusterState = {
    kind: 'cluster',
    dir,
    ports: {
      etcd: take(),
      etcdPeer: take(),
      database: take(),
      databaseStats: take(),
      front: options.port ?? take(),
      frontStats: take(),
    },
    nodes: NODE_NAMES.map((name) => ({ name, port: take(), restPort: take() })),
    instancePorts: Array.from({ length: INSTANCES }, take),
    secrets: {
      superuser: secret(),
      replication: secret(),
      app: secret(),
      linkSigningSecret: secret() + secret(),
    },
    apiKey: '',
    organizationId: '',
  };
  await writeState(state);
  const logFile = (name: string) => path.join(dir, 'log', `${name}.log`);

  log(`etcd on 127.0.0.1:${state.ports.etcd}`);
  await mkdir(path.join(dir, 'etcd'), { recursive: true, mode: 0o700 });
  await startEtcd(state);

  await writeFile(pgbackrestConfig(dir), pgbackrestConf(dir));
  await ownedDir(path.join(dir, 'backups'), 0o750);
  await ownedDir(path.join(socketDir(dir), 'pgbackrest'), 0o750);
  const user = await postgresUser();
  for (const node of state.nodes) {
    await ownedDir(nodeDir(dir, node.name));
    const file = path.join(nodeDir(dir, node.name), 'patroni.yml');
    await writeFile(file, patroniYaml(dir, node, state.ports.etcd, state.secrets), { mode: 0o600 });
    if (user) await chown(file, user.uid, user.gid);
    await startPatroni(state, node);
    log(`patroni ${node.name}: postgres 127.0.0.1:${node.port}, REST 127.0.0.1:${node.restPort}`);
  }
  await waitFor('a leader, a synchronous standby and a replica', 180_000, async () => {
    for (const node of state.nodes) {
      if (!(await patroniPid(dir, node.name))) {
        throw new ClusterError(
          `patroni ${node.name} exited at start (see ${path.join(dir, 'log', `${node.name}.log`)})`,
        );
      }
    }
    const members = await patroniCluster(state.nodes);
    if (!members) return false;
    const roles = members.filter((m) => m.state === 'running' || m.state === 'streaming').map((m) => m.role);
    return roles.includes('leader') && roles.includes('sync_standby') && roles.length === 3;
  });

  log(`HAProxy to the leader on 127.0.0.1:${state.ports.database}`);
  await writeFile(
    path.join(dir, 'database-haproxy.cfg'),
    databaseHaproxyCfg(state.ports.database, state.ports.databaseStats, state.nodes),
  );
  await startHaproxy(dir, 'database-haproxy');
  await waitFor('the leader through HAProxy', 20_000, async () => {
    const [row] = await query<{ recovery: boolean }>(
      superuserUrl(state),
      'select pg_is_in_recovery() as recovery',
    );
    return row?.recovery === false;
  });

  log('pgBackRest stanza');
  const leader = await currentLeader(state);
  await pgbackrest(state, leader, ['stanza-create']);
  await pgbackrest(state, leader, ['check']);

  log('the service database and role');
  const admin = superuserUrl(state);
  const [{ quoted } = { quoted: '' }] = await query<{ quoted: string }>(
    admin,
    'select quote_literal($1) as quoted',
    [state.secrets.app],
  );
  await query(admin, `create role ${APP_ROLE} login password ${quoted}`);
  await query(admin, `create database ${APP_DATABASE} owner ${APP_ROLE}`);
  const databaseUrl = appUrl(state.secrets, state.ports.database);
  const orm = await openOrm(databaseUrl, { poolMax: 1 });
  try {
    await migrate(orm, databaseUrl);
    const { organizationId } = await createOrganization(orm.em.fork(), 'Cluster Merchant', systemClock);
    const { apiKey } = await createApiKey(
      orm.em.fork(),
      { organizationId, permissions: { read: true, write: true }, name: 'cluster' },
      systemClock,
    );
    state.apiKey = apiKey;
    state.organizationId = organizationId;
  } finally {
    await orm.close();
  }
  await writeState(state);

  const started: number[] = [];
  for (const [index, port] of state.instancePorts.entries()) {
    log(`service instance ${index + 1} on 127.0.0.1:${port}`);
    started[index] = await startInstance(state, index);
  }
  // The instances' ports were chosen a minute ago, before etcd and Patroni: another process may
  // have bound one since. Such an instance ends with EADDRINUSE and starts again on a fresh port
  // (HAProxy is configured below, from the ports they finally have).
  const portRetries = state.instancePorts.map(() => 0);
  await Promise.all(
    state.instancePorts.map((_, index) =>
      waitFor(`service instance ${index + 1} ready`, 90_000, async () => {
        const port = state.instancePorts[index] as number;
        // By its PID, not by its mark in /proc: while an instance re-executes itself with its memory
        // settings (same PID, lifecycle/memory-settings.ts) its environment cannot be read, and one
        // look then took a starting instance for one that exited (a CI flake).
        const pid = started[index] as number;
        if (!alive(pid) || (await isZombie(pid))) {
          const file = logFile(`instance-${index + 1}`);
          const output = await readFile(file, 'utf8').catch(() => '');
          if (output.includes('EADDRINUSE') && (portRetries[index] ?? 0) < 3) {
            portRetries[index] = (portRetries[index] ?? 0) + 1;
            const inUse = [
              ...Object.values(state.ports),
              ...state.nodes.flatMap((n) => [n.port, n.restPort]),
            ];
            const [fresh] = await ports(1, [...inUse, ...state.instancePorts]);
            state.instancePorts[index] = fresh as number;
            log(`service instance ${index + 1}: port ${port} taken, now on ${fresh}`);
            await writeState(state);
            started[index] = await startInstance(state, index);
            return false;
          }
          const tail = output.trim().split('\n').slice(-15).join('\n');
          throw new ClusterError(`service instance ${index + 1} exited at start (see ${file}):\n${tail}`);
        }
        return (await fetch(`http://127.0.0.1:${port}/ready`, { signal: AbortSignal.timeout(2_000) })).ok;
      }),
    ),
  );

  log(`front HAProxy on 127.0.0.1:${state.ports.front}`);
  const shipped = await readFile(SHIPPED_HAPROXY_CFG, 'utf8');
  await writeFile(
    path.join(dir, 'front-haproxy.cfg'),
    frontHaproxyCfg(shipped, state.ports.front, state.ports.frontStats, state.instancePorts),
  );
  await startHaproxy(dir, 'front-haproxy');
  await waitFor('both instances UP behind the front HAProxy', 20_000, async () => {
    const states = await backendStates(state.ports.frontStats, 'api');
    return states.length === INSTANCES && states.every((s) => s === 'UP');
  });
  return status(dir);
}

/** The one etcd member (its data under DIR/etcd); resolves once it answers /health. */
async function startEtcd(state: ClusterState): Promise<number> {
  const { dir } = state;
  const etcdUrl = `http://127.0.0.1:${state.ports.etcd}`;
  const peerUrl = `http://127.0.0.1:${state.ports.etcdPeer}`;
  const logFile = path.join(dir, 'log', 'etcd.log');
  const pid = await spawnDetached({
    dir,
    command: '/usr/bin/etcd',
    args: [
      '--name=pis-etcd',
      `--data-dir=${path.join(dir, 'etcd', 'data')}`,
      `--listen-client-urls=${etcdUrl}`,
      `--advertise-client-urls=${etcdUrl}`,
      `--listen-peer-urls=${peerUrl}`,
      `--initial-advertise-peer-urls=${peerUrl}`,
      `--initial-cluster=pis-etcd=${peerUrl}`,
      '--initial-cluster-state=new',
      '--logger=zap',
    ],
    logFile,
    env: { PATH: process.env.PATH, LANG: 'C.UTF-8' },
  });
  await waitFor('etcd ready', 20_000, async () => {
    if (!alive(pid)) throw new ClusterError(`etcd exited at start (see ${logFile})`);
    return (await fetch(`${etcdUrl}/health`, { signal: AbortSignal.timeout(1_000) })).ok;
  });
  return pid;
}

/** etcd's pid under DIR, if it runs. */
export async function etcdPid(dir: string): Promise<number | undefined> {
  return (await markedProcesses(dir)).find((p) => p.command.startsWith('/usr/bin/etcd '))?.pid;
}

async function startPatroni(state: ClusterState, node: NodeSpec): Promise<number> {
  const user = await postgresUser();
  return spawnDetached({
    dir: state.dir,
    command: '/usr/bin/patroni',
    args: [path.join(nodeDir(state.dir, node.name), 'patroni.yml')],
    cwd: nodeDir(state.dir, node.name),
    logFile: path.join(state.dir, 'log', `${node.name}.log`),
    env: {
      PATH: process.env.PATH,
      LANG: 'C.UTF-8',
      HOME: nodeDir(state.dir, node.name),
      // archive_command is the same on every node; pgBackRest takes the node from these.
      PGBACKREST_PG1_PATH: dataDir(state.dir, node.name),
      PGBACKREST_PG1_PORT: String(node.port),
    },
    ...(user ?? {}),
  });
}

async function startHaproxy(dir: string, name: 'database-haproxy' | 'front-haproxy'): Promise<number> {
  const file = path.join(dir, `${name}.cfg`);
  const pid = await spawnDetached({
    dir,
    command: '/usr/sbin/haproxy',
    args: ['-db', '-f', file],
    logFile: path.join(dir, 'log', `${name}.log`),
    env: { PATH: process.env.PATH },
  });
  await sleep(300);
  if (!alive(pid)) {
    const tail = readFileSync(path.join(dir, 'log', `${name}.log`), 'utf8')
      .trim()
      .split('\n')
      .slice(-2)
      .join(' | ');
    throw new ClusterError(`${name} did not start: ${tail}`);
  }
  return pid;
}

/** Environment variables of ours that an operator may set for the instances (rate limits, timeouts, mail...). */
const PASSED_ENV =
  /^(RATE_LIMIT|REQUEST_TIMEOUT_MS|CONNECTION_TIMEOUT_MS|DB_|LOG_LEVEL|SHUTDOWN_DRAIN_MS|MAX_CONNECTIONS|SMTP_URL|MAIL_FROM|TRUST_PROXY|OTEL_|HOSTED_PAGES|WAITS_PER_PROCESS|REQUEST_LOG)/;

async function startInstance(state: ClusterState, index: number): Promise<number> {
  const port = state.instancePorts[index] as number;
  const passed = Object.fromEntries(Object.entries(process.env).filter(([name]) => PASSED_ENV.test(name)));
  return spawnDetached({
    dir: state.dir,
    command: process.execPath,
    args: ['src/main.ts'],
    cwd: SERVER_DIR,
    logFile: path.join(state.dir, 'log', `instance-${index + 1}.log`),
    env: {
      PATH: process.env.PATH,
      LANG: 'C.UTF-8',
      // Set, so no instance starts `npm start`'s MailDev on its fixed ports (set SMTP_URL to send mail).
      SMTP_URL: 'smtp://127.0.0.1:9',
      ...passed,
      DATABASE_URL: appUrl(state.secrets, state.ports.database),
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_BASE_URL: `http://127.0.0.1:${state.ports.front}`,
      LINK_SIGNING_SECRET: state.secrets.linkSigningSecret,
      PIS_CLUSTER_INSTANCE: String(index + 1),
    },
  });
}

async function backendStates(statsPort: number, backend: string): Promise<string[]> {
  const response = await fetch(`http://127.0.0.1:${statsPort}/stats;csv`, {
    signal: AbortSignal.timeout(2_000),
  });
  const rows = (await response.text()).split('\n').map((line) => line.split(','));
  return rows
    .filter((row) => row[0] === backend && row[1] !== 'FRONTEND' && row[1] !== 'BACKEND')
    .map((row) => row[17] ?? '');
}

async function patroniPid(dir: string, name: string): Promise<number | undefined> {
  const config = path.join(nodeDir(dir, name), 'patroni.yml');
  return (await markedProcesses(dir)).find((p) => p.command.includes('patroni') && p.command.endsWith(config))
    ?.pid;
}

async function instancePids(dir: string): Promise<{ pid: number; port: number }[]> {
  return (await markedProcesses(dir))
    .filter((p) => p.env.has('PIS_CLUSTER_INSTANCE'))
    .map((p) => ({ pid: p.pid, port: Number(p.env.get('PORT')) }));
}

function postmasterPid(folder: string): number | undefined {
  try {
    const pid = Number(readFileSync(path.join(folder, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return alive(pid) ? pid : undefined;
  } catch {
    return undefined;
  }
}

async function currentLeader(state: ClusterState): Promise<NodeSpec> {
  const members = await patroniCluster(state.nodes);
  const leader = members?.find((m) => m.role === 'leader');
  const node = state.nodes.find((n) => n.name === leader?.name);
  if (!node) throw new ClusterError('the cluster has no leader now');
  return node;
}

async function pgbackrest(
  state: ClusterState,
  node: NodeSpec | undefined,
  args: string[],
  timeoutMs?: number,
) {
  return asPostgres(
    state.dir,
    '/usr/bin/pgbackrest',
    [
      `--config=${pgbackrestConfig(state.dir)}`,
      `--stanza=${STANZA}`,
      ...(node ? [`--pg1-path=${dataDir(state.dir, node.name)}`, `--pg1-port=${node.port}`] : []),
      ...args,
    ],
    timeoutMs,
  );
}

async function readCluster(dir: string): Promise<ClusterState> {
  const state = await readState(dir);
  if (state.kind !== 'cluster') throw new ClusterError(`${dir} holds a restored database, not a cluster`);
  return state;
}

/** The cluster as things stand now: roles from Patroni, pids from /proc. */
export async function status(dir: string): Promise<ClusterStatus> {
  const state = await readCluster(dir);
  const members = (await patroniCluster(state.nodes)) ?? [];
  const nodes: ClusterStatus['nodes'] = [];
  for (const node of state.nodes) {
    const member = members.find((m) => m.name === node.name);
    const postgresPid = postmasterPid(dataDir(dir, node.name)) ?? null;
    const role: Role = !member
      ? 'stopped'
      : member.role === 'leader' || member.role === 'sync_standby' || member.role === 'replica'
        ? member.state === 'running' || member.state === 'streaming'
          ? member.role
          : 'starting'
        : 'replica';
    nodes.push({
      name: node.name,
      role,
      postgresPid,
      patroniPid: (await patroniPid(dir, node.name)) ?? null,
      port: node.port,
    });
  }
  const running = await instancePids(dir);
  return {
    url: `http://127.0.0.1:${state.ports.front}`,
    apiKey: state.apiKey,
    organizationId: state.organizationId,
    databaseUrl: appUrl(state.secrets, state.ports.database),
    nodes,
    instances: state.instancePorts.flatMap((port) => running.filter((i) => i.port === port)),
  };
}

/** Stops everything under DIR (a cluster or a restored database); the data stays. */
export async function down(dir: string, log: Log): Promise<{ stopped: number }> {
  if (!existsSync(dir)) throw new ClusterError(`${dir} does not exist`);
  return { stopped: await stopMarked(dir, log) };
}

/** Starts a node's Patroni again (after a crash or a kill): it rejoins as a standby (pg_rewind). `etcd`: etcd again. */
export async function startNode(dir: string, name: string): Promise<ClusterStatus> {
  const state = await readCluster(dir);
  if (name === 'etcd') {
    if (await etcdPid(dir)) throw new ClusterError('etcd is running already');
    await startEtcd(state);
    return status(dir);
  }
  const node = state.nodes.find((n) => n.name === name);
  if (!node) {
    throw new ClusterError(`no node ${name} (nodes: ${state.nodes.map((n) => n.name).join(', ')}, etcd)`);
  }
  if (await patroniPid(dir, name)) throw new ClusterError(`${name}'s Patroni is running already`);
  const orphan = postmasterPid(dataDir(dir, name));
  if (orphan) {
    // A postmaster that outlived its Patroni: stop it so Patroni starts from a known state.
    process.kill(orphan, 'SIGINT');
    await waitFor(`${name}'s old postmaster to stop`, 30_000, async () => !alive(orphan));
  }
  await startPatroni(state, node);
  await waitFor(`${name} streaming again`, 120_000, async () => {
    const member = (await patroniCluster(state.nodes))?.find((m) => m.name === name);
    return member && (member.state === 'streaming' || member.state === 'running') && member.role !== 'leader';
  });
  return status(dir);
}

/** Planned switchover to the synchronous standby; returns once HAProxy sends to the new leader. */
export async function switchover(
  dir: string,
  log: Log,
): Promise<ClusterStatus & { switchover: { from: string; to: string; seconds: number } }> {
  const state = await readCluster(dir);
  const members = await patroniCluster(state.nodes);
  const leader = members?.find((m) => m.role === 'leader');
  const candidate = members?.find(
    (m) => m.role === 'sync_standby' && (m.state === 'streaming' || m.state === 'running'),
  );
  if (!leader || !candidate)
    throw new ClusterError('switchover needs a leader and a streaming synchronous standby');
  const leaderNode = state.nodes.find((n) => n.name === leader.name) as NodeSpec;
  const candidateNode = state.nodes.find((n) => n.name === candidate.name) as NodeSpec;
  log(`switchover ${leader.name} -> ${candidate.name}`);
  const started = performance.now();
  const response = await fetch(`http://127.0.0.1:${leaderNode.restPort}/switchover`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ leader: leader.name, candidate: candidate.name }),
    signal: AbortSignal.timeout(60_000),
  });
  const said = await response.text();
  if (!response.ok)
    throw new ClusterError(`Patroni refused the switchover: ${response.status} ${said.trim()}`);
  await waitFor('the new leader behind HAProxy', 60_000, async () => {
    // A short connect timeout: HAProxy holds a connection while no node leads, which would
    // otherwise make this wait (and the measure) up to seconds longer than the switchover.
    const [row] = await query<{ port: number; recovery: boolean }>(
      superuserUrl(state),
      'select inet_server_port() as port, pg_is_in_recovery() as recovery',
      [],
      400,
    );
    return row?.port === candidateNode.port && row.recovery === false;
  });
  const seconds = Math.round((performance.now() - started) / 100) / 10;
  return { ...(await status(dir)), switchover: { from: leader.name, to: candidate.name, seconds } };
}

interface BackupInfo {
  label: string;
  type: string;
  timestamp: { start: number; stop: number };
}

async function backups(state: ClusterState): Promise<BackupInfo[]> {
  const { stdout } = await pgbackrest(state, undefined, ['--output=json', 'info']);
  const [stanza] = JSON.parse(stdout) as { backup?: BackupInfo[] }[];
  return stanza?.backup ?? [];
}

/** A full pgBackRest backup from the leader. */
export async function backup(dir: string, log: Log): Promise<{ backup: string; at: string }> {
  const state = await readCluster(dir);
  const leader = await currentLeader(state);
  log(`full backup from ${leader.name}`);
  await pgbackrest(state, leader, ['--type=full', 'backup'], 6 * 60 * 60_000);
  const last = (await backups(state)).at(-1);
  if (!last) throw new ClusterError('the backup finished but pgBackRest lists none');
  return { backup: last.label, at: new Date(last.timestamp.stop * 1000).toISOString() };
}

const RFC_3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/**
 * Point-in-time restore into a new single node under `into`: the backup before `to`, then the
 * archived WAL up to `to` (every commit at or before it, none after), promoted. Archiving is
 * off on the restored node: it never writes into the cluster's repository.
 */
export async function restore(
  dir: string,
  to: string,
  into: string,
  log: Log,
): Promise<{ databaseUrl: string }> {
  checkPackages();
  const state = await readCluster(dir);
  if (!RFC_3339.test(to) || Number.isNaN(Date.parse(to))) {
    throw new ClusterError(`--to ${to}: not an RFC 3339 instant (e.g. 2026-11-28T05:00:00.000Z)`);
  }
  const target = Date.parse(to);
  if (target > Date.now()) throw new ClusterError(`--to ${to} is in the future`);
  const list = await backups(state);
  if (list.length === 0) throw new ClusterError(`no backup yet: run \`cluster backup ${dir}\` first`);
  // A backup is consistent from its stop; the instant must come after it (whole seconds in the list).
  const usable = list.filter((b) => (b.timestamp.stop + 1) * 1000 <= target);
  const chosen = usable.at(-1);
  if (!chosen) {
    const first = new Date(((list[0] as BackupInfo).timestamp.stop + 1) * 1000).toISOString();
    throw new ClusterError(`--to ${to} is before the first backup (restorable from ${first})`);
  }
  await claimDir(into, 'restore');
  try {
    // While the cluster runs: a commit after the instant (recovery stops at the first commit past
    // it) and the current WAL archived, so the instant is inside the archive.
    const leader = await currentLeader(state).catch(() => undefined);
    if (leader) {
      await query(superuserUrl(state), 'select txid_current()');
      await pgbackrest(state, leader, ['check']);
    }
    const port = await freePort();
    const data = path.join(into, 'data');
    await ownedDir(data);
    log(`restoring backup ${chosen.label} to ${to} into ${data}`);
    const pgTarget = new Date(target).toISOString().replace('T', ' ').replace('Z', '+00');
    await asPostgres(
      into,
      '/usr/bin/pgbackrest',
      [
        `--config=${pgbackrestConfig(dir)}`,
        `--stanza=${STANZA}`,
        `--pg1-path=${data}`,
        `--log-path=${path.join(into, 'log')}`,
        `--lock-path=${socketDir(into)}`,
        `--set=${chosen.label}`,
        '--type=time',
        `--target=${pgTarget}`,
        '--target-action=promote',
        'restore',
      ],
      6 * 60 * 60_000,
    );
    const settings = [
      `port=${port}`,
      'listen_addresses=127.0.0.1',
      `unix_socket_directories=${socketDir(into)}`,
      'archive_mode=off',
      "synchronous_standby_names=''",
      `hba_file=${path.join(data, 'pg_hba.conf')}`,
      `ident_file=${path.join(data, 'pg_ident.conf')}`,
      'cluster_name=pis-restored',
      'hot_standby=on',
    ];
    log(`starting the restored node on 127.0.0.1:${port}`);
    await asPostgres(
      into,
      `${PG_BIN}/pg_ctl`,
      [
        '-D',
        data,
        '-l',
        path.join(into, 'log', 'postgres.log'),
        '-w',
        '-t',
        '3600',
        '-o',
        settings.map((s) => `-c ${s}`).join(' '),
        'start',
      ],
      3_700_000,
    );
    const url = superuserUrl(state, port);
    await waitFor('the restored node promoted', 3_600_000, async () => {
      const [row] = await query<{ recovery: boolean }>(url, 'select pg_is_in_recovery() as recovery');
      return row?.recovery === false;
    });
    const restored: RestoreState = {
      kind: 'restore',
      dir: into,
      port,
      databaseUrl: appUrl(state.secrets, port),
    };
    await writeState(restored);
    return { databaseUrl: restored.databaseUrl };
  } catch (error) {
    await stopMarked(into, log);
    const tail = existsSync(path.join(into, 'log', 'postgres.log'))
      ? readFileSync(path.join(into, 'log', 'postgres.log'), 'utf8')
          .trim()
          .split('\n')
          .filter((l) => /FATAL|ERROR/.test(l))
          .slice(-2)
          .join(' | ')
      : '';
    if (tail && error instanceof ClusterError) throw new ClusterError(`${error.message} (postgres: ${tail})`);
    throw error;
  }
}

/** What `status` prints for DIR, whichever kind it holds. */
export async function statusOf(
  dir: string,
): Promise<ClusterStatus | { databaseUrl: string; postgresPid: number | null }> {
  const state = await readState(dir);
  if (state.kind === 'restore') {
    return { databaseUrl: state.databaseUrl, postgresPid: postmasterPid(path.join(dir, 'data')) ?? null };
  }
  return status(dir);
}

/**
 * Turns Patroni's synchronous_mode on or off for the whole cluster (its dynamic configuration)
 * and waits until the leader's `synchronous_standby_names` says so. For measuring what
 * synchronous replication costs (`npm run bench -- --cluster`); an operator keeps it on.
 */
export async function setSynchronous(dir: string, on: boolean): Promise<void> {
  const state = await readCluster(dir);
  const leader = await currentLeader(state);
  const response = await fetch(`http://127.0.0.1:${leader.restPort}/config`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ synchronous_mode: on }),
    signal: AbortSignal.timeout(10_000),
  });
  if (!response.ok) throw new ClusterError(`Patroni refused the configuration: ${response.status}`);
  await waitFor(`synchronous replication ${on ? 'on' : 'off'}`, 30_000, async () => {
    const [row] = await query<{ names: string }>(
      superuserUrl(state),
      "select current_setting('synchronous_standby_names') as names",
    );
    return ((row?.names ?? '') !== '') === on;
  });
}

/** The cluster's superuser URL through HAProxy (the bench seeds with it). */
export async function superuserUrlOf(dir: string): Promise<string> {
  return superuserUrl(await readCluster(dir), undefined, APP_DATABASE);
}
