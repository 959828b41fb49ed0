import type { Game, PartModels, ResolvedConfig } from '@az/core';
import { DECK_SIZE } from './cards.js';
import type { BlobGame } from './game.js';
import { BlobState, NONE } from './state.js';

/**
 * Whole games, round by round (README "Whole games"). A round's deal is independent of the rounds
 * before it and each seat's value is affine in its own total score, so the move that maximises a
 * seat's expected round score maximises its expected game score: a network trained on single rounds
 * drawn from the game's sequence (`rounds=sampled`) plays every round of a whole game (`rounds=game`),
 * and its search stops at the end of the current round instead of dealing future rounds.
 */

/**
 * The `rounds=sampled` state of the round `state` (of a whole game) is in: the same cards, bids,
 * tricks, trump, dealer and round index, with the scores of earlier rounds set to zero (the round's
 * value does not depend on them) and the move count restarted at the round. A new state.
 */
export function roundState(state: BlobState): BlobState {
  const round = state.clone();
  round.scores.fill(0);
  round.lastRoundScores.fill(0);
  round.exactBids.fill(0);
  let actions = 0;
  for (let s = 0; s < round.numPlayers; s++) if (round.bids[s] !== NONE) actions++;
  for (let c = 0; c < DECK_SIZE; c++) if (round.playedBy[c] !== NONE) actions++;
  round.moveCount = actions;
  return round;
}

/** Blob's `GamePlugin.partModels`: whole games (`rounds=game`) are played by models of `rounds=sampled`. */
export const blobPartModels: PartModels<BlobState> = {
  trainedSettings: (played: ResolvedConfig) => (played.rounds === 'game' ? { rounds: 'sampled' } : undefined),
  playedSettings: (trained: ResolvedConfig) => (trained.rounds === 'sampled' ? { rounds: 'game' } : undefined),
  project(state: BlobState, played: Game<BlobState>, modelGame: Game<BlobState>): BlobState {
    const from = (played as BlobGame).rules;
    const to = (modelGame as BlobGame).rules;
    if (from.rounds !== 'game' || to.rounds !== 'sampled' || from.players !== to.players || from.maxHand !== to.maxHand || from.trump !== to.trump || from.scoring !== to.scoring || from.missPenalty !== to.missPenalty) {
      throw new Error(
        `blob: a ${to.rounds} model of ${to.players} players, maxHand ${to.maxHand} cannot play rounds=${from.rounds} with ${from.players} players, maxHand ${from.maxHand} (trump, scoring and missPenalty must match too)`,
      );
    }
    return roundState(state);
  },
};
