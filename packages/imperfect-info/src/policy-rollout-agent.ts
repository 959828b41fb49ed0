import { Rng, type Agent, type Game, type InferenceModel } from '@az/core';
import { assertNetworkFitsGame } from './multi-row-network.js';
import { PolicyPlayouts } from './policy-playout.js';
import { sampleWorlds, type WorldWeigher } from './world-inference.js';

/** Settings of `PolicyRolloutAgent`. */
export interface PolicyRolloutOptions<S> {
  /** Worlds sampled from the mover's view per decision; every legal action is played out in each (default 64). */
  readonly worlds?: number;
  /** Weighs the sampled worlds by what the other seats did (importance weights); default: all worlds alike. */
  readonly weigher?: WorldWeigher<S>;
  readonly seed?: number;
  /** The decisions the rollouts take; the others go to `fallback` (default: every decision). */
  readonly decides?: (state: S) => boolean;
  /** Plays the decisions `decides` leaves out (required with `decides`). */
  readonly fallback?: Agent<S>;
}

/**
 * One step of policy improvement by rollouts (Tesauro and Galperin's rollout player) over sampled
 * worlds: for each legal action, the mover's mean return when it plays the action and then every seat,
 * itself included, plays the network's top move from its own view to the end (`PolicyPlayouts`). The
 * same worlds serve every action, so differences between actions are not blurred by the deal. Chooses
 * the action of the highest mean.
 *
 * Why for hidden-card games: in the rollouts every other seat acts on its own sampled hand, so later
 * bidders bid and players play as the network would holding those cards, where a search tree over the
 * mover's information sets models them without their hands. All decisions of a call, all actions and
 * all worlds play out together, one network call per ply.
 */
export class PolicyRolloutAgent<S> implements Agent<S> {
  private readonly playouts: PolicyPlayouts<S>;
  private readonly rng: Rng;
  private readonly worlds: number;
  private readonly mask: Uint8Array;

  constructor(
    readonly name: string,
    readonly game: Game<S>,
    readonly network: { readonly model: InferenceModel },
    readonly options: PolicyRolloutOptions<S> = {},
  ) {
    if (!game.determinizer) throw new Error(`${game.traits.id} has no determinizer (Game.determinizer), so worlds cannot be sampled for rollouts`);
    assertNetworkFitsGame(game, network.model);
    this.worlds = options.worlds ?? 64;
    if (!(Number.isInteger(this.worlds) && this.worlds >= 1)) throw new RangeError(`PolicyRolloutAgent: worlds must be a positive integer, got ${this.worlds}`);
    if (options.decides && !options.fallback) throw new Error('PolicyRolloutAgent: decides needs a fallback agent for the other decisions');
    this.playouts = new PolicyPlayouts(game);
    this.rng = new Rng(`policy-rollout:${options.seed ?? 0}`);
    this.mask = new Uint8Array(game.masker.actionSize);
  }

  async act(states: readonly S[]): Promise<Int32Array> {
    const out = new Int32Array(states.length);
    const mine: number[] = [];
    const others: number[] = [];
    states.forEach((s, i) => ((this.options.decides?.(s) ?? true) ? mine : others).push(i));
    if (others.length > 0) {
      const chosen = await this.options.fallback!.act(others.map((i) => states[i]));
      others.forEach((i, k) => (out[i] = chosen[k]));
    }
    if (mine.length > 0) await this.rollOut(mine.map((i) => states[i]), mine, out);
    return out;
  }

  private async rollOut(states: S[], slots: number[], out: Int32Array): Promise<void> {
    const { game, rng, mask } = this;
    const K = this.worlds;
    const movers = states.map((s) => game.currentPlayer(s));
    const { worlds, logWeights } = await sampleWorlds(game.determinizer!, states, movers, K, rng, this.options.weigher);
    // Without a weigher every log-weight is 0, so each world weighs 1 / K.
    const weights = new Float64Array(worlds.length);
    for (let i = 0; i < states.length; i++) normalize(logWeights, i * K, K, weights);
    const legal: number[][] = states.map((s) => {
      game.masker.fillMask(s, mask, 0);
      const list: number[] = [];
      for (let a = 0; a < mask.length; a++) if (mask[a]) list.push(a);
      return list;
    });
    const playing: S[] = [];
    states.forEach((_, i) => {
      for (const a of legal[i]) {
        for (let k = 0; k < K; k++) {
          const s = game.clone(worlds[i * K + k]);
          game.applyAction(s, a, rng);
          playing.push(s);
        }
      }
    });
    await this.playouts.play(playing, playing.length, this.network.model, rng);
    let p = 0;
    states.forEach((_, i) => {
      let best = -1;
      let bestValue = -Infinity;
      for (const a of legal[i]) {
        let value = 0;
        for (let k = 0; k < K; k++) value += weights[i * K + k] * game.returns(playing[p++])[movers[i]];
        if (value > bestValue) {
          best = a;
          bestValue = value;
        }
      }
      out[slots[i]] = best;
    });
  }
}

/** Softmax of `logWeights[offset..offset+n)` into `out` at the same place (a max shift keeps it finite). */
function normalize(logWeights: Float64Array, offset: number, n: number, out: Float64Array): void {
  let max = -Infinity;
  for (let k = 0; k < n; k++) max = Math.max(max, logWeights[offset + k]);
  if (max === -Infinity) {
    out.fill(1 / n, offset, offset + n);
    return;
  }
  let sum = 0;
  for (let k = 0; k < n; k++) sum += out[offset + k] = Math.exp(logWeights[offset + k] - max);
  for (let k = 0; k < n; k++) out[offset + k] /= sum;
}
