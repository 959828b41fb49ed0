import type { Determinizer, Rng } from '@az/core';
import { ConsistentDealer } from '@az/imperfect-info';
import { DECK_SIZE, cardSuit } from './cards.js';
import { BlobState, NONE } from './state.js';

/**
 * Samples a full Blob state consistent with what `seat` knows: the seat's own hand, all public play
 * and the turned-up card stay; every other card not yet played is redealt uniformly among the other
 * hands (keeping each hand's size and each revealed void) and the undealt stock.
 *
 * The stock is hidden in both trump variants: nobody sees which cards were not dealt (in 'turned-up'
 * only the turned-up card is revealed). It is one more receiver, with no void constraints.
 */
export class BlobDeterminizer implements Determinizer<BlobState> {
  private readonly dealer = new ConsistentDealer();
  private readonly hiddenCards = new Int32Array(DECK_SIZE);
  private readonly hiddenSuits = new Int32Array(DECK_SIZE);
  private readonly assignment = new Int32Array(DECK_SIZE);

  sample(state: BlobState, seat: number, rng: Rng, out?: BlobState): BlobState {
    const P = state.numPlayers;
    if (!(Number.isInteger(seat) && seat >= 0 && seat < P)) throw new RangeError(`blob: seat must be 0..${P - 1}, got ${seat}`);
    const result = out ? out.copyFrom(state) : state.clone();

    // Receivers: the other seats in order (seat + 1, seat + 2, ...), then the stock.
    const receiverSeat: number[] = [];
    const handSizes: number[] = [];
    const forbiddenSuits: number[] = [];
    let othersHeld = 0;
    for (let i = 1; i < P; i++) {
      const other = (seat + i) % P;
      receiverSeat.push(other);
      handSizes.push(state.handSizes[other]);
      forbiddenSuits.push(state.voidSuits[other]);
      othersHeld += state.handSizes[other];
    }

    let hidden = 0;
    for (let c = 0; c < DECK_SIZE; c++) {
      if (state.owner[c] === seat || state.playedBy[c] !== NONE || c === state.turnedUp) continue;
      this.hiddenCards[hidden] = c;
      this.hiddenSuits[hidden] = cardSuit(c);
      hidden++;
    }
    receiverSeat.push(NONE);
    handSizes.push(hidden - othersHeld);
    forbiddenSuits.push(0);

    const cardSuits = this.hiddenSuits.subarray(0, hidden);
    this.dealer.deal({ cardSuits, numSuits: 4, handSizes, forbiddenSuits }, rng, this.assignment);
    for (let i = 0; i < hidden; i++) result.owner[this.hiddenCards[i]] = receiverSeat[this.assignment[i]];
    return result;
  }
}
