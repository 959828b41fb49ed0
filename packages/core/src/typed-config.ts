/**
 * A game's validated config read as the types its schema declares, so a plugin writes
 * `configValues(SCHEMA, config).size` (a number) instead of `Number(config.size ?? 7)`.
 */
import { ConfigError, type BooleanField, type ConfigField, type ConfigSchema, type EnumField, type IntField, type NumberField, type ResolvedConfig } from './config.js';

/** The TypeScript type of one field's value: an enum's member names, a boolean, a number or a string. */
export type ConfigFieldValue<F extends ConfigField> = F extends EnumField
  ? F['values'][number]
  : F extends BooleanField
    ? boolean
    : F extends IntField | NumberField
      ? number
      : string;

/** Every field of a schema with its value's type. */
export type TypedConfig<S extends ConfigSchema> = { readonly [K in keyof S]: ConfigFieldValue<S[K]> };

/**
 * The schema as written, its literal types kept (an enum's `values` become a union of their names), for
 * `TypedConfig` and `configValues`. The same object at run time.
 */
export function defineConfigSchema<const S extends ConfigSchema>(schema: S): S {
  return schema;
}

const RUNTIME_TYPE: Readonly<Record<ConfigField['type'], 'number' | 'boolean' | 'string'>> = {
  int: 'number',
  number: 'number',
  boolean: 'boolean',
  enum: 'string',
  string: 'string',
};

/**
 * `config` (as `create` receives it: validated against `schema`, defaults filled) as typed values. A
 * field the config lacks takes the schema's default; a value of the wrong type throws a ConfigError
 * naming the field, since it means the config was not validated against this schema.
 */
export function configValues<S extends ConfigSchema>(schema: S, config: ResolvedConfig): TypedConfig<S> {
  const out: Record<string, ConfigFieldValue<ConfigField>> = {};
  for (const key of Object.keys(schema)) {
    const field = schema[key];
    const value = Object.hasOwn(config, key) ? config[key] : field.default;
    if (typeof value !== RUNTIME_TYPE[field.type] || (field.type === 'int' && !Number.isInteger(value))) {
      throw new ConfigError(key, `config field '${key}' should be ${field.type === 'enum' ? 'one of ' + field.values.join(', ') : `a${field.type === 'int' ? 'n' : ''} ${field.type}`}, got ${JSON.stringify(value)}: was the config validated against this schema?`);
    }
    out[key] = value;
  }
  return out as TypedConfig<S>;
}
