import path from 'node:path';

/** Debian's binaries (postgresql-15, patroni, etcd-server, pgbackrest, haproxy). */
export const PG_BIN = '/usr/lib/postgresql/15/bin';
export const BINARIES: { path: string; packageName: string }[] = [
  { path: '/usr/bin/etcd', packageName: 'etcd-server' },
  { path: '/usr/bin/patroni', packageName: 'patroni' },
  { path: `${PG_BIN}/postgres`, packageName: 'postgresql-15' },
  { path: '/usr/bin/pgbackrest', packageName: 'pgbackrest' },
  { path: '/usr/sbin/haproxy', packageName: 'haproxy' },
];

export const SCOPE = 'pis';
export const STANZA = 'pis';
export const APP_DATABASE = 'pis';
export const APP_ROLE = 'pis';

/**
 * Patroni's timings (docs/decisions/080-database-cluster.md). The leader key lives `ttl` seconds
 * and the leader renews it every `loop_wait`; a dead leader is noticed when its key expires, so
 * the failover window is about ttl + loop_wait + promotion + HAProxy's check. Patroni needs
 * loop_wait + 2 x retry_timeout <= ttl (a leader that cannot reach etcd for retry_timeout demotes
 * itself before its key can expire under it).
 */
export const TIMINGS = { ttl: 10, loop_wait: 1, retry_timeout: 4 } as const;

export interface NodeSpec {
  name: string;
  port: number;
  restPort: number;
}

export interface Secrets {
  superuser: string;
  replication: string;
  app: string;
  linkSigningSecret: string;
}

export const nodeDir = (dir: string, name: string) => path.join(dir, name);
export const dataDir = (dir: string, name: string) => path.join(dir, name, 'data');
export const socketDir = (dir: string) => path.join(dir, 'run');
export const pgbackrestConfig = (dir: string) => path.join(dir, 'pgbackrest.conf');

const quote = (value: string) => JSON.stringify(value);

/** One node's Patroni configuration (YAML; JSON strings are valid YAML scalars). */
export function patroniYaml(dir: string, node: NodeSpec, etcdPort: number, secrets: Secrets): string {
  const archive = `pgbackrest --config=${pgbackrestConfig(dir)} --stanza=${STANZA} archive-push %p`;
  return `# Written by \`npm run cluster -- up\`: one Patroni node of the cluster under ${dir}.
scope: ${SCOPE}
namespace: /pis-cluster/
name: ${node.name}
restapi:
  listen: 127.0.0.1:${node.restPort}
  connect_address: 127.0.0.1:${node.restPort}
etcd3:
  hosts: ["127.0.0.1:${etcdPort}"]
bootstrap:
  dcs:
    ttl: ${TIMINGS.ttl}
    loop_wait: ${TIMINGS.loop_wait}
    retry_timeout: ${TIMINGS.retry_timeout}
    maximum_lag_on_failover: 1048576
    # A commit is acknowledged only once a standby holds it; the sync role moves to the other
    # standby when one dies, and with both gone writes go on (decision 080).
    synchronous_mode: true
    synchronous_mode_strict: false
    # An etcd outage alone never demotes a leader that every member still reaches.
    failsafe_mode: true
    postgresql:
      use_pg_rewind: true
      # No replication slots: after a switchover or failover a standby streams from the new
      # leader as soon as it follows it, without waiting for the new leader to create its slot
      # (commits wait for a synchronous standby meanwhile). WAL a standby missed comes from
      # wal_keep_size, else from pgBackRest's archive (restore_command below).
      use_slots: false
      parameters:
        wal_level: replica
        hot_standby: "on"
        wal_log_hints: "on"
        max_connections: 200
        max_wal_senders: 10
        max_replication_slots: 10
        wal_keep_size: 256MB
        archive_mode: "on"
        archive_timeout: 60
        archive_command: ${quote(archive)}
  initdb:
    - encoding: UTF8
    - data-checksums
    - auth-local: peer
    - auth-host: scram-sha-256
postgresql:
  listen: 127.0.0.1:${node.port}
  connect_address: 127.0.0.1:${node.port}
  data_dir: ${quote(dataDir(dir, node.name))}
  bin_dir: ${PG_BIN}
  pgpass: ${quote(path.join(nodeDir(dir, node.name), 'pgpass'))}
  authentication:
    superuser:
      username: postgres
      password: ${quote(secrets.superuser)}
    replication:
      username: replicator
      password: ${quote(secrets.replication)}
    rewind:
      username: postgres
      password: ${quote(secrets.superuser)}
  recovery_conf:
    restore_command: ${quote(`pgbackrest --config=${pgbackrestConfig(dir)} --stanza=${STANZA} archive-get %f "%p"`)}
  parameters:
    unix_socket_directories: ${quote(socketDir(dir))}
    password_encryption: scram-sha-256
  pg_hba:
    - local all postgres peer
    - host replication replicator 127.0.0.1/32 scram-sha-256
    - host all all 127.0.0.1/32 scram-sha-256
log:
  level: INFO
`;
}

/** pgBackRest: the repository in DIR; the node is named on each command line (pg1-path/-port). */
export function pgbackrestConf(dir: string): string {
  return `# Written by \`npm run cluster -- up\`.
[global]
repo1-path=${path.join(dir, 'backups')}
repo1-retention-full=2
compress-type=lz4
start-fast=y
log-path=${path.join(dir, 'log')}
lock-path=${path.join(dir, 'run', 'pgbackrest')}
log-level-console=warn
log-level-file=info

[${STANZA}]
pg1-socket-path=${socketDir(dir)}
pg1-user=postgres
`;
}

/** HAProxy in front of the three nodes: only the one whose Patroni answers `GET /primary` 200. */
export function databaseHaproxyCfg(port: number, statsPort: number, nodes: NodeSpec[]): string {
  const servers = nodes.map(
    (node) => `    server ${node.name} 127.0.0.1:${node.port} check port ${node.restPort}`,
  );
  return `# Written by \`npm run cluster -- up\`: the service's way to the leader.
global
    maxconn 2000

defaults
    mode tcp
    timeout connect 2s
    timeout check 2s
    # Pooled and listening connections sit idle between queries.
    timeout client 30m
    timeout server 30m

listen primary
    bind 127.0.0.1:${port}
    option httpchk
    # OPTIONS: Patroni answers with headers only (a GET's body written after HAProxy has read
    # the status and closed makes Patroni log a reset on every check).
    http-check send meth OPTIONS uri /primary
    http-check expect status 200
    # A check every 500 ms; one success puts the new leader in. Sessions to a server marked down
    # are cut at once, so no pooled connection stays on a demoted leader.
    default-server inter 500ms fastinter 500ms downinter 500ms fall 2 rise 1 on-marked-down shutdown-sessions
${servers.join('\n')}

frontend stats
    mode http
    bind 127.0.0.1:${statsPort}
    stats enable
    stats uri /stats
`;
}

/** deploy/haproxy.cfg with its `# test: replaced` lines set for the instances, and a stats page. */
export function frontHaproxyCfg(
  shipped: string,
  port: number,
  statsPort: number,
  instancePorts: number[],
): string {
  const servers = instancePorts.map((p, index) => `    server api${index + 1} 127.0.0.1:${p} check`);
  let config = shipped
    .replace(/^\s*bind .*# test: replaced$/m, `    bind 127.0.0.1:${port}`)
    .replace(/^\s*server-template .*# test: replaced$/m, servers.join('\n'))
    .replace(/^resolvers docker[\s\S]*?(?=^\S|(?![\s\S]))/m, '');
  if (/# test: replaced$/m.test(config))
    throw new Error('deploy/haproxy.cfg: a `# test: replaced` line was not replaced');
  config += `\nfrontend stats\n    bind 127.0.0.1:${statsPort}\n    stats enable\n    stats uri /stats\n`;
  return config;
}
