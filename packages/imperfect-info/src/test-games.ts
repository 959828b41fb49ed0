// A tiny hidden-card game for the determinized search's own tests (not part of the build).
//
// Showdown: two seats each get one card of 0..9 (hidden from the other). Seat 0 passes (both score 0)
// or bets; after a bet seat 1 folds (seat 0 wins 1) or calls (the higher card wins 2). Seat 0's right
// choice depends on its own card only; a search that peeked at seat 1's real card would choose by it.
import type { Determinizer, Encoder, Game, GameTraits, InferenceModel, Masker, NetworkConfig, ParsedAction, Rng } from '@az/core';
import type { NetworkEvaluator, SearchConfig } from '@az/mcts';
import type { SearchLeaves } from './search-factory.js';
import { resolveSearchSettings, type SearchChoices, type SearchSettings } from './search-settings.js';

export const SHOWDOWN_CARDS = 10;
export const PASS = 0;
export const BET = 1;
export const FOLD = 2;
export const CALL = 3;

export interface ShowdownState {
  cards: Int8Array;
  /** Actions taken so far, in order. */
  history: number[];
}

const traits: GameTraits = {
  id: 'showdown',
  name: 'Showdown',
  description: 'test game: one hidden card each, bet or pass',
  minPlayers: 2,
  maxPlayers: 2,
  information: 'imperfect',
  chance: true,
  rewards: 'zero-sum',
  maxGameLength: 2,
};

function isTerminal(s: ShowdownState): boolean {
  const h = s.history;
  return h.length === 2 || (h.length === 1 && h[0] === PASS);
}

function toMove(s: ShowdownState): number {
  return s.history.length;
}

/** Samples seat 1's card uniformly for seat 0 (and vice versa); counts its calls. */
export class ShowdownDeterminizer implements Determinizer<ShowdownState> {
  calls = 0;
  sample(state: ShowdownState, seat: number, rng: Rng, out?: ShowdownState): ShowdownState {
    this.calls++;
    const result = out ?? { cards: new Int8Array(2), history: [] };
    result.cards.set(state.cards);
    result.history = state.history.slice();
    const other = 1 - seat;
    let c = rng.int(SHOWDOWN_CARDS - 1);
    if (c >= state.cards[seat]) c++;
    result.cards[other] = c;
    return result;
  }
}

export interface ShowdownOptions {
  /** Leave the determinizer out (to test the error). */
  readonly withoutDeterminizer?: boolean;
}

export function makeShowdown(options: ShowdownOptions = {}): Game<ShowdownState> & { determinizer?: ShowdownDeterminizer } {
  // Planes: own card [10], the other seat's card [10] (world encoding only), started [2], world flag [1].
  const size = 2 * SHOWDOWN_CARDS + 3;
  const encodeAs =
    (world: boolean) =>
    (s: ShowdownState, p: number, out: Float32Array, off: number): void => {
      out.fill(0, off, off + size);
      out[off + s.cards[p]] = 1;
      if (world) out[off + SHOWDOWN_CARDS + s.cards[1 - p]] = 1;
      out[off + 2 * SHOWDOWN_CARDS + Math.min(1, s.history.length)] = 1;
      if (world) out[off + 2 * SHOWDOWN_CARDS + 2] = 1;
    };
  const encoder: Encoder<ShowdownState> = { version: 'test', shape: [size], size, encode: encodeAs(false) };
  const worldEncoder: Encoder<ShowdownState> = { version: 'test', shape: [size], size, encode: encodeAs(true) };
  const masker: Masker<ShowdownState> = {
    actionSize: 4,
    fillMask(s, out, off = 0) {
      out.fill(0, off, off + 4);
      if (isTerminal(s)) return 0;
      if (s.history.length === 0) {
        out[off + PASS] = 1;
        out[off + BET] = 1;
      } else {
        out[off + FOLD] = 1;
        out[off + CALL] = 1;
      }
      return 2;
    },
  };
  const game = {
    traits,
    config: {},
    numPlayers: 2,
    maxGameLength: 2,
    encoder,
    worldEncoder,
    masker,
    determinizer: options.withoutDeterminizer ? undefined : new ShowdownDeterminizer(),
    initialState(rng: Rng): ShowdownState {
      const a = rng.int(SHOWDOWN_CARDS);
      let b = rng.int(SHOWDOWN_CARDS - 1);
      if (b >= a) b++;
      return { cards: Int8Array.of(a, b), history: [] };
    },
    currentPlayer: toMove,
    applyAction(s: ShowdownState, action: number): void {
      const mask = new Uint8Array(4);
      masker.fillMask(s, mask, 0);
      if (!mask[action]) throw new Error(`showdown: illegal action ${action}`);
      s.history.push(action);
    },
    isTerminal,
    returns(s: ShowdownState): Float32Array {
      const out = new Float32Array(2);
      if (!isTerminal(s)) return out;
      const h = s.history;
      let v = 0;
      if (h[0] === BET) v = h[1] === FOLD ? 0.5 : s.cards[0] > s.cards[1] ? 1 : -1;
      out[0] = v;
      out[1] = -v;
      return out;
    },
    clone: (s: ShowdownState): ShowdownState => ({ cards: s.cards.slice(), history: s.history.slice() }),
    hash: (s: ShowdownState) => `${s.cards.join(',')}|${s.history.join(',')}`,
    render: (s: ShowdownState) => `${s.cards.join(',')}|${s.history.join(',')}`,
    formatAction: (_s: ShowdownState, a: number) => ['pass', 'bet', 'fold', 'call'][a],
    parseAction: (): ParsedAction => ({ ok: false, error: 'not supported' }),
  };
  return game;
}

export function showdownState(mine: number, theirs: number, history: number[] = []): ShowdownState {
  return { cards: Int8Array.of(mine, theirs), history };
}

/**
 * Reads the encoded card of each row: policy logits favour action (card % 4) in own-view rows and
 * ((card + 2) % 4) in world rows, and the row's own value (relative index 0) is card / 10; the other
 * seat's relative value is its card / 10 in a world row, else a marker, -0.5.
 */
export class FakeModel implements InferenceModel {
  readonly config: NetworkConfig;
  readonly backendName = 'fake';
  readonly rows: number[] = [];
  constructor(private readonly inputSize: number) {
    this.config = { spec: { kind: 'mlp', hidden: [1] }, inputShape: [inputSize], actionSize: 4, numSeats: 2 };
  }
  async predict(input: Float32Array, count: number, policyOut: Float32Array, valueOut: Float32Array): Promise<void> {
    this.rows.push(count);
    for (let r = 0; r < count; r++) {
      let card = 0;
      let other = -1;
      const row = r * this.inputSize;
      for (let c = 0; c < SHOWDOWN_CARDS; c++) if (input[row + c] === 1) card = c;
      for (let c = 0; c < SHOWDOWN_CARDS; c++) if (input[row + SHOWDOWN_CARDS + c] === 1) other = c;
      const world = input[row + 2 * SHOWDOWN_CARDS + 2] === 1;
      for (let a = 0; a < 4; a++) policyOut[r * 4 + a] = a === (card + (world ? 2 : 0)) % 4 ? 5 : 0;
      valueOut[r * 2] = card / 10;
      valueOut[r * 2 + 1] = world ? other / 10 : -0.5;
    }
  }
  dispose(): void {}
}

/** Tests' shorthand for a search: `tree` settings and hidden-information choices, resolved as a user's for an imperfect-information game. */
export function settingsOf(tree: Partial<SearchConfig> = {}, hidden: Omit<SearchChoices, 'tree'> = {}): SearchSettings {
  return resolveSearchSettings({ game: { id: 'showdown', information: 'imperfect' } }, { ...hidden, tree });
}

/** Tests' shorthand for leaves valued by a network: the network itself, passed as the network. */
export function networkLeaves<S>(network: NetworkEvaluator<S>): SearchLeaves<S> {
  return { evaluator: network, network };
}
