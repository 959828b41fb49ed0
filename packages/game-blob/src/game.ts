import { validateConfig, type CardTableView, type Game, type GameTraits, type ParsedAction, type PastDecision, type ResolvedConfig, type Rng } from '@az/core';
import { blobConfigSchema, blobRules, finalizeBlobConfig, gameLength, type BlobRules } from './config.js';
import { BlobDeterminizer } from './determinizer.js';
import { BlobEncoder, BlobMasker } from './encoding.js';
import { blobInformationState, type BlobInformationState } from './information.js';
import { formatBlobAction, parseBlobAction, renderBlob } from './notation.js';
import { applyBlobAction, newGame } from './rules.js';
import { BlobState, PHASE_OVER } from './state.js';
import { pastBids } from './past-bids.js';
import { blobTableView } from './view.js';
import { scoreRange, scoresToValues, type ScoreRange } from './value.js';

const DEFAULT_RULES = blobRules(validateConfig(blobConfigSchema));

export const BLOB_TRAITS: GameTraits = {
  id: 'blob',
  name: 'Blob (Oh Hell)',
  description:
    'Trick-taking for 3-8 players: bid exactly how many tricks you will win; only exact bids score. Hidden hands, a fresh deal every round.',
  minPlayers: 3,
  maxPlayers: 8,
  information: 'imperfect',
  chance: true,
  rewards: 'general-sum',
  maxGameLength: gameLength(DEFAULT_RULES),
};

/**
 * The `Game` for Blob under one config. Chance (every deal) happens inside `initialState` and in the
 * `applyAction` that ends a round, driven by the `rng` passed in.
 */
export class BlobGame implements Game<BlobState> {
  readonly traits = BLOB_TRAITS;
  readonly config: ResolvedConfig;
  readonly rules: BlobRules;
  readonly numPlayers: number;
  readonly maxGameLength: number;
  readonly encoder: BlobEncoder;
  /** The same layout with every hand filled in, for worlds sampled by the determinizer (see `Game.worldEncoder`). */
  readonly worldEncoder: BlobEncoder;
  readonly masker: BlobMasker;
  /** The score range that `returns` maps to [-1, 1] (see value.ts). */
  readonly scoreRange: ScoreRange;
  /** Samples the hidden hands (and stock) consistently with one seat's view: determinized search uses it. */
  readonly determinizer = new BlobDeterminizer();

  constructor(config: ResolvedConfig = validateConfig(blobConfigSchema)) {
    this.config = finalizeBlobConfig(config);
    this.rules = blobRules(this.config);
    this.numPlayers = this.rules.players;
    this.maxGameLength = gameLength(this.rules);
    this.encoder = new BlobEncoder(this.rules);
    this.worldEncoder = new BlobEncoder(this.rules, true);
    this.masker = new BlobMasker(this.rules);
    this.scoreRange = scoreRange(this.rules);
  }

  initialState(rng: Rng): BlobState {
    return newGame(this.rules, rng);
  }

  currentPlayer(state: BlobState): number {
    return state.toAct;
  }

  applyAction(state: BlobState, action: number, rng: Rng): void {
    applyBlobAction(this.rules, state, action, rng);
  }

  isTerminal(state: BlobState): boolean {
    return state.phase === PHASE_OVER;
  }

  /**
   * At the end: each seat's total score mapped to [-1, 1] by `scoreToValue` over this config's score
   * range (whole game, or the single round). Before the end: zeros (no provisional estimate).
   */
  returns(state: BlobState): Float32Array {
    const out = new Float32Array(this.numPlayers);
    if (state.phase === PHASE_OVER) scoresToValues(state.scores, this.scoreRange, out);
    return out;
  }

  clone(state: BlobState): BlobState {
    return state.clone();
  }

  hash(state: BlobState): string {
    return state.key();
  }

  render(state: BlobState, perspective?: number): string {
    return renderBlob(this.rules, state, perspective);
  }

  formatAction(_state: BlobState, action: number): string {
    return formatBlobAction(action);
  }

  parseAction(state: BlobState, text: string): ParsedAction {
    return parseBlobAction(this.rules, state, text);
  }

  /** The other seats' bids this round, rebuilt in a sampled world (inference over worlds; see past-bids.ts). */
  pastDecisions(world: BlobState, observer: number): PastDecision<BlobState>[] {
    return pastBids(world, observer);
  }

  informationState(state: BlobState, seat: number): BlobInformationState {
    return blobInformationState(state, seat);
  }

  /** The card table as `seat` sees it: built from its information state only. */
  view(state: BlobState, seat: number): CardTableView {
    const legal: { action: number; label: string }[] = [];
    if (state.phase !== PHASE_OVER && state.toAct === seat) {
      const mask = new Uint8Array(this.masker.actionSize);
      this.masker.fillMask(state, mask, 0);
      for (let a = 0; a < mask.length; a++) if (mask[a]) legal.push({ action: a, label: formatBlobAction(a) });
    }
    return blobTableView(blobInformationState(state, seat), legal);
  }
}
