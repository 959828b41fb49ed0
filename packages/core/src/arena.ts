import type { Agent, Game } from './game.js';
import { randomLegalAction } from './agents.js';
import { Rng } from './rng.js';

/** The outcome of a match played by {@link playArena}: counts per agent, in lineup order. */
export interface ArenaResult {
  /** Games finished and scored (aborted games are not among them). */
  readonly games: number;
  /** Per agent (in lineup order): sum of returns over its seats' games. */
  readonly totalReturn: Float64Array;
  /** Per agent: games where its return was strictly the highest. */
  readonly wins: Int32Array;
  /** Per agent: games where its return tied for the highest with another seat's. */
  readonly draws: Int32Array;
  /** Per agent: games where its return was below the highest. */
  readonly losses: Int32Array;
  /**
   * Per agent: the same counts split by the seat it held, each indexed by seat. In a game where a seat
   * (the first to move, say) wins with perfect play, the pooled counts hide what matters.
   */
  readonly bySeat: readonly SeatTally[];
  /** Games abandoned because an agent could not move in them (an engine crashed, hung or played an illegal move). */
  readonly aborted: number;
  /** Set when the match stopped before all games were played (an agent failed for good): why. */
  readonly stopped?: string;
}

/** One agent's scored games by seat: `wins[s]` counts the games it won while holding seat s. */
export interface SeatTally {
  /** Scored games played from each seat. */
  readonly games: Int32Array;
  /** Wins from each seat (strictly the highest return). */
  readonly wins: Int32Array;
  /** Draws from each seat (tied for the highest return). */
  readonly draws: Int32Array;
  /** Losses from each seat (below the highest return). */
  readonly losses: Int32Array;
}

function emptyTally(seats: number): SeatTally {
  return { games: new Int32Array(seats), wins: new Int32Array(seats), draws: new Int32Array(seats), losses: new Int32Array(seats) };
}

/** One game as played: enough to replay it exactly (`gameSeed` drives the deal and every chance event). */
export interface ArenaGameRecord {
  /** Index of the game in the match (0-based). */
  readonly index: number;
  /** Seed of the game's own random generator: `new Rng(gameSeed)` gives `initialState` and every `applyAction` its chance. */
  readonly gameSeed: string;
  /** Lineup index of the agent in each seat. */
  readonly seatAgent: Int32Array;
  /** The actions, in order of play. */
  readonly actions: readonly number[];
  /** Why the game was abandoned, when it was. */
  readonly aborted?: string;
}

/**
 * An agent that can fail on one position without failing all: an Error in a position's place abandons
 * that game (counted in `ArenaResult.aborted`) and the match goes on. An agent that throws from `act` or
 * `actSettled` stops the match; the games finished so far are the result.
 */
export interface SettlingAgent<S> extends Agent<S> {
  /** Like `act`, but a position the agent cannot answer gets an Error in its place instead of failing the call. */
  actSettled(states: readonly S[]): Promise<(number | Error)[]>;
}

function isSettling<S>(agent: Agent<S>): agent is SettlingAgent<S> {
  return typeof (agent as Partial<SettlingAgent<S>>).actSettled === 'function';
}

/** How {@link playArena} seeds, reports and varies a match; every field is optional. */
export interface ArenaOptions {
  /** Seeds every game (see {@link arenaGameSeed}), so a match replays exactly; default 0. */
  readonly seed?: number;
  /** Called with each finished game and which agent sat in each seat. */
  readonly onGameEnd?: (finalState: unknown, seatAgent: Int32Array, record: ArenaGameRecord) => void;
  /** Called with each abandoned game. */
  readonly onGameAborted?: (record: ArenaGameRecord) => void;
  /** Called after each game ends, scored or abandoned, with how many have ended so far (for progress bars). */
  readonly onProgress?: (finished: number) => void;
  /** The lineup of game g starts rotated by `g + rotationOffset` seats (to continue a match in chunks). */
  readonly rotationOffset?: number;
  /**
   * Each game starts with this many uniformly random legal plies (in its record's actions, so it
   * replays), the same plies for the P consecutive games that rotate one lineup through every seat.
   * Deterministic agents (a search without noise, an engine at a fixed depth) otherwise play the same
   * game over and over, and repeated games count as independent evidence in a rating. Default 0.
   */
  readonly openingPlies?: number;
}

/** The seed of game `g` of a match seeded `seed`. */
export function arenaGameSeed(seed: number, g: number): string {
  return `arena:${seed}:${g}`;
}

/**
 * Plays `numGames` games between `agents` (agent i starts in seat i; the lineup rotates by one seat
 * each game so every agent plays every seat equally). All games run at once: each step, every
 * agent answers for all the games in which it is to move with one batched `act` call. Each game has its
 * own random generator (`arenaGameSeed`), so a recorded game replays exactly from its actions.
 */
export async function playArena<S>(game: Game<S>, agents: readonly Agent<S>[], numGames: number, options: ArenaOptions = {}): Promise<ArenaResult> {
  const P = game.numPlayers;
  if (agents.length !== P) throw new Error(`arena: ${game.traits.id} with ${P} seats needs ${P} agents, got ${agents.length}`);
  const seed = options.seed ?? 0;
  const offset = options.rotationOffset ?? 0;
  const states: S[] = [];
  const rngs: Rng[] = [];
  const seatAgent: Int32Array[] = [];
  const actions: number[][] = [];
  const openingPlies = options.openingPlies ?? 0;
  const mask = new Uint8Array(game.masker.actionSize);
  for (let g = 0; g < numGames; g++) {
    rngs.push(new Rng(arenaGameSeed(seed, g)));
    states.push(game.initialState(rngs[g]));
    const lineup = new Int32Array(P);
    for (let seat = 0; seat < P; seat++) lineup[seat] = (seat + g + offset) % P;
    seatAgent.push(lineup);
    actions.push([]);
    if (openingPlies > 0) {
      const openingRng = new Rng(`arena-opening:${seed}:${Math.floor((g + offset) / P)}`);
      // An opening that ends the game is drawn again, from the start.
      for (let attempt = 0; actions[g].length < openingPlies; attempt++) {
        if (attempt === 100) throw new Error(`arena: no opening of ${openingPlies} plies that leaves ${game.traits.id} unfinished in 100 tries`);
        rngs[g] = new Rng(arenaGameSeed(seed, g));
        states[g] = game.initialState(rngs[g]);
        actions[g] = [];
        while (actions[g].length < openingPlies && !game.isTerminal(states[g])) {
          const a = randomLegalAction(game, states[g], openingRng, mask);
          game.applyAction(states[g], a, rngs[g]);
          actions[g].push(a);
        }
        if (game.isTerminal(states[g])) actions[g] = [];
      }
    }
  }
  const record = (g: number, aborted?: string): ArenaGameRecord => ({ index: g, gameSeed: arenaGameSeed(seed, g), seatAgent: seatAgent[g], actions: actions[g], ...(aborted ? { aborted } : {}) });
  const totalReturn = new Float64Array(P);
  const wins = new Int32Array(P);
  const draws = new Int32Array(P);
  const losses = new Int32Array(P);
  const bySeat = agents.map(() => emptyTally(P));
  let live = states.map((_, g) => g);
  const abortedGames = new Map<number, string>();
  let finished = 0;
  let scored = 0;
  let stopped: string | undefined;
  let steps = 0;
  while (live.length > 0 && stopped === undefined) {
    if (++steps > game.maxGameLength + 1) throw new Error(`arena: games of ${game.traits.id} ran past the declared maximum length ${game.maxGameLength}`);
    for (let agentIndex = 0; agentIndex < P && stopped === undefined; agentIndex++) {
      const mine = live.filter((g) => !abortedGames.has(g) && !game.isTerminal(states[g]) && seatAgent[g][game.currentPlayer(states[g])] === agentIndex);
      if (mine.length === 0) continue;
      const agent = agents[agentIndex];
      let chosen: (number | Error)[];
      try {
        chosen = isSettling(agent) ? await agent.actSettled(mine.map((g) => states[g])) : Array.from(await agent.act(mine.map((g) => states[g])));
      } catch (err) {
        stopped = `${agent.name} failed: ${err instanceof Error ? err.message : String(err)}`;
        break;
      }
      mine.forEach((g, i) => {
        const a = chosen[i];
        if (a instanceof Error) {
          abortedGames.set(g, `${agent.name}: ${a.message}`);
          return;
        }
        game.applyAction(states[g], a, rngs[g]);
        actions[g].push(a);
      });
    }
    const still: number[] = [];
    for (const g of live) {
      const abortReason = abortedGames.get(g);
      if (abortReason !== undefined) {
        options.onGameAborted?.(record(g, abortReason));
        options.onProgress?.(++finished);
        continue;
      }
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
        bySeat[a].games[seat]++;
        if (returns[seat] < best) {
          losses[a]++;
          bySeat[a].losses[seat]++;
        } else if (atBest > 1) {
          draws[a]++;
          bySeat[a].draws[seat]++;
        } else {
          wins[a]++;
          bySeat[a].wins[seat]++;
        }
      }
      scored++;
      options.onGameEnd?.(states[g], seatAgent[g], record(g));
      options.onProgress?.(++finished);
    }
    live = still;
  }
  return { games: scored, totalReturn, wins, draws, losses, bySeat, aborted: abortedGames.size, ...(stopped !== undefined ? { stopped } : {}) };
}
