import { describe, expect, it } from 'vitest';
import { ConfigError, validateConfig } from './config.js';
import { configValues, defineConfigSchema } from './typed-config.js';

const SCHEMA = defineConfigSchema({
  size: { type: 'int', default: 7, min: 3, max: 19, description: 'board size' },
  komi: { type: 'number', default: 0.5, description: 'points for the second player' },
  pass: { type: 'boolean', default: true, description: 'whether passing is allowed' },
  rules: { type: 'enum', values: ['simple', 'full'], default: 'simple', description: 'rule set' },
});

describe('configValues', () => {
  it('reads a validated config as the types the schema declares', () => {
    const values = configValues(SCHEMA, validateConfig(SCHEMA, { size: '9', rules: 'full' }));
    expect(values).toEqual({ size: 9, komi: 0.5, pass: true, rules: 'full' });
  });

  it("fills a field the config lacks with the schema's default, and refuses a value of the wrong type by name", () => {
    expect(configValues(SCHEMA, { size: 5 }).komi).toBe(0.5);
    expect(() => configValues(SCHEMA, { size: '9' })).toThrow(ConfigError);
    expect(() => configValues(SCHEMA, { size: 9.5 })).toThrow(/config field 'size' should be an int, got 9.5/);
  });

  it('reads only the schema\'s own fields, never inherited names', () => {
    const values = configValues(SCHEMA, Object.create({ size: 11 }) as Record<string, number>);
    expect(values.size).toBe(7);
  });
});
