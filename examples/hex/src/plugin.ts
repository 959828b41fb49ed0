import { GAME_CONTRACT_VERSION, Rng, type Agent, type Game, type GamePlugin } from '@az/core';
import { HEX_CONFIG, HEX_TRAITS, HexGame, rulesOf } from './game.js';
import { distanceToConnect, isOver, type HexState } from './rules.js';

/**
 * A one-ply bot on shortest paths: for every empty cell it plays there and measures how many empty
 * cells each seat still needs to join its edges (a 0-1 breadth-first search); it plays the cell that
 * leaves the largest (opponent's distance - own distance), winning at once when it can and blocking
 * an opponent's one-move win when one move does, ties broken at random. A baseline for `az eval --b shortest-path`.
 */
export class ShortestPathAgent implements Agent<HexState> {
  readonly name = 'shortest-path';
  private readonly rng: Rng;

  constructor(
    private readonly game: Game<HexState>,
    seed = 0,
  ) {
    this.rng = new Rng(seed);
  }

  async act(states: readonly HexState[]): Promise<Int32Array> {
    return Int32Array.from(states, (s) => this.choose(s));
  }

  private choose(s: HexState): number {
    const rules = rulesOf(this.game.config);
    if (isOver(rules, s)) throw new Error('hex: the shortest-path bot was asked to move in a finished game');
    const me = s.toMove;
    const big = rules.size * rules.size + 1;
    let best: number[] = [];
    let bestScore = -Infinity;
    for (let cell = 0; cell < s.cells.length; cell++) {
      if (s.cells[cell] !== -1) continue;
      s.cells[cell] = me;
      const mine = Math.min(distanceToConnect(rules, s, me), big);
      const theirs = Math.min(distanceToConnect(rules, s, 1 - me), big);
      s.cells[cell] = -1;
      // Win now; else never leave the opponent a one-move win when a move avoids it; else the path difference.
      const score = mine === 0 ? Infinity : theirs <= 1 ? -big + mine : theirs - mine;
      if (score > bestScore) {
        bestScore = score;
        best = [cell];
      } else if (score === bestScore) {
        best.push(cell);
      }
    }
    return best[this.rng.int(best.length)];
  }
}

/** What az imports: package.json names this export in "az": { "gamePlugin": "hexPlugin" }. */
export const hexPlugin: GamePlugin<HexState> = {
  contractVersion: GAME_CONTRACT_VERSION,
  traits: HEX_TRAITS,
  configSchema: HEX_CONFIG,
  create: (config) => new HexGame(config),
  bots: {
    'shortest-path': (game, seed) => new ShortestPathAgent(game, seed),
  },
  // Defaults for `az train` (flags override): a small residual network suits a small board on a CPU.
  training: {
    network: { kind: 'resnet', filters: 32, blocks: 2 },
    simulations: 48,
    gamesPerIteration: 128,
    iterations: 12,
    // Sample the first moves from the search's visit counts, so games reach varied openings.
    temperatureMoves: 6,
    // About 10 / (typical legal moves).
    dirichletAlpha: 0.5,
  },
};
