import { afterEach, describe, expect, expectTypeOf, it, vi } from 'vitest';
import type { BackendChoice } from '@az/nn';
import { parseFlags, UsageError } from './args.js';
import { arenaAgentFlags } from './commands/arena-flags.js';
import { evalCommand, evalSpec } from './commands/eval.js';
import { rateCommand, rateSpec } from './commands/rate.js';

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

describe('az eval and az rate', () => {
  const printed: string[] = [];
  afterEach(() => {
    vi.restoreAllMocks();
    printed.length = 0;
  });

  /** `--help`'s options, flag name -> its description with the whitespace of the layout collapsed. */
  async function helpOptions(command: (argv: readonly string[]) => Promise<number>): Promise<Map<string, string>> {
    vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void printed.push(args.join(' ')));
    expect(await command(['--help'])).toBe(0);
    const text = printed.join('\n');
    printed.length = 0;
    const options = text.slice(text.indexOf('Options:') + 'Options:'.length, text.includes('Examples:') ? text.indexOf('Examples:') : undefined);
    const out = new Map<string, string>();
    for (const entry of options.split(/\n(?= {2}(?:-\w, )?--)/)) {
      const m = /^\s*(?:-\w, )?--([\w-]+)(.*)$/s.exec(entry);
      if (m) out.set(m[1], m[2].replace(/\s+/g, ' ').trim());
    }
    return out;
  }

  it('print the shared search, network and record flags with the same words in --help', async () => {
    const evalHelp = await helpOptions(evalCommand);
    const rateHelp = await helpOptions(rateCommand);
    const shared = Object.keys(arenaAgentFlags);
    expect(shared).toEqual(expect.arrayContaining(['sims', 'backend', 'threads', 'seed', 'config', 'opening-plies', 'pgn']));
    for (const name of shared) {
      expect(evalHelp.get(name), `az eval --help: --${name}`).toBeDefined();
      expect(rateHelp.get(name), `az rate --help: --${name}`).toBe(evalHelp.get(name));
    }
    // Both specs hold the group itself, not copies that could drift.
    for (const name of shared) expect(evalSpec.flags[name as keyof typeof arenaAgentFlags]).toBe(rateSpec.flags[name as keyof typeof arenaAgentFlags]);
  });
});
