/**
 * A private redis-server for integration tests and benchmarks: a free loopback port, a temporary
 * directory, and nothing else on the machine touched. Get the executable from realComponent('redis-server').
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** How {@link RedisServerProcess.start} runs the server. */
export interface RedisServerOptions {
  /** The redis-server executable (from realComponent). */
  readonly executable: string;
  /** Append-only file on (fsync every write): a restart loses nothing. Default false. */
  readonly appendonly?: boolean;
  /** ACL users as redis.conf `user` rules, e.g. 'worker on >secret ~az:* &az:* +@all'. */
  readonly users?: readonly string[];
  /** Listen with TLS only (no plain port), with this certificate; clients need no certificate of their own. */
  readonly tls?: TestCertificates;
}

/** PEM files of a throwaway CA and a server certificate it signed. */
export interface TestCertificates {
  /** The CA certificate clients trust. */
  readonly caFile: string;
  /** The server certificate, for 127.0.0.1 and localhost. */
  readonly certFile: string;
  /** The server certificate's private key. */
  readonly keyFile: string;
}

/**
 * A new CA and a server certificate for 127.0.0.1 / localhost signed by it, written into `dir` with the
 * openssl command line tool (P-256 keys: quick to make), valid for two days.
 */
export function createTestCertificates(openssl: string, dir: string, name = 'az-test'): TestCertificates {
  const file = (f: string): string => join(dir, `${name}-${f}`);
  const run = (args: string[]): void => {
    execFileSync(openssl, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  };
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  run(['req', '-x509', ...ec, '-keyout', file('ca.key'), '-out', file('ca.pem'), '-days', '2', '-subj', `/CN=${name} CA`]);
  run(['req', ...ec, '-keyout', file('server.key'), '-out', file('server.csr'), '-subj', '/CN=127.0.0.1']);
  writeFileSync(file('server.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n');
  run(['x509', '-req', '-in', file('server.csr'), '-CA', file('ca.pem'), '-CAkey', file('ca.key'), '-CAcreateserial', '-out', file('server.pem'), '-days', '2', '-extfile', file('server.ext')]);
  return { caFile: file('ca.pem'), certFile: file('server.pem'), keyFile: file('server.key') };
}

/** A free TCP port on 127.0.0.1 (bound and released; the OS does not hand it out again at once). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/**
 * A redis-server child process on its own port and directory, for tests that need a real Redis (the
 * trainer's distributed transport); `dispose` stops it and removes its directory.
 */
export class RedisServerProcess {
  private child: ChildProcess | null = null;
  private exited: Promise<void> | null = null;

  private constructor(
    private readonly options: RedisServerOptions,
    /** The loopback port it listens on. */
    readonly port: number,
    /** Its working directory (the append-only file lives here), deleted by `dispose`. */
    readonly dir: string,
  ) {}

  /** Picks a free port and a fresh directory, starts the server and resolves once it accepts connections. */
  static async start(options: RedisServerOptions): Promise<RedisServerProcess> {
    const server = new RedisServerProcess(options, await freePort(), mkdtempSync(join(tmpdir(), 'az-redis-')));
    await server.launch();
    return server;
  }

  /** redis://127.0.0.1:PORT/0 (rediss:// with TLS; or with `user:password@`). */
  url(auth?: string): string {
    return `${this.options.tls ? 'rediss' : 'redis'}://${auth ? `${auth}@` : ''}127.0.0.1:${this.port}/0`;
  }

  /** The server's process id while it runs, else undefined. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Starts the server and resolves once it accepts connections (its own log line says so). */
  async launch(): Promise<void> {
    if (this.child) throw new Error('redis-server is already running');
    const tls = this.options.tls;
    const listen = tls
      ? ['--port', '0', '--tls-port', String(this.port), '--tls-cert-file', tls.certFile, '--tls-key-file', tls.keyFile, '--tls-ca-cert-file', tls.caFile, '--tls-auth-clients', 'no']
      : ['--port', String(this.port)];
    const args = [...listen, '--bind', '127.0.0.1', '--dir', this.dir, '--save', '', '--daemonize', 'no', '--loglevel', 'notice', '--logfile', ''];
    if (this.options.appendonly) args.push('--appendonly', 'yes', '--appendfsync', 'always');
    for (const rule of this.options.users ?? []) args.push('--user', ...rule.split(' '));
    const child = spawn(this.options.executable, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    let output = '';
    await new Promise<void>((resolve, reject) => {
      const onData = (chunk: Buffer): void => {
        output += chunk.toString();
        if (output.includes('Ready to accept connections')) {
          child.stdout?.off('data', onData);
          resolve();
        }
      };
      child.stdout?.on('data', onData);
      child.stderr?.on('data', (c: Buffer) => (output += c.toString()));
      child.once('exit', (code) => reject(new Error(`redis-server exited (${code}) before it was ready:\n${output.slice(-2000)}`)));
    });
    // Keep draining its output so the pipe never fills.
    child.stdout?.resume();
  }

  /** Stops it (SIGTERM: the append-only file is flushed) and waits for the exit. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.child = null;
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await this.exited;
  }

  /** SIGKILL: the server dies with whatever it had not written. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.child = null;
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await this.exited;
  }

  /** Stops the server and deletes its directory. */
  async dispose(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
