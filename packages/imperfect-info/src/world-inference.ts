import type { Determinizer, Game, InferenceModel, Rng } from '@az/core';
import { maskedSoftmax } from './masked-softmax.js';
import { assertNetworkFitsGame } from './multi-row-network.js';

/**
 * Weighs sampled worlds by how well they explain what the other players did: one log-weight per world.
 * Worlds are full states from the determinizer, each sampled from `observers[i]`'s view.
 */
export interface WorldWeigher<S> {
  logWeights(worlds: readonly S[], observers: ArrayLike<number>, out: Float64Array): Promise<void>;
}

/**
 * `perRoot` worlds for each root state, sampled from `seats[i]`'s view of root i (root i's worlds at
 * `[i * perRoot, (i + 1) * perRoot)`), with their log-weights from `weigher` (all 0 without one), in one
 * weigher call: the pool information-set search draws from and the worlds the rollout player averages over.
 */
export async function sampleWorlds<S>(
  determinizer: Determinizer<S>,
  roots: readonly S[],
  seats: ArrayLike<number>,
  perRoot: number,
  rng: Rng,
  weigher?: WorldWeigher<S>,
): Promise<{ worlds: S[]; logWeights: Float64Array }> {
  const worlds: S[] = [];
  const observers = new Int32Array(roots.length * perRoot);
  for (let i = 0; i < roots.length; i++) {
    for (let k = 0; k < perRoot; k++) {
      worlds.push(determinizer.sample(roots[i], seats[i], rng));
      observers[i * perRoot + k] = seats[i];
    }
  }
  const logWeights = new Float64Array(worlds.length);
  if (weigher) await weigher.logWeights(worlds, observers, logWeights);
  return { worlds, logWeights };
}

/**
 * Inference over hidden cards with the network as the model of every player: a world's log-weight is the
 * sum, over the other seats' earlier decisions rebuilt in it (`Game.pastDecisions`), of the log-probability
 * the network's policy gives the action taken, read from that seat's own view at that moment. A world
 * where the bidder of "3" holds three trumps then outweighs one where it holds none.
 *
 * Each probability is mixed with the uniform choice over the legal actions, `(1 - floor) * p + floor / n`,
 * so a model that is wrong about a player (a bot that bids unlike the network) tilts the sample instead
 * of ruling worlds out. All decisions of all worlds go to the network in one call.
 */
export class PolicyWorldWeigher<S> implements WorldWeigher<S> {
  private inputs = new Float32Array(0);
  private logits = new Float32Array(0);
  private values = new Float32Array(0);
  private readonly mask: Uint8Array;
  /** Double precision, so a weight is exactly exp(logit - max) / sum. */
  private readonly probabilities: Float64Array;

  constructor(
    readonly game: Game<S>,
    readonly model: InferenceModel,
    readonly floor = 0.1,
  ) {
    if (!game.pastDecisions) throw new Error(`${game.traits.id} lists no past decisions (Game.pastDecisions), so its worlds cannot be weighed`);
    if (!(floor > 0 && floor <= 1)) throw new RangeError(`PolicyWorldWeigher: floor must be in (0, 1], got ${floor}`);
    assertNetworkFitsGame(game, model);
    this.mask = new Uint8Array(game.masker.actionSize);
    this.probabilities = new Float64Array(game.masker.actionSize);
  }

  async logWeights(worlds: readonly S[], observers: ArrayLike<number>, out: Float64Array): Promise<void> {
    const { game } = this;
    const E = game.encoder.size;
    const A = game.masker.actionSize;
    const decisions = worlds.map((w, i) => game.pastDecisions!(w, observers[i]));
    const rows = decisions.reduce((n, d) => n + d.length, 0);
    out.fill(0, 0, worlds.length);
    if (rows === 0) return;
    if (this.inputs.length < rows * E) {
      this.inputs = new Float32Array(rows * E);
      this.logits = new Float32Array(rows * A);
      this.values = new Float32Array(rows * game.numPlayers);
    }
    let r = 0;
    for (const list of decisions) for (const d of list) game.encoder.encode(d.state, d.seat, this.inputs, r++ * E);
    await this.model.predict(this.inputs, rows, this.logits, this.values);
    r = 0;
    for (let i = 0; i < worlds.length; i++) {
      let sum = 0;
      for (const d of decisions[i]) sum += Math.log(this.probability(d.state, d.action, r++ * A));
      out[i] = sum;
    }
  }

  /** The floored softmax probability of `action` over the legal actions of `state`, logits at `offset`. */
  private probability(state: S, action: number, offset: number): number {
    const { mask } = this;
    const A = mask.length;
    const legal = this.game.masker.fillMask(state, mask, 0);
    const p = maskedSoftmax(this.logits, offset, mask, 0, A, this.probabilities)[action];
    return (1 - this.floor) * p + this.floor / legal;
  }
}
