import { describe, expect, expectTypeOf, it } from 'vitest';
import type { BackendChoice } from '@az/nn';
import { parseFlags, UsageError } from './args.js';
import { evalSpec } from './commands/eval.js';

const spec = {
  name: 'demo',
  summary: 'demo',
  usage: 'az demo',
  flags: {
    mode: { type: 'enum', values: ['fast', 'slow'], default: 'fast', description: 'how' },
    side: { type: 'enum', values: ['left', 'right'], description: 'where' },
    n: { type: 'int', min: 1, description: 'how many' },
  },
} as const;

describe('enum flags', () => {
  it("parse to their values' union, so callers need no cast (checked by npm run typecheck)", () => {
    const { flags } = parseFlags(spec, ['--side', 'right']);
    expectTypeOf(flags.mode).toEqualTypeOf<'fast' | 'slow' | undefined>();
    expectTypeOf(flags.side).toEqualTypeOf<'left' | 'right' | undefined>();
    expectTypeOf(flags.n).toEqualTypeOf<number | undefined>();
    expect(flags).toMatchObject({ mode: 'fast', side: 'right', n: undefined });
    // A list typed as a union (BACKEND_CHOICES) gives that union.
    const { flags: evalFlags } = parseFlags(evalSpec, []);
    expectTypeOf(evalFlags.backend).toEqualTypeOf<BackendChoice | undefined>();
    expectTypeOf(evalFlags['leaf-values']).toEqualTypeOf<'playouts' | 'world' | 'policy-playouts' | undefined>();
  });

  it('refuse a word outside the list, naming the flag and the list (the check that makes the type honest)', () => {
    expect(() => parseFlags(spec, ['--side', 'up'])).toThrow(UsageError);
    expect(() => parseFlags(spec, ['--side', 'up'])).toThrow("az demo: --side must be one of left, right (got 'up')");
  });
});
