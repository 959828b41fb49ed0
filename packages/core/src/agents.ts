import type { Agent, Game } from './game.js';
import { Rng } from './rng.js';

/** Plays a uniformly random legal action. The baseline every game has. */
export class RandomAgent<S> implements Agent<S> {
  /** The agent's name in arena results. */
  readonly name = 'random';
  private readonly rng: Rng;
  private readonly mask: Uint8Array;

  constructor(
    private readonly game: Game<S>,
    seed = 0,
  ) {
    this.rng = new Rng(seed);
    this.mask = new Uint8Array(game.masker.actionSize);
  }

  /** One uniformly random legal action per state. */
  async act(states: readonly S[]): Promise<Int32Array> {
    const out = new Int32Array(states.length);
    for (let i = 0; i < states.length; i++) out[i] = randomLegalAction(this.game, states[i], this.rng, this.mask);
    return out;
  }
}

/** A uniformly random legal action; `mask` is scratch space of length actionSize. */
export function randomLegalAction<S>(game: Game<S>, state: S, rng: Rng, mask: Uint8Array = new Uint8Array(game.masker.actionSize)): number {
  const count = game.masker.fillMask(state, mask, 0);
  if (count === 0) throw new Error(`${game.traits.id}: no legal action in a non-terminal state`);
  let k = rng.int(count);
  for (let a = 0; a < mask.length; a++) {
    if (mask[a] && k-- === 0) return a;
  }
  throw new Error('unreachable: mask count disagrees with mask contents');
}

/**
 * Plays uniformly random legal actions from a copy of `state` to the end of the game and returns the
 * final returns (one per seat): the rollout of classic MCTS. `mask` is scratch space of length actionSize.
 */
export function randomPlayoutReturns<S>(game: Game<S>, state: S, rng: Rng, mask: Uint8Array = new Uint8Array(game.masker.actionSize)): Float32Array {
  const s = game.clone(state);
  while (!game.isTerminal(s)) game.applyAction(s, randomLegalAction(game, s, rng, mask), rng);
  return game.returns(s);
}
