// The public surface of @az/game-blob.
export { blobPlugin, registerBlob, blobOutcomeMetrics, BLOB_TRAINING } from './plugin.js';
export { BlobGame, BLOB_TRAITS } from './game.js';
export { BlobState, NONE, PHASE_BID, PHASE_PLAY, PHASE_OVER, type BlobPhase } from './state.js';
export {
  blobConfigSchema,
  finalizeBlobConfig,
  blobRules,
  defaultMaxHand,
  roundSchedule,
  gameLength,
  roundsPlayed,
  type BlobRules,
  type TrumpRule,
  type ScoringRule,
  type RoundsRule,
} from './config.js';
export {
  DECK_SIZE,
  SUITS,
  RANKS,
  SPADES,
  HEARTS,
  CLUBS,
  DIAMONDS,
  NO_TRUMP,
  SUIT_NAMES,
  cardSuit,
  cardRank,
  makeCard,
  formatCard,
  formatCardSymbol,
  parseCard,
} from './cards.js';
export {
  BID_ACTION_BASE,
  TRUMP_ROTATION,
  bidAction,
  isBidAction,
  actionSpaceSize,
  hookedBid,
  illegalReason,
  trickWinner,
  beats,
  roundScore,
} from './rules.js';
export { scoreRange, roundScoreRange, scoreToValue, valueToScore, scoresToValues, type ScoreRange } from './value.js';
export { BlobEncoder, BlobMasker, blobEncodingLayout, type BlobEncodingLayout } from './encoding.js';
export { blobInformationState, informationKey, type BlobInformationState } from './information.js';
export { formatBlobAction, parseBlobAction, renderBlob, formatHand } from './notation.js';
export { BlobDeterminizer } from './determinizer.js';
export { HeuristicAgent, heuristicAction, heuristicBid, heuristicPlay, estimateTricks } from './heuristic.js';
export { roundState, blobPartModels } from './round-play.js';
export { CountingAgent, CountingBidder, countingPlay, COUNTING_BID_SAMPLES } from './counting.js';
