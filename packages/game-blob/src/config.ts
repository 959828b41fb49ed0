import { ConfigError, type ConfigSchema, type ResolvedConfig } from '@az/core';
import { DECK_SIZE } from './cards.js';

export type TrumpRule = 'rotation' | 'turned-up';
export type ScoringRule = 'blob' | 'oh-hell';
export type RoundsRule = 'one' | 'game' | 'sampled';

/** Default largest hand when `maxHand` is left at 0 (auto): the largest C <= 7 with C * players <= 52. */
export const DEFAULT_MAX_HAND_CAP = 7;

export const blobConfigSchema: ConfigSchema = {
  players: { type: 'int', default: 4, min: 3, max: 8, label: 'Players', description: 'number of players, seated in a ring' },
  maxHand: {
    type: 'int',
    default: 0,
    min: 0,
    max: 17,
    label: 'Largest hand (0: auto)',
    description: 'largest hand C (cards dealt in the first and last rounds); 0 = auto: the largest C <= 7 with C * players <= 52',
  },
  trump: {
    type: 'enum',
    values: ['rotation', 'turned-up'],
    default: 'rotation',
    label: 'Trump',
    valueLabels: { rotation: 'in turn: ♠ ♥ ♣ ♦ none', 'turned-up': 'the turned-up card' },
    description: 'rotation: round index mod 5 -> spades, hearts, clubs, diamonds, no trump; turned-up: the first undealt card names trump',
  },
  scoring: {
    type: 'enum',
    values: ['blob', 'oh-hell'],
    default: 'blob',
    label: 'Scoring',
    valueLabels: { blob: 'Blob: 10 + bid if exact', 'oh-hell': 'Oh Hell: tricks + 10 if exact' },
    description: 'blob: 10 + bid for an exact bid, else 0; oh-hell: tricks taken + 10 for an exact bid',
  },
  missPenalty: { type: 'boolean', default: false, label: 'Missed bids lose points (Oh Hell)', description: 'oh-hell scoring only: a missed bid also loses the difference' },
  rounds: {
    type: 'enum',
    values: ['one', 'game', 'sampled'],
    default: 'game',
    label: 'Rounds',
    valueLabels: { one: 'one round', game: 'a whole game', sampled: 'one round drawn from a game' },
    description:
      'one: a single round of roundCards cards; game: the whole sequence of rounds; sampled: a single round drawn uniformly from the whole sequence (its cards, trump and dealer), what a network that plays whole games round by round trains on',
  },
  roundCards: { type: 'int', default: 5, min: 1, max: 17, label: 'Cards (one round)', description: 'rounds=one only (another value with rounds=game or sampled is refused): cards dealt in that single round' },
  firstDealer: { type: 'int', default: 0, min: 0, max: 7, label: 'First dealer (seat)', description: 'seat that deals the first round (the deal then moves left)' },
};

/** The config as typed, validated rules. */
export interface BlobRules {
  readonly players: number;
  /** Largest hand; also the largest bid, so the action space has bids 0..maxHand. */
  readonly maxHand: number;
  readonly trump: TrumpRule;
  readonly scoring: ScoringRule;
  readonly missPenalty: boolean;
  readonly rounds: RoundsRule;
  readonly roundCards: number;
  readonly firstDealer: number;
  /** Cards dealt in each round, in order (for `sampled`, the whole game's sequence the round is drawn from). */
  readonly schedule: readonly number[];
}

/** Largest C <= 7 with C * players <= 52. */
export function defaultMaxHand(players: number): number {
  return Math.min(DEFAULT_MAX_HAND_CAP, Math.floor(DECK_SIZE / players));
}

/**
 * Cross-field checks and derived defaults (the plugin's `finalizeConfig`). Idempotent, so `create`
 * can apply it again to a config that was only schema-validated.
 */
export function finalizeBlobConfig(config: ResolvedConfig): ResolvedConfig {
  const players = config.players as number;
  const rounds = config.rounds as RoundsRule;
  const roundCards = config.roundCards as number;
  let maxHand = config.maxHand as number;
  // A single round's size: the whole game's rounds (and a round drawn from them) follow maxHand, so another
  // value would be ignored. Only its default is let through there, as every resolved config carries it
  // (the schema fills it in, and the training unit, rounds=one with it, may be merged under rounds=game);
  // a config without the field (a partial one handed to `create`) has nothing to refuse.
  if (rounds !== 'one' && config.roundCards !== undefined && roundCards !== blobConfigSchema.roundCards.default) {
    throw new ConfigError(
      'roundCards',
      `game 'blob' config: roundCards ${roundCards} only applies with rounds=one (rounds is ${String(rounds)}, whose hands follow maxHand); set rounds=one or leave roundCards out`,
    );
  }
  if (maxHand === 0) maxHand = rounds === 'one' ? roundCards : defaultMaxHand(players);
  // In a single round, roundCards is the root cause when it overflows the deck (maxHand may derive from it).
  if (rounds === 'one' && roundCards * players > DECK_SIZE) {
    throw new ConfigError(
      'roundCards',
      `game 'blob' config: roundCards ${roundCards} with ${players} players needs ${roundCards * players} cards, but the deck has ${DECK_SIZE}`,
    );
  }
  if (maxHand * players > DECK_SIZE) {
    throw new ConfigError(
      'maxHand',
      `game 'blob' config: maxHand ${maxHand} with ${players} players needs ${maxHand * players} cards, but the deck has ${DECK_SIZE} (use maxHand <= ${Math.floor(DECK_SIZE / players)})`,
    );
  }
  if (rounds === 'one' && roundCards > maxHand) {
    throw new ConfigError('roundCards', `game 'blob' config: roundCards ${roundCards} exceeds maxHand ${maxHand} (bids would not fit the action space)`);
  }
  if (config.missPenalty === true && config.scoring !== 'oh-hell') {
    throw new ConfigError('missPenalty', `game 'blob' config: missPenalty applies only to scoring=oh-hell (scoring is ${String(config.scoring)})`);
  }
  const firstDealer = config.firstDealer as number;
  if (firstDealer >= players) {
    throw new ConfigError('firstDealer', `game 'blob' config: firstDealer ${firstDealer} is not a seat of ${players} players (0..${players - 1})`);
  }
  return { ...config, maxHand };
}

/** Cards per round: C, C-1, ..., 1, then `players` rounds of 1, then 2, ..., C. */
export function roundSchedule(maxHand: number, players: number): number[] {
  const schedule: number[] = [];
  for (let c = maxHand; c >= 1; c--) schedule.push(c);
  for (let i = 0; i < players; i++) schedule.push(1);
  for (let c = 2; c <= maxHand; c++) schedule.push(c);
  return schedule;
}

/** Typed rules from a finalized config. */
export function blobRules(config: ResolvedConfig): BlobRules {
  const finalized = finalizeBlobConfig(config);
  const players = finalized.players as number;
  const maxHand = finalized.maxHand as number;
  const rounds = finalized.rounds as RoundsRule;
  const roundCards = finalized.roundCards as number;
  return {
    players,
    maxHand,
    trump: finalized.trump as TrumpRule,
    scoring: finalized.scoring as ScoringRule,
    missPenalty: finalized.missPenalty as boolean,
    rounds,
    roundCards,
    firstDealer: finalized.firstDealer as number,
    schedule: rounds === 'one' ? [roundCards] : roundSchedule(maxHand, players),
  };
}

/** Upper bound (exact, in fact) on actions in one game: every seat bids once and plays every card dealt. */
export function gameLength(rules: BlobRules): number {
  if (rules.rounds === 'sampled') return rules.players * (1 + rules.maxHand); // one round, at most maxHand cards
  let total = 0;
  for (const cards of rules.schedule) total += rules.players * (1 + cards);
  return total;
}

/** Rounds one game of these rules plays: 1 for `one` and `sampled`, the schedule's length for `game`. */
export function roundsPlayed(rules: BlobRules): number {
  return rules.rounds === 'game' ? rules.schedule.length : 1;
}
