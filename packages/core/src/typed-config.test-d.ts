// Type-level checks of configValues, run by `vitest --typecheck` (this package's test script).
import { describe, expectTypeOf, it } from 'vitest';
import { configValues, defineConfigSchema, type TypedConfig } from './typed-config.js';

const SCHEMA = defineConfigSchema({
  size: { type: 'int', default: 7, description: 'board size' },
  komi: { type: 'number', default: 0.5, description: 'points for the second player' },
  pass: { type: 'boolean', default: true, description: 'whether passing is allowed' },
  rules: { type: 'enum', values: ['simple', 'full'], default: 'simple', description: 'rule set' },
  name: { type: 'string', default: '', description: 'a label' },
});

describe('TypedConfig', () => {
  it('gives each field the type its schema declares', () => {
    const values = configValues(SCHEMA, {});
    expectTypeOf(values.size).toEqualTypeOf<number>();
    expectTypeOf(values.komi).toEqualTypeOf<number>();
    expectTypeOf(values.pass).toEqualTypeOf<boolean>();
    expectTypeOf(values.rules).toEqualTypeOf<'simple' | 'full'>();
    expectTypeOf(values.name).toEqualTypeOf<string>();
    expectTypeOf<keyof TypedConfig<typeof SCHEMA>>().toEqualTypeOf<'size' | 'komi' | 'pass' | 'rules' | 'name'>();
  });
});
