/**
 * A tiny schema for game configs. Values arrive from code or from the command line (strings), are
 * coerced to the declared type, range-checked, and unknown or bad fields are rejected with an error
 * that names the field. Kept in core (no schema library) because every game and the CLI share it.
 */
/** One setting's value. */
export type ConfigValue = number | boolean | string;
/** A validated config: every field of the schema present, with its value or default. */
export type ResolvedConfig = Readonly<Record<string, ConfigValue>>;

/** What every kind of field has. */
interface FieldBase {
  /** One line for people (`--help`, `az games`): what the setting changes. */
  readonly description: string;
  /** A name for people (`az serve`'s settings form: 'Largest hand'); the key stays what --config takes. */
  readonly label?: string;
  /**
   * True for a setting a trained network does not depend on (e.g. chess's starting position): a model
   * trained with one value may play with another. Other settings must match the model's training config.
   */
  readonly modelIndependent?: boolean;
  /**
   * True for a setting of the network's input alone, which the rules never read (e.g. chess's `history`,
   * the past positions in the input planes): a model must be played with its own value, and any value
   * plays the same game, so a model found for a game (`az play` without `--model`) may have any value the
   * user did not ask for.
   */
  readonly inputOnly?: boolean;
}
/** A whole number, optionally within bounds. */
export interface IntField extends FieldBase {
  /** Marks an integer field. */
  readonly type: 'int';
  /** The value when none is given. */
  readonly default: number;
  /** The smallest value accepted (inclusive). */
  readonly min?: number;
  /** The largest value accepted (inclusive). */
  readonly max?: number;
}
/** A finite number, optionally within bounds. */
export interface NumberField extends FieldBase {
  /** Marks a number field. */
  readonly type: 'number';
  /** The value when none is given. */
  readonly default: number;
  /** The smallest value accepted (inclusive). */
  readonly min?: number;
  /** The largest value accepted (inclusive). */
  readonly max?: number;
}
/** On or off; from the command line `true`/`false` or `1`/`0`. */
export interface BooleanField extends FieldBase {
  /** Marks a boolean field. */
  readonly type: 'boolean';
  /** The value when none is given. */
  readonly default: boolean;
}
/** One of a fixed list of words. */
export interface EnumField extends FieldBase {
  /** Marks an enum field. */
  readonly type: 'enum';
  /** The words accepted. */
  readonly values: readonly string[];
  /** The value when none is given: one of `values`. */
  readonly default: string;
  /** Names for people of some or all `values` ('turned-up' -> 'Turned-up card'), for a settings form. */
  readonly valueLabels?: Readonly<Record<string, string>>;
}
/** Any text. */
export interface StringField extends FieldBase {
  /** Marks a string field. */
  readonly type: 'string';
  /** The value when none is given. */
  readonly default: string;
}
/** One setting of a schema, by its `type`. */
export type ConfigField = IntField | NumberField | BooleanField | EnumField | StringField;
/** A game's settings by key (the key is what `--config key=value` names). */
export type ConfigSchema = Readonly<Record<string, ConfigField>>;

/** A config (or flag) value that is missing, unknown or out of range. `field` names it. */
export class ConfigError extends Error {
  constructor(
    /** The field (or flag) at fault, so a caller can point at it. */
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = 'ConfigError';
  }
}

/**
 * `record[key]` when `key` is the record's own property, else undefined. For lookups by a name a user
 * typed (a config field, an agent, a bot): a plain `record[key]` or `key in record` also finds what
 * every object inherits (`constructor`, `toString`, `__proto__`), which no table means to offer.
 */
export function ownValue<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/**
 * Validates `raw` against `schema`: fills defaults, coerces strings ("5", "true"), checks ranges and
 * enum members, and rejects fields the schema does not know. `context` prefixes messages
 * (e.g. "game 'blob'").
 */
export function validateConfig(
  schema: ConfigSchema,
  raw: Readonly<Record<string, unknown>> = {},
  context = 'config',
): Record<string, ConfigValue> {
  const out: Record<string, ConfigValue> = {};
  for (const key of Object.keys(raw)) {
    if (!Object.hasOwn(schema, key)) {
      const known = Object.keys(schema);
      throw new ConfigError(
        key,
        `${context}: unknown field '${key}'` + (known.length ? ` (known fields: ${known.join(', ')})` : ' (it takes no fields)'),
      );
    }
  }
  for (const [key, field] of Object.entries(schema)) {
    const value = ownValue(raw, key);
    out[key] = value === undefined ? field.default : coerceField(key, field, value, context);
  }
  return out;
}

function coerceField(key: string, field: ConfigField, value: unknown, context: string): ConfigValue {
  const bad = (why: string): ConfigError => new ConfigError(key, `${context}: field '${key}' ${why} (got ${JSON.stringify(value)})`);
  switch (field.type) {
    case 'int':
    case 'number': {
      const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
      if (typeof n !== 'number' || !Number.isFinite(n)) throw bad(`must be ${field.type === 'int' ? 'an integer' : 'a number'}`);
      if (field.type === 'int' && !Number.isInteger(n)) throw bad('must be an integer');
      if (field.min !== undefined && n < field.min) throw bad(`must be >= ${field.min}`);
      if (field.max !== undefined && n > field.max) throw bad(`must be <= ${field.max}`);
      return n;
    }
    case 'boolean': {
      if (typeof value === 'boolean') return value;
      if (value === 'true' || value === '1') return true;
      if (value === 'false' || value === '0') return false;
      throw bad('must be true or false');
    }
    case 'enum': {
      if (typeof value !== 'string' || !field.values.includes(value)) throw bad(`must be one of ${field.values.join(', ')}`);
      return value;
    }
    case 'string': {
      if (typeof value !== 'string') throw bad('must be a string');
      return value;
    }
  }
}

/**
 * Parses `key=value,key=value` (the CLI's `--config`) into a raw object for `validateConfig`. A key given
 * twice with different values is refused (which one was meant cannot be known); the same value twice is
 * harmless.
 */
export function parseConfigAssignments(text: string): Record<string, string> {
  const out = new Map<string, string>();
  for (const part of text.split(',')) {
    const trimmed = part.trim();
    if (!trimmed) continue;
    const eq = trimmed.indexOf('=');
    if (eq <= 0) throw new ConfigError(trimmed, `config: expected key=value, got '${trimmed}'`);
    const key = trimmed.slice(0, eq).trim();
    const value = trimmed.slice(eq + 1).trim();
    const earlier = out.get(key);
    if (earlier !== undefined && earlier !== value) {
      throw new ConfigError(key, `config: ${key} is given twice, ${key}=${earlier} and ${key}=${value}; give it once`);
    }
    out.set(key, value);
  }
  // fromEntries defines own properties: `__proto__=1` stays a key (for validateConfig to refuse) instead of
  // an assignment to the object's prototype, which would drop it without a word.
  return Object.fromEntries(out);
}

/** One line per field, for `--help` and `az games`. */
export function describeSchema(schema: ConfigSchema): string[] {
  return Object.entries(schema).map(([key, f]) => {
    let kind: string = f.type;
    if (f.type === 'enum') kind = f.values.join('|');
    else if ((f.type === 'int' || f.type === 'number') && (f.min !== undefined || f.max !== undefined)) {
      kind = `${f.type} ${f.min ?? ''}..${f.max ?? ''}`;
    }
    return `${key} (${kind}, default ${String(f.default)}): ${f.description}`;
  });
}
