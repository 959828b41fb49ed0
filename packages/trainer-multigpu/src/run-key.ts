/**
 * The run key of a Redis run: a secret the learner and its workers share. The learner signs what workers
 * play (the run's setup, each weights version) and workers sign what the learner takes in (their stream
 * entries of games, their heartbeats), with HMAC-SHA256. Someone who may write to the run's Redis keys but
 * does not hold the key can then no longer make workers play forged weights, nor the learner train on
 * forged games or show forged machines (docs/distributed.md, "What is trusted").
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The environment variable holding the key itself, for `az train --transport` and `az worker` without --run-key-file. */
export const RUN_KEY_ENV = 'AZ_RUN_KEY';
/** Where the learner keeps a key it made, in its run directory (mode 0600). */
export const RUN_KEY_FILE = 'run.key';
/** Shorter keys are refused: a generated key is 64 hex characters (32 random bytes). */
const MIN_KEY_CHARS = 32;

export class RunKeyError extends Error {}

/** A run key and where it came from (for messages; a message never shows the key itself). */
export interface RunKey {
  readonly secret: Uint8Array;
  /** `--run-key-file FILE` or `AZ_RUN_KEY`. */
  readonly source: string;
  /** The file it was read from, when it came from one. */
  readonly file?: string;
}

function keyFrom(text: string, source: string, file?: string): RunKey {
  const key = text.trim();
  if (key.length < MIN_KEY_CHARS) throw new RunKeyError(`${source}: a run key must be at least ${MIN_KEY_CHARS} characters (this one has ${key.length}); make one with: openssl rand -hex 32`);
  return { secret: Buffer.from(key, 'utf8'), source, file };
}

/** The key in `file` (surrounding white space ignored). */
export function readRunKeyFile(file: string, source = `--run-key-file ${file}`): RunKey {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new RunKeyError(`${source}: cannot read the run key (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  return keyFrom(text, source, file);
}

/** The key from `--run-key-file FILE` (when given), else from $AZ_RUN_KEY, else undefined. */
export function readRunKey(file: string | undefined, env: NodeJS.ProcessEnv = process.env): RunKey | undefined {
  if (file !== undefined) return readRunKeyFile(file);
  const text = env[RUN_KEY_ENV];
  return text ? keyFrom(text, RUN_KEY_ENV) : undefined;
}

/**
 * The key of run directory `dir` (its RUN_KEY_FILE), made when there is none yet: 32 random bytes as hex,
 * readable by the owner only. `created` says whether it was made now (the learner then says how to hand it
 * to workers).
 */
export function runDirectoryKey(dir: string): { readonly key: RunKey; readonly created: boolean } {
  const file = join(dir, RUN_KEY_FILE);
  let created = true;
  try {
    writeFileSync(file, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw new RunKeyError(`cannot write the run key ${file} (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
    created = false;
  }
  return { key: readRunKeyFile(file, file), created };
}

/** What is signed: each kind of message has its own signatures, so one can never pass for another. */
export type SignedKind = 'setup' | 'weights' | 'heartbeat' | 'games';

/**
 * HMAC-SHA256 under the run key over the kind of message, the run's name and the message's parts, each
 * length-prefixed (no two different messages sign alike), so a signature of one run or kind is worthless
 * for another. Signatures are 64 hex characters.
 */
export class RunSigner {
  constructor(
    private readonly secret: Uint8Array,
    private readonly run: string,
  ) {}

  sign(kind: SignedKind, ...parts: readonly (string | Uint8Array)[]): string {
    const mac = createHmac('sha256', this.secret);
    for (const part of [kind, this.run, ...parts]) {
      const bytes = typeof part === 'string' ? Buffer.from(part, 'utf8') : part;
      const length = Buffer.alloc(4);
      length.writeUInt32BE(bytes.byteLength);
      mac.update(length).update(bytes);
    }
    return mac.digest('hex');
  }

  /** True when `signature` is this key's for the message (compared in constant time). */
  verify(signature: string | undefined, kind: SignedKind, ...parts: readonly (string | Uint8Array)[]): boolean {
    if (signature === undefined || !/^[0-9a-f]{64}$/.test(signature)) return false;
    return timingSafeEqual(Buffer.from(this.sign(kind, ...parts), 'hex'), Buffer.from(signature, 'hex'));
  }

  /** `<signature> <text>`: a signed string value (the setup, a heartbeat). */
  seal(kind: SignedKind, text: string, ...context: readonly string[]): string {
    return `${this.sign(kind, ...context, text)} ${text}`;
  }

  /** The text of a value `seal` made with this key, or undefined when it is unsigned or signed otherwise. */
  open(kind: SignedKind, value: string, ...context: readonly string[]): string | undefined {
    const space = value.indexOf(' ');
    if (space !== 64) return undefined;
    const text = value.slice(65);
    return this.verify(value.slice(0, 64), kind, ...context, text) ? text : undefined;
  }
}
