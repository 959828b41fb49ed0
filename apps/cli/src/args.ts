/**
 * Flag parsing for every command: declared flags only, typed and range-checked, with messages that
 * name the flag. Built on node:util parseArgs (strict), so an unknown flag is an error, not ignored.
 */
import { parseArgs } from 'node:util';

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

interface FlagBase {
  readonly description: string;
  readonly short?: string;
}
export interface IntFlag extends FlagBase {
  readonly type: 'int';
  readonly default?: number;
  readonly min?: number;
  readonly max?: number;
}
export interface NumberFlag extends FlagBase {
  readonly type: 'number';
  readonly default?: number;
  readonly min?: number;
  /** The value must be greater than 0 (a rate or a constant for which 0 means nothing). */
  readonly positive?: boolean;
  readonly max?: number;
}
export interface StringFlag extends FlagBase {
  readonly type: 'string';
  readonly default?: string;
  readonly placeholder?: string;
}
/** One of a fixed list of words; parsed as the union of `values` (declare them `as const`). */
export interface EnumFlag<V extends string = string> extends FlagBase {
  readonly type: 'enum';
  readonly values: readonly V[];
  readonly default?: V;
}
export interface BoolFlag extends FlagBase {
  readonly type: 'boolean';
}
export type FlagSpec = IntFlag | NumberFlag | StringFlag | EnumFlag | BoolFlag;
export type FlagSpecs = Readonly<Record<string, FlagSpec>>;

/** A flag's parsed type. An enum's is its values' union: `convert` refuses any other word, so no caller needs a cast. */
export type ValueOf<F extends FlagSpec> = F extends IntFlag | NumberFlag
  ? number
  : F extends BoolFlag
    ? boolean
    : F extends { readonly type: 'enum'; readonly values: readonly (infer V extends string)[] }
      ? V
      : string;
export type ParsedFlags<T extends FlagSpecs> = { [K in keyof T]: ValueOf<T[K]> | undefined } & { help: boolean };

export interface CommandSpec<T extends FlagSpecs> {
  readonly name: string;
  readonly summary: string;
  readonly usage: string;
  readonly flags: T;
  readonly examples?: readonly string[];
  /** Positional arguments allowed (e.g. `az new-game <name>`). */
  readonly positionals?: number;
}

/** Parses `argv` against a command's flags. Throws UsageError naming the bad flag or value. */
export function parseFlags<T extends FlagSpecs>(spec: CommandSpec<T>, argv: readonly string[]): { flags: ParsedFlags<T>; positionals: string[] } {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string }> = { help: { type: 'boolean', short: 'h' } };
  for (const [name, f] of Object.entries(spec.flags)) {
    options[name] = { type: f.type === 'boolean' ? 'boolean' : 'string', ...(f.short ? { short: f.short } : {}) };
  }
  let parsed: ReturnType<typeof parseArgs> & { tokens: readonly ParseToken[] };
  try {
    parsed = parseArgs({ args: joinNegativeNumbers(spec.flags, argv), options, strict: true, allowPositionals: true, tokens: true });
  } catch (err) {
    throw new UsageError(`az ${spec.name}: ${cleanParseError(err)}`);
  }
  refuseRepeatedValues(spec.name, parsed.tokens);
  const maxPositionals = spec.positionals ?? 0;
  if (parsed.positionals.length > maxPositionals) {
    throw new UsageError(`az ${spec.name}: unexpected argument '${parsed.positionals[maxPositionals]}'`);
  }
  const out: Record<string, unknown> = { help: parsed.values.help === true };
  for (const [name, f] of Object.entries(spec.flags)) {
    const raw = parsed.values[name];
    out[name] = raw === undefined ? ('default' in f ? f.default : undefined) : convert(spec.name, name, f, raw);
  }
  return { flags: out as ParsedFlags<T>, positionals: parsed.positionals };
}

/** What `refuseRepeatedValues` reads of parseArgs' tokens (options carry a name, and a value unless a switch). */
interface ParseToken {
  readonly kind: string;
  readonly name?: string;
  readonly value?: string | undefined;
}

/**
 * A flag given twice with different values (`--config a=1 --config b=2`): parseArgs keeps the last, so the
 * first would be dropped without a word. The same value twice, and a repeated switch, are harmless.
 */
function refuseRepeatedValues(command: string, tokens: readonly ParseToken[]): void {
  const seen = new Map<string, string>();
  for (const token of tokens) {
    if (token.kind !== 'option' || token.name === undefined || token.value === undefined) continue;
    const earlier = seen.get(token.name);
    if (earlier !== undefined && earlier !== token.value) {
      const hint = token.name === 'config' ? `; put every setting in one, --config ${earlier},${token.value}` : '; give it once';
      throw new UsageError(`az ${command}: --${token.name} was given more than once ('${earlier}' and '${token.value}')${hint}`);
    }
    seen.set(token.name, token.value);
  }
}

/**
 * `--sims -1` as `--sims=-1`: parseArgs takes a value starting with '-' for a flag (and calls it
 * ambiguous), so a negative number would never reach the check that names the flag's bounds. Any flag
 * that takes a value: no flag starts with '-' and a digit, so such a word is always a value.
 */
function joinNegativeNumbers(flags: FlagSpecs, argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const name = argv[i].startsWith('--') ? argv[i].slice(2) : undefined;
    const f = name !== undefined ? flags[name] : undefined;
    const next = argv[i + 1];
    if (f && f.type !== 'boolean' && next !== undefined && /^-(\d|\.\d)/.test(next)) {
      out.push(`${argv[i]}=${next}`);
      i++;
    } else out.push(argv[i]);
  }
  return out;
}

function cleanParseError(err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err);
  // node's messages end with advice about '--' that does not apply here.
  return msg.replace(/\. To specify a positional argument.*$/s, '').replace(/^Unknown option/, 'unknown flag');
}

function convert(command: string, name: string, f: FlagSpec, raw: string | boolean | (string | boolean)[]): unknown {
  const bad = (why: string): UsageError => new UsageError(`az ${command}: --${name} ${why} (got '${String(raw)}')`);
  if (Array.isArray(raw)) throw bad('was given more than once');
  if (f.type === 'boolean') return raw === true;
  const text = String(raw);
  switch (f.type) {
    case 'int':
    case 'number': {
      const n = text.trim() === '' ? NaN : Number(text);
      if (!Number.isFinite(n)) throw bad(`must be ${f.type === 'int' ? 'an integer' : 'a number'}`);
      if (f.type === 'int' && !Number.isInteger(n)) throw bad('must be an integer');
      if (f.min !== undefined && n < f.min) throw bad(`must be at least ${f.min}`);
      if (f.type === 'number' && f.positive && !(n > 0)) throw bad('must be greater than 0');
      if (f.max !== undefined && n > f.max) throw bad(`must be at most ${f.max}`);
      return n;
    }
    case 'enum':
      if (!f.values.includes(text)) throw bad(`must be one of ${f.values.join(', ')}`);
      return text;
    case 'string':
      if (text === '') throw bad('must not be empty');
      return text;
  }
}

/** The `--help` text of a command. */
export function helpText<T extends FlagSpecs>(spec: CommandSpec<T>): string {
  const rows: [string, string][] = Object.entries(spec.flags).map(([name, f]) => {
    const value = f.type === 'boolean' ? '' : f.type === 'enum' ? ` ${f.values.join('|')}` : f.type === 'string' ? ` ${f.placeholder ?? 'TEXT'}` : ' N';
    const def = 'default' in f && f.default !== undefined ? ` (default ${String(f.default)})` : '';
    return [`${f.short ? `-${f.short}, ` : ''}--${name}${value}`, `${f.description}${def}`];
  });
  rows.push(['-h, --help', 'show this help']);
  const width = Math.min(34, Math.max(...rows.map(([l]) => l.length)) + 2);
  const lines = [`${spec.summary}`, '', `Usage: ${spec.usage}`, '', 'Options:'];
  // A flag wider than the column gets its description on the next line, aligned with the others.
  for (const [left, right] of rows) lines.push(left.length + 2 > width ? `  ${left}\n  ${' '.repeat(width)}${right}` : `  ${left.padEnd(width)}${right}`);
  if (spec.examples?.length) {
    lines.push('', 'Examples:');
    for (const e of spec.examples) lines.push(`  ${e}`);
  }
  return lines.join('\n');
}
