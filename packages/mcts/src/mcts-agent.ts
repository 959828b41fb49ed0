import type { Agent, Game, GamePlugin } from '@az/core';
import { Rng } from '@az/core';
import { BatchedMcts, type SearchConfig, type SearchEngine } from './batched-mcts.js';
import type { Evaluator } from './evaluator.js';
import { selectActionFromVisits } from './policy.js';

/**
 * Search strength of the computer in `az play` and `az eval`, and of the trainer's final assessment
 * (so "plays perfectly" is measured with the settings a user plays against).
 */
export function defaultPlaySimulations(plugin: GamePlugin): number {
  return plugin.training?.playSimulations ?? Math.max(100, plugin.training?.simulations ?? 0);
}

/**
 * Trees an agent searches together: an arena hands an agent every game in which it is to move at once,
 * and the agent searches them in chunks of this many, so one network call carries up to this many times
 * `leavesPerTree` positions while the trees' nodes (this many times `nodeCapacity`) stay bounded.
 */
export const AGENT_SEARCH_TREES = 64;

/** What `MctsAgent.create` may change from its defaults. */
export interface MctsAgentOptions {
  /** The agent's name in arena results (default 'mcts'). */
  readonly name?: string;
  /** Trees searched together per evaluator call (states beyond it are searched in chunks; default `AGENT_SEARCH_TREES`). */
  readonly maxBatchTrees?: number;
  /** Overrides of the search settings (root noise is off unless set here). */
  readonly search?: Partial<SearchConfig>;
  /** 0 = most visited move. */
  readonly temperature?: number;
  /** Seeds the search and the move sampling, so a run can be repeated. */
  readonly seed?: number;
}

/**
 * A player that searches every state it is asked about and plays the most visited move (or the move a
 * Gumbel search picked). Many
 * states are searched in one batched run, so arenas and position sweeps are cheap. Works with any
 * `SearchEngine` (plain or determinized); `MctsAgent.create` builds the plain one.
 */
export class MctsAgent<S> implements Agent<S> {
  private readonly counts: Float32Array;
  private readonly rng: Rng;

  /**
   * @param name The agent's name in arena results.
   * @param engine The search; its slots bound how many states are searched at once.
   * @param actionSize The game's action count.
   * @param temperature 0 plays the most visited move; above 0 samples from the visit counts.
   * @param seed Seeds the move sampling.
   */
  constructor(
    readonly name: string,
    private readonly engine: SearchEngine<S>,
    actionSize: number,
    private readonly temperature = 0,
    seed = 0,
  ) {
    this.counts = new Float32Array(actionSize);
    this.rng = new Rng(seed + 1);
  }

  /** An agent over a plain `BatchedMcts` (no root noise unless asked for). */
  static create<S>(game: Game<S>, evaluator: Evaluator<S>, options: MctsAgentOptions = {}): MctsAgent<S> {
    const seed = options.seed ?? 0;
    const engine = new BatchedMcts(game, evaluator, options.maxBatchTrees ?? AGENT_SEARCH_TREES, { dirichletEpsilon: 0, seed, ...options.search });
    return new MctsAgent(options.name ?? 'mcts', engine, game.masker.actionSize, options.temperature ?? 0, seed);
  }

  /** The search's running totals, for logs. */
  get stats(): SearchEngine<S>['stats'] {
    return this.engine.stats;
  }

  /** Searches every state (in chunks of the engine's slot count) and returns one move per state. */
  async act(states: readonly S[]): Promise<Int32Array> {
    const out = new Int32Array(states.length);
    const B = this.engine.numTrees;
    for (let start = 0; start < states.length; start += B) {
      const end = Math.min(states.length, start + B);
      for (let t = 0; t < B; t++) {
        if (start + t < end) this.engine.setRoot(t, states[start + t]);
        else this.engine.clearTree(t);
      }
      await this.engine.search();
      for (let i = start; i < end; i++) {
        const chosen = this.engine.selectedAction(i - start);
        if (chosen >= 0) {
          out[i] = chosen;
          continue;
        }
        this.engine.visitCounts(i - start, this.counts);
        out[i] = selectActionFromVisits(this.counts, this.temperature, this.rng);
      }
    }
    return out;
  }
}
