import type { Agent, Game } from './game.js';
import { Rng } from './rng.js';

export interface ArenaResult {
  readonly games: number;
  /** Per agent (in lineup order): sum of returns over its seats' games. */
  readonly totalReturn: Float64Array;
  /** Per agent: games where its return was strictly the highest / tied highest / lower. */
  readonly wins: Int32Array;
  readonly draws: Int32Array;
  readonly losses: Int32Array;
}

export interface ArenaOptions {
  readonly seed?: number;
  /** Called with each finished game and which agent sat in each seat. */
  readonly onGameEnd?: (finalState: unknown, seatAgent: Int32Array) => void;
  readonly onProgress?: (finished: number) => void;
}

/**
 * Plays `numGames` games between `agents` (agent i starts in seat i; the lineup rotates by one seat
 * each game so every agent plays every seat equally). All games run at once: each step, every
 * agent answers for all the games in which it is to move with one batched `act` call.
 */
export async function playArena<S>(game: Game<S>, agents: readonly Agent<S>[], numGames: number, options: ArenaOptions = {}): Promise<ArenaResult> {
  const P = game.numPlayers;
  if (agents.length !== P) throw new Error(`arena: ${game.traits.id} with ${P} seats needs ${P} agents, got ${agents.length}`);
  const rng = new Rng(options.seed ?? 0);
  const states: S[] = [];
  const seatAgent: Int32Array[] = [];
  for (let g = 0; g < numGames; g++) {
    states.push(game.initialState(rng));
    const lineup = new Int32Array(P);
    for (let seat = 0; seat < P; seat++) lineup[seat] = (seat + g) % P;
    seatAgent.push(lineup);
  }
  const totalReturn = new Float64Array(P);
  const wins = new Int32Array(P);
  const draws = new Int32Array(P);
  const losses = new Int32Array(P);
  let live = states.map((_, g) => g);
  let finished = 0;
  let steps = 0;
  while (live.length > 0) {
    if (++steps > game.maxGameLength + 1) throw new Error(`arena: games of ${game.traits.id} ran past the declared maximum length ${game.maxGameLength}`);
    for (let agentIndex = 0; agentIndex < P; agentIndex++) {
      const mine = live.filter((g) => !game.isTerminal(states[g]) && seatAgent[g][game.currentPlayer(states[g])] === agentIndex);
      if (mine.length === 0) continue;
      const actions = await agents[agentIndex].act(mine.map((g) => states[g]));
      mine.forEach((g, i) => game.applyAction(states[g], actions[i], rng));
    }
    const still: number[] = [];
    for (const g of live) {
      if (!game.isTerminal(states[g])) {
        still.push(g);
        continue;
      }
      const returns = game.returns(states[g]);
      let best = -Infinity;
      for (let seat = 0; seat < P; seat++) best = Math.max(best, returns[seat]);
      let atBest = 0;
      for (let seat = 0; seat < P; seat++) if (returns[seat] === best) atBest++;
      for (let seat = 0; seat < P; seat++) {
        const a = seatAgent[g][seat];
        totalReturn[a] += returns[seat];
        if (returns[seat] < best) losses[a]++;
        else if (atBest > 1) draws[a]++;
        else wins[a]++;
      }
      options.onGameEnd?.(states[g], seatAgent[g]);
      options.onProgress?.(++finished);
    }
    live = still;
  }
  return { games: numGames, totalReturn, wins, draws, losses };
}
