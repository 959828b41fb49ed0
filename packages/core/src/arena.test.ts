// Random openings in the arena: deterministic agents then play different games, each opening once per seating.
import { describe, expect, it } from 'vitest';
import { playArena, type ArenaGameRecord } from './arena.js';
import type { Agent, Game } from './game.js';
import type { Rng } from './rng.js';

/** Race to 12: add 1, 2 or 3; whoever reaches 12 wins. Deterministic. */
interface Race {
  total: number;
  toMove: number;
}

const race: Game<Race> = {
  traits: { id: 'race', name: 'Race', description: 'add 1-3, reach 12', minPlayers: 2, maxPlayers: 2, information: 'perfect', chance: false, rewards: 'zero-sum', maxGameLength: 12 },
  config: {},
  numPlayers: 2,
  maxGameLength: 12,
  encoder: { version: 'race-1', shape: [1], size: 1, encode: (s, _p, out, offset) => void (out[offset] = s.total) },
  masker: {
    actionSize: 3,
    fillMask(s, out, offset = 0) {
      let n = 0;
      for (let a = 0; a < 3; a++) n += out[offset + a] = s.total + a + 1 <= 12 ? 1 : 0;
      return n;
    },
  },
  initialState: (_rng: Rng) => ({ total: 0, toMove: 0 }),
  currentPlayer: (s) => s.toMove,
  applyAction(s, a) {
    s.total += a + 1;
    s.toMove = 1 - s.toMove;
  },
  isTerminal: (s) => s.total === 12,
  returns: (s) => (s.total < 12 ? new Float32Array(2) : Float32Array.of(s.toMove === 1 ? 1 : -1, s.toMove === 0 ? 1 : -1)),
  clone: (s) => ({ ...s }),
  hash: (s) => `${s.total}:${s.toMove}`,
  render: (s) => String(s.total),
  formatAction: (_s, a) => String(a + 1),
  parseAction: () => ({ ok: false, error: 'not used' }),
};

/** Always adds 1: a deterministic player. */
const addOne: Agent<Race> = { name: 'add-one', act: async (states) => new Int32Array(states.length) };

async function records(games: number, openingPlies: number, seed = 0): Promise<ArenaGameRecord[]> {
  const out: ArenaGameRecord[] = [];
  await playArena(race, [addOne, addOne], games, { seed, openingPlies, onGameEnd: (_s, _seats, r) => out.push(r) });
  return out.sort((a, b) => a.index - b.index);
}

describe('playArena openingPlies', () => {
  it('without openings, deterministic agents repeat one game', async () => {
    const r = await records(8, 0);
    expect(new Set(r.map((g) => g.actions.join(','))).size).toBe(1);
  });

  it('with openings, the games differ, and each opening is played once per seating', async () => {
    const r = await records(16, 3);
    expect(r).toHaveLength(16);
    const openings = r.map((g) => g.actions.slice(0, 3).join(','));
    for (let k = 0; k < 16; k += 2) expect(openings[k + 1]).toBe(openings[k]);
    expect(r[0].seatAgent[0]).not.toBe(r[1].seatAgent[0]);
    expect(new Set(openings).size).toBeGreaterThan(3);
    // After the opening both agents add 1, so each game is its opening followed by 0s.
    for (const g of r) expect(g.actions.slice(3).every((a) => a === 0)).toBe(true);
  });

  it('is reproducible from the seed and changes with it', async () => {
    const a = (await records(8, 3, 5)).map((g) => g.actions.join(','));
    const b = (await records(8, 3, 5)).map((g) => g.actions.join(','));
    const c = (await records(8, 3, 6)).map((g) => g.actions.join(','));
    expect(b).toEqual(a);
    expect(c).not.toEqual(a);
  });

  it('draws again an opening that would end the game', async () => {
    // 6 plies of 1-3 reach 12 about as often as not; every game must still be played out, not end in its opening.
    const r = await records(20, 6, 1);
    for (const g of r) {
      const total = g.actions.slice(0, 6).reduce((t, a) => t + a + 1, 0);
      expect(total).toBeLessThan(12);
    }
  });
});

describe('playArena results by seat', () => {
  it("splits each agent's wins, draws and losses by the seat it held", async () => {
    // Adding 1 each turn, the second seat always makes the twelfth move and wins.
    const result = await playArena(race, [addOne, { ...addOne, name: 'other' }], 10, { seed: 1 });
    for (const a of [0, 1]) {
      expect(Array.from(result.bySeat[a].games)).toEqual([5, 5]);
      expect(Array.from(result.bySeat[a].wins)).toEqual([0, 5]);
      expect(Array.from(result.bySeat[a].losses)).toEqual([5, 0]);
      expect(Array.from(result.bySeat[a].draws)).toEqual([0, 0]);
      expect(result.wins[a]).toBe(5);
    }
  });
});
