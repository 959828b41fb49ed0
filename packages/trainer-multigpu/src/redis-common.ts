/**
 * What the learner (RedisTransport) and the workers (RedisWorkerAgent) share: the connection URL, the
 * key layout of a run, the setup and weights formats, and how a client reconnects.
 *
 * Keys of run R (the `{R}` hash tag keeps one run's keys in one Redis Cluster slot):
 *   az:{R}:setup            "<signature> <JSON RemoteRunSetup>" (game by package name and version, config, network, options)
 *   az:{R}:state            'running' | 'stopped'
 *   az:{R}:paused           '1' while the learner holds self-play (flow control), else '0'
 *   az:{R}:weights:current  "<version> <sha256 hex> <bytes> <signature>"
 *   az:{R}:weights:<v>      the float32 bytes of weights version v (one value, not chunked)
 *   az:{R}:games            stream of finished games, read by consumer group 'learner'
 *   az:{R}:worker:<id>      "<signature> <heartbeat JSON>", with a TTL: an expired key is a lost worker
 *
 * The signatures are HMAC-SHA256 under the run key (run-key.ts): the learner signs the setup and the
 * weights, workers sign their heartbeats and stream entries (field `m`).
 *   az:{R}:serial           counter giving every worker agent a unique number
 *   az:{R}:events           pub/sub channel: 'weights <v>', 'paused 0|1', 'state <s>', 'epoch <n>'
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { hostname } from 'node:os';
import { rootCertificates } from 'node:tls';
import { Redis, type RedisOptions } from 'ioredis';
import type { NetworkConfig, ResolvedConfig } from '@az/core';
import type { WeightSpec } from '@az/nn';
import type { WorkerSettings } from './options.js';
import type { RunSigner } from './run-key.js';
import type { WorkerPlayStats } from './transport.js';

/** A redis:// or rediss:// URL taken apart: what ioredis needs, and a printable form without the password. */
export interface RedisEndpoint {
  readonly host: string;
  readonly port: number;
  readonly db: number;
  readonly username?: string;
  readonly password?: string;
  readonly tls: boolean;
  /** PEM certificates trusted for rediss:// besides the system's (see withTlsCa). */
  readonly tlsCa?: string;
  /** The URL with the password replaced by '***', for logs. */
  readonly display: string;
}

export class RedisUrlError extends Error {}

/** Parses `redis[s]://[user[:password]@]host[:port][/db]`; anything else throws a RedisUrlError naming the problem. */
export function parseRedisUrl(text: string): RedisEndpoint {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new RedisUrlError(`'${text}' is not a URL; expected redis://[user:password@]host:port/db or rediss://... for TLS`);
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') throw new RedisUrlError(`'${text}': the scheme must be redis:// or rediss:// (TLS), not ${url.protocol}//`);
  if (url.hostname === '') throw new RedisUrlError(`'${text}' names no host`);
  const port = url.port === '' ? 6379 : Number(url.port);
  const dbText = url.pathname.replace(/^\//, '');
  const db = dbText === '' ? 0 : Number(dbText);
  if (!Number.isInteger(db) || db < 0 || !/^\d*$/.test(dbText)) throw new RedisUrlError(`'${text}': the database after the host must be a number (got '${dbText}')`);
  if (url.search !== '' || url.hash !== '') throw new RedisUrlError(`'${text}': query strings and fragments are not understood`);
  const username = url.username === '' ? undefined : decodeURIComponent(url.username);
  const password = url.password === '' ? undefined : decodeURIComponent(url.password);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const auth = username !== undefined || password !== undefined ? `${username ?? ''}${password !== undefined ? ':***' : ''}@` : '';
  return { host, port, db, username, password, tls: url.protocol === 'rediss:', display: `${url.protocol}//${auth}${url.host}/${db}` };
}

/** Where a user names a CA for rediss:// when no --tls-ca flag is given. */
export const TLS_CA_ENV = 'AZ_REDIS_CA';

/**
 * The endpoint with the PEM certificates of `file` trusted besides the system's roots: for a Redis whose
 * certificate a private CA signed. `file` undefined: AZ_REDIS_CA if set, else the endpoint unchanged.
 */
export function withTlsCa(endpoint: RedisEndpoint, file: string | undefined, env: NodeJS.ProcessEnv = process.env): RedisEndpoint {
  const fromEnv = file === undefined;
  const path = file ?? (env[TLS_CA_ENV] || undefined);
  if (path === undefined) return endpoint;
  const source = fromEnv ? `${TLS_CA_ENV}=${path}` : `--tls-ca ${path}`;
  if (!endpoint.tls) {
    if (fromEnv) return endpoint;
    throw new RedisUrlError(`${source}: a CA only applies to TLS connections; use rediss:// in ${endpoint.display}`);
  }
  let pem: string;
  try {
    pem = readFileSync(path, 'utf8');
  } catch (err) {
    throw new RedisUrlError(`${source}: cannot read the CA file (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) throw new RedisUrlError(`${source}: no PEM certificate ('-----BEGIN CERTIFICATE-----') in the file`);
  return { ...endpoint, tlsCa: pem };
}

/** A connection that can never succeed as configured (wrong password, untrusted certificate, no such database): stop and say why. */
export class RedisConnectError extends Error {}

const CERT_NOT_TRUSTED = new Set(['SELF_SIGNED_CERT_IN_CHAIN', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'UNABLE_TO_GET_ISSUER_CERT', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'CERT_UNTRUSTED']);

/**
 * What is wrong when a first connection fails in a way retrying cannot mend, or undefined for a
 * failure worth retrying (the server not up yet, a network hiccup).
 */
export function fatalConnectProblem(endpoint: RedisEndpoint, err: Error & { code?: string }): string | undefined {
  const where = `redis ${endpoint.display}`;
  const code = err.code ?? '';
  const user = endpoint.username ?? 'default';
  if (err.message.startsWith('WRONGPASS')) return `${where}: the server refused user '${user}' with the password in the URL (${err.message}); check user:password@ in the URL (percent-encode special characters)`;
  if (err.message.startsWith('NOAUTH')) return `${where}: the server requires a password (${err.message}); give user:password@ in the URL`;
  // SELECT of the URL's database refused: every reconnect would be refused alike (and ioredis would carry on in database 0).
  if (/^ERR (DB index is out of range|invalid DB index)/.test(err.message)) {
    return `${where}: the server has no database ${endpoint.db} (${err.message}); a server has databases 0 to N-1 for its 'databases' setting N (16 by default: 0-15); put one of them after the port in the URL`;
  }
  if (err.message.startsWith('ERR SELECT is not allowed in cluster mode')) return `${where}: a Redis Cluster has database 0 only, not ${endpoint.db} (${err.message}); end the URL with /0`;
  if (CERT_NOT_TRUSTED.has(code)) {
    return `${where}: the server's TLS certificate is not trusted (${code}: ${err.message}); give the CA that signed it with --tls-ca FILE or ${TLS_CA_ENV}=FILE`;
  }
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return `${where}: the server's TLS certificate is not for host '${endpoint.host}' (${err.message}); connect by a name the certificate lists`;
  if (code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID') return `${where}: the server's TLS certificate is not valid now (${code}: ${err.message})`;
  if (endpoint.tls && /wrong version number|packet length too long|WRONG_VERSION_NUMBER/i.test(`${code} ${err.message}`)) {
    return `${where}: the server does not speak TLS on port ${endpoint.port} (${err.message}); use redis:// for a plain port`;
  }
  return undefined;
}

/** Reconnect delays: 100 ms doubling to 5 s, forever (a Redis restart must not end a run). */
export function reconnectDelayMs(attempt: number): number {
  return Math.min(5000, 100 * 2 ** Math.min(6, Math.max(0, attempt - 1)));
}

const firstConnections = new WeakMap<Redis, Promise<void>>();

/**
 * Resolves once `client` (from connectRedis) first became ready; rejects with a RedisConnectError when
 * its first connection failed for a reason retrying cannot mend (the client is then closed).
 */
export function connected(client: Redis): Promise<void> {
  return firstConnections.get(client) ?? Promise.resolve();
}

/**
 * A client that reconnects with backoff forever and queues commands meanwhile, except before its first
 * connection when the server refuses the password or the certificate: see `connected`.
 */
export function connectRedis(endpoint: RedisEndpoint, name: string, onError?: (message: string) => void): Redis {
  let giveUp = false;
  const options: RedisOptions = {
    host: endpoint.host,
    port: endpoint.port,
    db: endpoint.db,
    username: endpoint.username,
    password: endpoint.password,
    connectionName: name,
    // RESP2: the reply shapes every Redis since 5.0 gives, and what the stream parser expects.
    protocol: 2,
    // Commands wait for the connection to come back instead of failing after a few retries.
    maxRetriesPerRequest: null,
    retryStrategy: (attempt) => (giveUp ? null : reconnectDelayMs(attempt)),
    enableReadyCheck: true,
    // Reconnect on READONLY (a replica promoted under us) as on a dropped connection.
    reconnectOnError: (err) => err.message.startsWith('READONLY'),
    ...(endpoint.tls
      ? {
          tls: {
            // SNI takes host names only; an IP address is checked against the certificate's IP entries.
            ...(isIP(endpoint.host) === 0 ? { servername: endpoint.host } : {}),
            ...(endpoint.tlsCa !== undefined ? { ca: [...rootCertificates, endpoint.tlsCa] } : {}),
          },
        }
      : {}),
  };
  const client = new Redis(options);
  let everReady = false;
  let settle: { resolve: () => void; reject: (err: Error) => void } | undefined;
  const first = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
  first.catch(() => undefined);
  firstConnections.set(client, first);
  // Without a listener ioredis prints every failed reconnect; the caller decides what to show.
  let last = '';
  client.on('error', (err: Error & { code?: string }) => {
    // ioredis listens for one error per socket; a failed TLS socket can raise a second one (the server's
    // alert after a rejected certificate), which would otherwise be an uncaught exception.
    const socket = (client as unknown as { stream?: NodeJS.EventEmitter }).stream;
    if (socket && socket.listenerCount('error') === 0) socket.on('error', () => undefined);
    const fatal = everReady ? undefined : fatalConnectProblem(endpoint, err);
    if (fatal !== undefined) {
      // No reconnect after this connection. A refused password or certificate closes it by itself (closing
      // it here instead would write on a failed TLS socket, whose next error ioredis no longer listens for:
      // an uncaught exception); a refused SELECT leaves it open, and it is closed once ready (below).
      giveUp = true;
      settle?.reject(new RedisConnectError(fatal));
      return;
    }
    // Once per kind of failure ('read ECONNRESET' and 'write ECONNRESET' are one), not once per retry.
    const kind = err.code ?? err.message;
    const hint = !everReady && !endpoint.tls && err.code === 'ECONNRESET' ? ' (if the server speaks TLS on this port, use rediss://)' : '';
    if (kind !== last) onError?.(`redis ${endpoint.display}: ${err.message}${hint}`);
    last = kind;
  });
  client.on('ready', () => {
    // Ready after a refusal that is not fatal to the connection itself (a SELECT refused): end it here, so
    // no command runs in the wrong database.
    if (giveUp) {
      client.disconnect();
      return;
    }
    last = '';
    everReady = true;
    settle?.resolve();
  });
  return client;
}

export function runKeys(run: string) {
  const p = `az:{${run}}:`;
  return {
    setup: `${p}setup`,
    state: `${p}state`,
    paused: `${p}paused`,
    epoch: `${p}epoch`,
    weightsCurrent: `${p}weights:current`,
    weights: (version: number) => `${p}weights:${version}`,
    games: `${p}games`,
    worker: (id: string) => `${p}worker:${id}`,
    workerPattern: `${p}worker:*`,
    workerPrefix: `${p}worker:`,
    serial: `${p}serial`,
    events: `${p}events`,
  } as const;
}
export type RunKeys = ReturnType<typeof runKeys>;

/** Consumer group and consumer of the games stream: one learner per run. */
export const GAMES_GROUP = 'learner';
export const GAMES_CONSUMER = 'learner';

/** Run names become key parts: keep them to characters that need no quoting anywhere. */
export function checkRunName(run: string): string {
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(run)) throw new RedisUrlError(`run name '${run}' must be 1-64 letters, digits, '.', '_' or '-'`);
  return run;
}

/** What a worker on another machine needs: like WorkerSetup, but the game is named by package, not by a file URL. */
export interface RemoteRunSetup {
  readonly format: 1;
  /** Bumped by every learner start: workers restart their processes when it changes. */
  readonly epoch: number;
  readonly gameId: string;
  readonly plugin: { readonly packageName: string; readonly version: string; readonly exportName: string };
  readonly gameConfig: ResolvedConfig;
  readonly encoderVersion: string;
  readonly network: NetworkConfig;
  readonly weightSpecs: readonly WeightSpec[];
  /** The worker's settings, under the name the first format gave them (workers of either build read the same fields). */
  readonly options: WorkerSettings;
  /** Heartbeat keys live this long; workers refresh them four times as often. */
  readonly heartbeatTimeoutMs: number;
}

/** The announcement of a weights version: what the small key workers poll holds, and the pub/sub message points at. */
export interface CurrentWeights {
  readonly version: number;
  readonly sha256: string;
  readonly bytes: number;
  /** "<version> <sha256> <bytes>": what the signature covers. */
  readonly line: string;
  readonly signature: string | undefined;
}

/** "<version> <sha256> <bytes> <signature>", signed by the learner: workers play only what the run key signed. */
export function formatCurrentWeights(version: number, data: Uint8Array, signer: RunSigner): string {
  const line = `${version} ${sha256(data)} ${data.byteLength}`;
  return `${line} ${signer.sign('weights', line)}`;
}

/** The announcement in `text` (its signature not yet checked: `currentWeightsSigned`), or null when it is malformed. */
export function parseCurrentWeights(text: string | null): CurrentWeights | null {
  if (text === null) return null;
  const m = /^((\d+) ([0-9a-f]{64}) (\d+))(?: (\S+))?$/.exec(text);
  return m ? { version: Number(m[2]), sha256: m[3], bytes: Number(m[4]), line: m[1], signature: m[5] } : null;
}

/** True when the learner holding the run key announced `current`. */
export function currentWeightsSigned(current: CurrentWeights, signer: RunSigner): boolean {
  return signer.verify(current.signature, 'weights', current.line);
}

export function sha256(data: Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Bytes of one weights version in `specs` layout (float32). */
export function weightsByteLength(specs: readonly WeightSpec[]): number {
  let n = 0;
  for (const s of specs) n += s.shape.reduce((a, b) => a * b, 1);
  return n * 4;
}

/** Heartbeat value of one worker process (JSON, under az:{R}:worker:<id> with a TTL): who it is, what it runs, its play counters. */
export interface RemoteHeartbeat extends WorkerPlayStats {
  readonly machine: string;
  readonly device: string;
  readonly pid: number;
  readonly incarnation: number;
  readonly state: 'starting' | 'running' | 'paused' | 'stopped';
  readonly weightsVersion: number;
  readonly backend: string;
}

export function defaultMachineName(): string {
  return hostname() || 'localhost';
}

/**
 * Fields of one stream entry (the bytes field last: it is the large one). An entry holds one or more
 * finished games of one worker process: `s` and `v` list each game's sequence number and weights
 * version (comma-separated), `b` is their records back to back and `l` their byte lengths (only when
 * there is more than one game). A one-game entry is the same with one number in `s` and `v` and no `l`.
 */
export const FIELD = { worker: 'w', device: 'd', incarnation: 'i', seq: 's', version: 'v', game: 'g', lengths: 'l', mac: 'm', bytes: 'b' } as const;

/** The fields an entry's signature (field `m`) covers, in order; the bytes of the records last. */
const SIGNED_FIELDS = [FIELD.worker, FIELD.device, FIELD.incarnation, FIELD.seq, FIELD.version, FIELD.game, FIELD.lengths, FIELD.bytes] as const;

/** The run key's signature of an entry's fields (as the entry holds them, byte for byte; a missing field as empty). */
export function entrySignature(fields: ReadonlyMap<string, Uint8Array>, signer: RunSigner): string {
  return signer.sign('games', ...SIGNED_FIELDS.map((f) => fields.get(f) ?? new Uint8Array(0)));
}

/** True when the entry's `m` field is the run key's signature of its other fields. */
export function entrySigned(fields: ReadonlyMap<string, Buffer>, signer: RunSigner): boolean {
  return signer.verify(fields.get(FIELD.mac)?.toString('latin1'), 'games', ...SIGNED_FIELDS.map((f) => fields.get(f) ?? new Uint8Array(0)));
}

/** Games one stream entry holds at most, and about how many record bytes (a larger game goes alone). */
export const GAMES_PER_ENTRY = 32;
export const ENTRY_BYTES = 256 * 1024;

/** One game of an entry: what the learner checks and de-duplicates on. */
export interface EntryGame {
  readonly seq: number;
  readonly version: number;
  readonly bytes: Uint8Array;
}

/**
 * The XADD field-value list of one entry holding `games` (in order) of one worker process, signed with the
 * run key. Every value is a string but the records, which go as one Buffer.
 */
export function entryFields(signer: RunSigner, worker: string, device: string, incarnation: number, gameId: string, games: readonly EntryGame[]): (string | Buffer)[] {
  const values = new Map<string, Buffer>([
    [FIELD.worker, Buffer.from(worker)],
    [FIELD.device, Buffer.from(device)],
    [FIELD.incarnation, Buffer.from(String(incarnation))],
    [FIELD.seq, Buffer.from(games.map((g) => g.seq).join(','))],
    [FIELD.version, Buffer.from(games.map((g) => g.version).join(','))],
    [FIELD.game, Buffer.from(gameId)],
  ]);
  if (games.length > 1) values.set(FIELD.lengths, Buffer.from(games.map((g) => g.bytes.byteLength).join(',')));
  values.set(FIELD.bytes, games.length === 1 ? Buffer.from(games[0].bytes.buffer, games[0].bytes.byteOffset, games[0].bytes.byteLength) : Buffer.concat(games.map((g) => g.bytes)));
  const mac = entrySignature(values, signer);
  const fields: (string | Buffer)[] = [];
  // The bytes field last: it is the large one.
  for (const [name, value] of values) if (name !== FIELD.bytes) fields.push(name, value.toString());
  fields.push(FIELD.mac, mac, FIELD.bytes, values.get(FIELD.bytes) as Buffer);
  return fields;
}

/**
 * Splits queued games into entries: runs of one worker process's games, at most GAMES_PER_ENTRY each and
 * closed once they pass ENTRY_BYTES, in their original order.
 */
export function groupIntoEntries<G extends { readonly workerId: number; readonly incarnation: number; readonly bytes: Uint8Array }>(games: readonly G[]): G[][] {
  const entries: G[][] = [];
  let current: G[] = [];
  let bytes = 0;
  for (const g of games) {
    const head = current[0];
    if (head && (head.workerId !== g.workerId || head.incarnation !== g.incarnation || current.length >= GAMES_PER_ENTRY || bytes >= ENTRY_BYTES)) {
      entries.push(current);
      current = [];
      bytes = 0;
    }
    current.push(g);
    bytes += g.bytes.byteLength;
  }
  if (current.length) entries.push(current);
  return entries;
}

/** A non-negative integer field as an entry holds it (1 to 15 decimal digits), or null. */
export function parseCount(text: string | undefined): number | null {
  return text !== undefined && /^\d{1,15}$/.test(text) ? Number(text) : null;
}

/**
 * The games of an entry's `s`, `v`, `l` and `b` fields, each record copied into its own buffer (reply
 * buffers may be views into the client's shared pool), or what is wrong with them.
 */
export function entryGames(seqs: string | undefined, versions: string | undefined, lengths: string | undefined, bytes: Buffer | undefined): EntryGame[] | string {
  if (seqs === undefined || versions === undefined || bytes === undefined) return 'missing or malformed fields';
  const numbers = (text: string): number[] | null => {
    const parts = text.split(',');
    if (parts.length > GAMES_PER_ENTRY * 64) return null;
    const values = parts.map(parseCount);
    return values.every((v) => v !== null) ? (values as number[]) : null;
  };
  const s = numbers(seqs);
  const v = numbers(versions);
  if (!s || !v || s.length !== v.length) return 'missing or malformed fields';
  const l = lengths === undefined ? (s.length === 1 ? [bytes.byteLength] : null) : numbers(lengths);
  if (!l || l.length !== s.length) return `${s.length} games but ${lengths === undefined ? 'no' : l ? l.length : 'malformed'} byte lengths`;
  const total = l.reduce((a, b) => a + b, 0);
  if (total !== bytes.byteLength) return `the byte lengths add up to ${total} but the records are ${bytes.byteLength} bytes`;
  const out: EntryGame[] = [];
  let offset = 0;
  for (let k = 0; k < s.length; k++) {
    out.push({ seq: s[k], version: v[k], bytes: new Uint8Array(bytes.subarray(offset, offset + l[k])) });
    offset += l[k];
  }
  return out;
}
