import type { Agent, Game } from '@az/core';
import { Rng } from '@az/core';
import { BatchedMcts, type SearchConfig } from './batched-mcts.js';
import type { Evaluator } from './evaluator.js';
import { selectActionFromVisits } from './policy.js';

export interface MctsAgentOptions {
  readonly name?: string;
  /** Trees searched together per evaluator call (states beyond it are searched in chunks). */
  readonly maxBatchTrees?: number;
  readonly search?: Partial<SearchConfig>;
  /** 0 = most visited move. */
  readonly temperature?: number;
  readonly seed?: number;
}

/**
 * A player that searches every state it is asked about (no noise by default) and plays the most
 * visited move. Many states are searched in one batched run, so arenas and position sweeps are cheap.
 * For perfect-information games; hidden-information games use @az/imperfect-info's agent.
 */
export class MctsAgent<S> implements Agent<S> {
  readonly name: string;
  private readonly search: BatchedMcts<S>;
  private readonly counts: Float32Array;
  private readonly rng: Rng;
  private readonly temperature: number;

  constructor(
    private readonly game: Game<S>,
    evaluator: Evaluator<S>,
    options: MctsAgentOptions = {},
  ) {
    this.name = options.name ?? 'mcts';
    const seed = options.seed ?? 0;
    this.search = new BatchedMcts(game, evaluator, options.maxBatchTrees ?? 64, {
      dirichletEpsilon: 0,
      seed,
      ...options.search,
    });
    this.counts = new Float32Array(game.masker.actionSize);
    this.rng = new Rng(seed + 1);
    this.temperature = options.temperature ?? 0;
  }

  get stats(): BatchedMcts<S>['stats'] {
    return this.search.stats;
  }

  async act(states: readonly S[]): Promise<Int32Array> {
    const out = new Int32Array(states.length);
    const B = this.search.numTrees;
    for (let start = 0; start < states.length; start += B) {
      const end = Math.min(states.length, start + B);
      for (let t = 0; t < B; t++) {
        if (start + t < end) this.search.setRoot(t, states[start + t]);
        else this.search.clearTree(t);
      }
      await this.search.search();
      for (let i = start; i < end; i++) {
        this.search.visitCounts(i - start, this.counts);
        out[i] = selectActionFromVisits(this.counts, this.temperature, this.rng);
      }
    }
    return out;
  }
}
