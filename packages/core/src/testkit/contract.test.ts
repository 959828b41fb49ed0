// The test-kit must pass a correct game and catch each kind of broken one, naming the check.
import { describe, expect, it } from 'vitest';
import type { Game } from '../game.js';
import { GAME_CONTRACT_VERSION, type GamePlugin } from '../plugin.js';
import type { GameView, GridView } from '../views.js';
import type { Rng } from '../rng.js';
import { ContractViolation, testGameContract, type ContractCheck, type GameContractOptions } from './contract.js';

/** Nim: take 1-3 stones, taking the last wins. `secret` is hidden information nobody acts on. */
interface Nim {
  stones: number;
  toMove: number;
  secret: number[];
}

/**
 * Views with the optional fields: 'button' offers "take 3" as a named button rather than a cell,
 * 'button-and-target' offers it both ways, 'custom-grid' / 'custom-text' are a kind of the game's own
 * with / without the grid fields, 'custom-half-grid' has some grid fields only; 'names' and 'labels'
 * carry seat names and coordinates, the '-short' ones one too few.
 */
type NamedView = 'button' | 'button-and-target' | 'custom-grid' | 'custom-text' | 'custom-illegal-button' | 'custom-half-grid' | 'names' | 'names-short' | 'labels' | 'labels-short';

type Tweak = Partial<{
  maskAllowsFour: boolean;
  leaveEncodingUnwritten: boolean;
  shareSecretOnClone: boolean;
  encodeSecret: boolean;
  neverEnds: boolean;
  returnsOutOfRange: boolean;
  /** Adds estimateReturns; 'right' is in range, 'out-of-range' is not. */
  estimate: 'right' | 'out-of-range';
  /** Adds a legalActions list; 'right' agrees with the mask, the others break it. */
  legalList: 'right' | 'missing-one' | 'duplicate';
  /** Adds a grid view (one row of 7 cells, a stone per cell left); the others break it. */
  view: 'right' | 'extra-target' | 'typed-array' | 'short-grid' | 'shows-secret' | NamedView;
}>;

function nimPlugin(tweak: Tweak = {}, information: 'perfect' | 'imperfect' = 'perfect'): GamePlugin<Nim> {
  const start = 7;
  const traits = {
    id: 'nim',
    name: 'Nim',
    description: 'take 1-3 stones',
    minPlayers: 2,
    maxPlayers: 2,
    information,
    chance: true,
    rewards: 'zero-sum',
    maxGameLength: start,
  } as const;
  const game: Game<Nim> = {
    traits,
    config: {},
    numPlayers: 2,
    maxGameLength: start,
    encoder: {
      version: 'nim-1',
      shape: [start + 2],
      size: start + 2,
      encode(s, perspective, out, offset) {
        for (let i = 0; i <= start; i++) out[offset + i] = s.stones === i ? 1 : 0;
        out[offset + start + 1] = tweak.encodeSecret ? s.secret[0] : s.toMove === perspective ? 1 : 0;
        if (tweak.leaveEncodingUnwritten) out[offset] = Number.NaN;
      },
    },
    masker: {
      actionSize: 3,
      fillMask(s, out, offset = 0) {
        let n = 0;
        for (let a = 0; a < 3; a++) n += out[offset + a] = a + 1 <= s.stones ? 1 : 0;
        if (tweak.maskAllowsFour && s.stones === 2) {
          // claims "take 3" is legal with 2 left
          out[offset + 2] = 1;
          n++;
        }
        return n;
      },
      ...(tweak.legalList
        ? {
            legalActions(s: Nim): ArrayLike<number> {
              const list: number[] = [];
              for (let a = 0; a < 3; a++) if (a + 1 <= s.stones) list.push(a);
              if (tweak.legalList === 'missing-one' && s.stones === 2) list.pop();
              if (tweak.legalList === 'duplicate' && s.stones === 2) list[1] = 0;
              return list.reverse();
            },
          }
        : {}),
    },
    initialState: (rng: Rng) => ({ stones: start, toMove: 0, secret: [rng.int(100)] }),
    currentPlayer: (s) => s.toMove,
    applyAction(s, a, rng) {
      if (!(Number.isInteger(a) && a >= 0 && a < 3 && a + 1 <= s.stones)) throw new Error(`cannot take ${a + 1}`);
      s.stones -= tweak.neverEnds && s.stones === 1 ? 0 : a + 1;
      s.toMove = 1 - s.toMove;
      s.secret[0] = rng.int(100);
    },
    isTerminal: (s) => s.stones === 0,
    returns(s) {
      const r = new Float32Array(2);
      if (s.stones === 0) {
        r[1 - s.toMove] = tweak.returnsOutOfRange ? 2 : 1;
        r[s.toMove] = -1;
      }
      return r;
    },
    clone: (s) => ({ stones: s.stones, toMove: s.toMove, secret: tweak.shareSecretOnClone ? s.secret : [...s.secret] }),
    hash: (s) => `${s.stones}/${s.toMove}/${s.secret[0]}`,
    render: (s) => `${s.stones} stones`,
    formatAction: (_s, a) => `take${a + 1}`,
    parseAction(s, text) {
      const m = /^take([123])$/.exec(text.trim());
      if (!m || Number(m[1]) > s.stones) return { ok: false, error: 'no' };
      return { ok: true, action: Number(m[1]) - 1 };
    },
    informationState: (s, seat) => ({ stones: s.stones, toMove: s.toMove, seat }),
    ...(tweak.view
      ? {
          view(s: Nim): GameView {
            const cells: (GridView['cells'][number])[] = Array.from({ length: tweak.view === 'short-grid' ? start - 1 : start }, (_, i) => (i < s.stones ? { seat: 0, label: 'o' } : null));
            const targets = [0, 1, 2].filter((a) => a + 1 <= s.stones).map((a) => ({ action: a, cell: s.stones - 1 - a }));
            if (tweak.view === 'extra-target' && s.stones === 2) targets.push({ action: 2, cell: 0 });
            if (tweak.view === 'shows-secret') cells[start - 1] = { seat: 1, label: String(s.secret[0]) };
            const view = { kind: 'grid' as const, rows: 1, cols: start, cells, targets };
            if (tweak.view === 'typed-array') return { ...view, highlight: Int32Array.of(0) as unknown as number[] };
            const takeThree = s.stones >= 3 ? [{ action: 2, label: 'take all three' }] : [];
            const cellsOnly = targets.filter((t) => t.action !== 2);
            switch (tweak.view) {
              case 'button':
                return { ...view, targets: cellsOnly, actions: takeThree };
              case 'button-and-target':
                return { ...view, actions: takeThree };
              case 'custom-grid':
                return { ...view, kind: 'custom:nim-row', targets: cellsOnly, actions: takeThree, data: { stones: s.stones } };
              case 'custom-text':
                return { kind: 'custom:nim-row', lines: [`${s.stones} stones`], actions: takeThree };
              case 'custom-illegal-button':
                return { kind: 'custom:nim-row', lines: [`${s.stones} stones`], actions: s.stones === 2 ? [{ action: 2, label: 'take all three' }] : [] };
              case 'custom-half-grid':
                return { kind: 'custom:nim-row', rows: 1, cols: start } as unknown as GameView;
              case 'names':
              case 'names-short':
                return { ...view, seatNames: tweak.view === 'names' ? ['First', 'Second'] : ['First'] };
              case 'labels':
              case 'labels-short':
                return { ...view, columnLabels: ['a', 'b', 'c', 'd', 'e', 'f', 'g'].slice(0, tweak.view === 'labels' ? 7 : 6), rowLabels: ['1'] };
              default:
                return view;
            }
          },
        }
      : {}),
    ...(tweak.estimate
      ? {
          // The mover wins Nim when the stones left are not a multiple of 4.
          estimateReturns(s: Nim): Float32Array {
            const r = new Float32Array(2);
            r[s.toMove] = (tweak.estimate === 'right' ? 0.5 : 3) * (s.stones % 4 === 0 ? -1 : 1);
            r[1 - s.toMove] = -r[s.toMove];
            return r;
          },
        }
      : {}),
  };
  return { contractVersion: GAME_CONTRACT_VERSION, traits, configSchema: {}, create: () => game };
}

const resampleHidden: GameContractOptions<Nim>['resampleHidden'] = (s, _seat, rng) => ({ ...s, secret: [rng.int(100)] });

async function violation(plugin: GamePlugin<Nim>, options: GameContractOptions<Nim> = {}): Promise<ContractViolation> {
  try {
    await testGameContract(plugin, { playouts: 8, ...options });
  } catch (err) {
    if (err instanceof ContractViolation) return err;
    throw err;
  }
  throw new Error('expected a contract violation');
}

describe('testGameContract', () => {
  it('passes a correct game and reports what it checked', async () => {
    const report = await testGameContract(nimPlugin(), { playouts: 8 });
    expect(report.gameId).toBe('nim');
    expect(report.skipped).toEqual([]);
    expect(report.longestGame).toBeLessThanOrEqual(7);
    for (const check of ['plugin', 'mask', 'mask-matches-apply', 'encoding', 'clone', 'determinism', 'returns', 'notation'] as ContractCheck[]) {
      expect(report.checks[check], check).toBeGreaterThan(0);
    }
  });

  it('names the broken promise, the seed and the move', async () => {
    const cases: [Tweak, ContractCheck][] = [
      [{ maskAllowsFour: true }, 'mask-matches-apply'],
      [{ leaveEncodingUnwritten: true }, 'encoding'],
      [{ shareSecretOnClone: true }, 'clone'],
      [{ neverEnds: true }, 'playout'],
      [{ returnsOutOfRange: true }, 'returns'],
    ];
    for (const [tweak, check] of cases) {
      const v = await violation(nimPlugin(tweak));
      expect(v.check, JSON.stringify(tweak)).toBe(check);
      expect(v.message).toMatch(/^\[nim\] /);
    }
    const v = await violation(nimPlugin({ maskAllowsFour: true }));
    expect(v.seed).toBeTypeOf('number');
    expect(v.message).toMatch(/legal action 2|marked legal/);
  });

  it('checks the optional estimateReturns like returns', async () => {
    await testGameContract(nimPlugin({ estimate: 'right' }), { playouts: 8 });
    const v = await violation(nimPlugin({ estimate: 'out-of-range' }));
    expect(v.check).toBe('returns');
    expect(v.message).toMatch(/estimateReturns gave seat [01] -?3, not a number in \[-1, 1\]/);
  });

  it('checks the optional view: plain JSON, a whole grid, and exactly the legal actions as targets', async () => {
    const report = await testGameContract(nimPlugin({ view: 'right' }), { playouts: 8 });
    expect(report.checks.view).toBeGreaterThan(0);
    expect((await testGameContract(nimPlugin(), { playouts: 8 })).checks.view).toBe(0);
    const extra = await violation(nimPlugin({ view: 'extra-target' }));
    expect(extra.check).toBe('view');
    expect(extra.message).toMatch(/offers actions \[0, 1, 2\] but the legal actions are \[0, 1\]/);
    expect((await violation(nimPlugin({ view: 'typed-array' }))).message).toMatch(/not plain JSON/);
    expect((await violation(nimPlugin({ view: 'short-grid' }))).message).toMatch(/grid view of 1 x 7 has 6 cells/);
  });

  it('counts named actions (a pass) among the legal actions a view offers, and each legal action once', async () => {
    expect((await testGameContract(nimPlugin({ view: 'button' }), { playouts: 8 })).checks.view).toBeGreaterThan(0);
    const twice = await violation(nimPlugin({ view: 'button-and-target' }));
    expect(twice.check).toBe('view');
    expect(twice.message).toMatch(/offers actions \[0, 1, 2, 2\] but the legal actions are \[0, 1, 2\]/);
  });

  it("accepts a plugin's own view kind, drawn as a grid when it carries one, and checks what it carries", async () => {
    expect((await testGameContract(nimPlugin({ view: 'custom-grid' }), { playouts: 8 })).checks.view).toBeGreaterThan(0);
    expect((await testGameContract(nimPlugin({ view: 'custom-text' }), { playouts: 8 })).checks.view).toBeGreaterThan(0);
    const half = await violation(nimPlugin({ view: 'custom-half-grid' }));
    expect(half.message).toMatch(/of kind custom:nim-row has rows, cols but not cells, targets: a view drawn as a grid needs all of rows, cols, cells, targets/);
    expect((await violation(nimPlugin({ view: 'custom-illegal-button' }))).message).toMatch(/names actions \[2\] of which \[2\] are not legal/);
  });

  it('checks seat names and board coordinates: one per seat, row and column', async () => {
    expect((await testGameContract(nimPlugin({ view: 'names' }), { playouts: 8 })).checks.view).toBeGreaterThan(0);
    expect((await testGameContract(nimPlugin({ view: 'labels' }), { playouts: 8 })).checks.view).toBeGreaterThan(0);
    expect((await violation(nimPlugin({ view: 'names-short' }))).message).toMatch(/seatNames must name each of the 2 seats, got \["First"\]/);
    expect((await violation(nimPlugin({ view: 'labels-short' }))).message).toMatch(/a grid of 7 columns has 6 column labels/);
  });

  it("checks a masker's optional legalActions list against its mask", async () => {
    const report = await testGameContract(nimPlugin({ legalList: 'right' }), { playouts: 8 });
    expect(report.checks.mask).toBeGreaterThan(0);
    const missing = await violation(nimPlugin({ legalList: 'missing-one' }));
    expect(missing.check).toBe('mask');
    expect(missing.message).toMatch(/legalActions listed 1 actions but fillMask marked 2/);
    const duplicate = await violation(nimPlugin({ legalList: 'duplicate' }));
    expect(duplicate.check).toBe('mask');
    expect(duplicate.message).toMatch(/legalActions lists 0, which fillMask does not mark legal \(or lists it twice\)/);
  });

  it('refuses a plugin built for another contract version, saying which', async () => {
    const v = await violation({ ...nimPlugin(), contractVersion: GAME_CONTRACT_VERSION + 1 });
    expect(v.check).toBe('plugin');
    expect(v.message).toContain(`built for game contract version ${GAME_CONTRACT_VERSION + 1}`);
    expect(v.message).toContain(`implements version ${GAME_CONTRACT_VERSION}`);
  });

  it('checks declared symmetries against mapped replays', async () => {
    const withSymmetry = (actionMap: number[], inputMap: number[]): GamePlugin<Nim> => {
      const plugin = nimPlugin({}, 'perfect');
      const traits = { ...plugin.traits, chance: false };
      const symmetries = [{ actionMap: Int32Array.from(actionMap), inputMap: Int32Array.from(inputMap) }];
      return { ...plugin, traits, create: (c) => ({ ...plugin.create(c), traits, symmetries }) };
    };
    const identity = Array.from({ length: 9 }, (_, i) => i);
    // "take 1" and "take 2" are not interchangeable, so replays with them swapped reach other positions.
    const swapped = await violation(withSymmetry([1, 0, 2], identity));
    expect(swapped.check).toBe('symmetry');
    expect(swapped.message).toMatch(/symmetry 0: after the moves \[.+\], replayed with every action mapped by actionMap, encoding element \d+ \(.+\) should appear at element \d+/);
    // A map that moves the start position's encoding: the cause is named, not only a tensor index.
    const reversed = await violation(withSymmetry([0, 1, 2], [...identity].reverse()));
    expect(reversed.check).toBe('symmetry');
    expect(reversed.message).toMatch(/symmetry 0 does not map the start position to itself: its inputMap sends encoding element \d+/);
    expect(reversed.message).toContain('a declared symmetry must leave the start position unchanged');
    expect((await violation(withSymmetry([0, 1, 2], [0, 0, 2, 3, 4, 5, 6, 7, 8]))).message).toMatch(/inputMap is not a permutation/);
  });

  it('checks that encodings of imperfect-information games ignore hidden information', async () => {
    const leaky = nimPlugin({ encodeSecret: true }, 'imperfect');
    expect((await violation(leaky, { resampleHidden })).check).toBe('hidden-information');
    // without a sampler the check cannot run, and the report says so
    const report = await testGameContract(nimPlugin({}, 'imperfect'), { playouts: 4 });
    expect(report.skipped.join()).toMatch(/hidden-information/);
    const ok = await testGameContract(nimPlugin({}, 'imperfect'), { playouts: 4, resampleHidden });
    expect(ok.skipped).toEqual([]);
    expect(ok.checks['hidden-information']).toBeGreaterThan(0);
  });

  it("checks that a seat's view of an imperfect-information game shows nothing hidden from it", async () => {
    await testGameContract(nimPlugin({ view: 'right' }, 'imperfect'), { playouts: 4, resampleHidden });
    const v = await violation(nimPlugin({ view: 'shows-secret' }, 'imperfect'), { resampleHidden });
    expect(v.check).toBe('hidden-information');
    expect(v.message).toMatch(/view changed when only hidden information changed/);
  });
});
