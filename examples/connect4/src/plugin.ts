import { ConfigError, GAME_CONTRACT_VERSION, Rng, type Agent, type Game, type GamePlugin, type ResolvedConfig } from '@az/core';
import { assessConnect4Agent } from './assessment.js';
import { CONNECT4_TRAITS, Connect4Game, rulesOf } from './game.js';
import { STANDARD_RULES, isOver, wouldConnect, type Connect4State } from './rules.js';

/**
 * A one-ply bot: wins at once when it can, otherwise blocks an immediate win of the opponent,
 * otherwise plays the column nearest the centre (ties broken at random). A sensible baseline for
 * `az eval --b greedy`: a trained agent should beat it clearly.
 */
export class GreedyAgent implements Agent<Connect4State> {
  readonly name = 'greedy';
  private readonly rng: Rng;

  constructor(
    private readonly game: Game<Connect4State>,
    seed = 0,
  ) {
    this.rng = new Rng(seed);
  }

  async act(states: readonly Connect4State[]): Promise<Int32Array> {
    return Int32Array.from(states, (s) => this.choose(s));
  }

  private choose(s: Connect4State): number {
    const rules = rulesOf(this.game.config);
    if (isOver(rules, s)) throw new Error('connect4: greedy bot asked to move in a finished game');
    const open: number[] = [];
    for (let c = 0; c < rules.cols; c++) if (s.heights[c] < rules.rows) open.push(c);
    for (const seat of [s.toMove, 1 - s.toMove]) {
      const hit = open.find((c) => wouldConnect(rules, s, c, seat));
      if (hit !== undefined) return hit;
    }
    const centre = (rules.cols - 1) / 2;
    const best = Math.min(...open.map((c) => Math.abs(c - centre)));
    const choices = open.filter((c) => Math.abs(c - centre) === best);
    return choices[this.rng.int(choices.length)];
  }
}

export const connect4Plugin: GamePlugin<Connect4State> = {
  contractVersion: GAME_CONTRACT_VERSION,
  traits: CONNECT4_TRAITS,
  configSchema: {
    rows: { type: 'int', default: STANDARD_RULES.rows, min: 4, max: 12, description: 'rows of the grid' },
    cols: { type: 'int', default: STANDARD_RULES.cols, min: 4, max: 12, description: 'columns of the grid (and actions)' },
    connect: { type: 'int', default: STANDARD_RULES.connect, min: 3, max: 6, description: 'discs in a row needed to win' },
  },
  finalizeConfig(config: ResolvedConfig): ResolvedConfig {
    const { rows, cols, connect } = rulesOf(config);
    if (connect > Math.max(rows, cols)) {
      throw new ConfigError('connect', `game 'connect4' config: connect ${connect} does not fit a ${rows}x${cols} grid`);
    }
    return config;
  },
  create: (config) => new Connect4Game(config),
  bots: {
    greedy: (game, seed) => new GreedyAgent(game, seed),
  },
  // A small residual tower suits a 6x7 board on a CPU; self-play games are at most 42 moves.
  training: {
    network: { kind: 'resnet', filters: 32, blocks: 2 },
    // Training on tfjs wasm takes one core; one self-play process on the other plays the next
    // iteration's 384 games meanwhile (README "Why self-play beside the trainer" has the timings).
    iterations: 48,
    selfPlayProcesses: 1,
    gamesPerIteration: 384,
    simulations: 64,
    // Every move sampled from the visit counts: the games then reach positions with open threats, which
    // the policy otherwise never sees (README "Why sampling every move").
    temperatureMoves: 42,
    dirichletAlpha: 1.0,
    // KataGo's forced playouts with policy target pruning: a better policy alone on every seed tried,
    // searches unchanged (README, the table of runs).
    forcedPlayouts: 2,
  },
  // Solved reference positions: the share of moves that keep the best result, on the random-play set and
  // on a hard set: the held-out report set for `az assess` (purpose 'report'), the tuning set for the
  // trainer's assessment after every run.
  assessAgent: (game, agent, options) => assessConnect4Agent(rulesOf(game.config), agent, options),
};
