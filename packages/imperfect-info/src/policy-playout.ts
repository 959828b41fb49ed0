import type { Game, InferenceModel, Rng } from '@az/core';
import { topLegalAction } from '@az/mcts';

/**
 * Plays states to the end in place, every seat choosing the network's top legal move from its own view
 * (`game.encoder` at the seat to act): the network as the model of every player. All states advance in
 * lock-step, one network call per ply for the states still playing, so a batch of playouts costs about
 * one call per move of the longest. Buffers are kept between calls.
 */
export class PolicyPlayouts<S> {
  private inputs = new Float32Array(0);
  private logits = new Float32Array(0);
  private values = new Float32Array(0);
  private active = new Int32Array(0);
  private readonly mask: Uint8Array;

  constructor(readonly game: Game<S>) {
    this.mask = new Uint8Array(game.masker.actionSize);
  }

  /** Plays `states[0..count)` to their ends with `model`; `rng` drives any chance the game has. */
  async play(states: readonly S[], count: number, model: InferenceModel, rng: Rng): Promise<void> {
    const { game, mask } = this;
    const A = game.masker.actionSize;
    const E = game.encoder.size;
    if (this.active.length < count) {
      this.active = new Int32Array(count);
      this.inputs = new Float32Array(count * E);
      this.logits = new Float32Array(count * A);
      this.values = new Float32Array(count * game.numPlayers);
    }
    const { active } = this;
    let live = 0;
    for (let i = 0; i < count; i++) if (!game.isTerminal(states[i])) active[live++] = i;
    while (live > 0) {
      for (let k = 0; k < live; k++) {
        const s = states[active[k]];
        game.encoder.encode(s, game.currentPlayer(s), this.inputs, k * E);
      }
      await model.predict(this.inputs, live, this.logits, this.values);
      let next = 0;
      for (let k = 0; k < live; k++) {
        const s = states[active[k]];
        game.masker.fillMask(s, mask, 0);
        const best = topLegalAction(mask, 0, this.logits, k * A, A);
        if (best < 0) throw new Error(`${game.traits.id}: no legal action in a non-terminal state`);
        game.applyAction(s, best, rng);
        if (!game.isTerminal(s)) active[next++] = active[k];
      }
      live = next;
    }
  }
}
