/**
 * A private redis-server for integration tests and benchmarks: a free loopback port, a temporary
 * directory, and nothing else on the machine touched. Get the executable from realComponent('redis-server').
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface RedisServerOptions {
  /** The redis-server executable (from realComponent). */
  readonly executable: string;
  /** Append-only file on (fsync every write): a restart loses nothing. Default false. */
  readonly appendonly?: boolean;
  /** ACL users as redis.conf `user` rules, e.g. 'worker on >secret ~az:* &az:* +@all'. */
  readonly users?: readonly string[];
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

export class RedisServerProcess {
  private child: ChildProcess | null = null;
  private exited: Promise<void> | null = null;

  private constructor(
    private readonly options: RedisServerOptions,
    readonly port: number,
    readonly dir: string,
  ) {}

  static async start(options: RedisServerOptions): Promise<RedisServerProcess> {
    const server = new RedisServerProcess(options, await freePort(), mkdtempSync(join(tmpdir(), 'az-redis-')));
    await server.launch();
    return server;
  }

  /** redis://127.0.0.1:PORT/0 (or with `user:password@`). */
  url(auth?: string): string {
    return `redis://${auth ? `${auth}@` : ''}127.0.0.1:${this.port}/0`;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Starts the server and resolves once it accepts connections (its own log line says so). */
  async launch(): Promise<void> {
    if (this.child) throw new Error('redis-server is already running');
    const args = ['--port', String(this.port), '--bind', '127.0.0.1', '--dir', this.dir, '--save', '', '--daemonize', 'no', '--loglevel', 'notice', '--logfile', ''];
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
