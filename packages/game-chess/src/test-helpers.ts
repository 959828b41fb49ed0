// Shared by the tests (excluded from the build by the `test-*` pattern).
import { Rng, validateConfig } from '@az/core';
import { chessPlugin } from './plugin.js';
import type { ChessGame } from './game.js';
import { applyLegalMove, cloneState, legalActionsOf, type ChessState } from './state.js';

export function makeGame(raw: Record<string, unknown> = {}): ChessGame {
  const config = chessPlugin.finalizeConfig!(validateConfig(chessPlugin.configSchema, raw, "game 'chess' config"));
  return chessPlugin.create(config) as ChessGame;
}

/** Plays moves given as SAN or UCI through the game's own parser; throws with the parser's error. */
export function play(game: ChessGame, state: ChessState, ...moves: string[]): ChessState {
  const rng = new Rng(0);
  for (const text of moves) {
    const parsed = game.parseAction(state, text);
    if (!parsed.ok) throw new Error(`cannot play ${text}: ${parsed.error}`);
    game.applyAction(state, parsed.action, rng);
  }
  return state;
}

/**
 * Perft through the plugin: legal actions come from `fillMask`, children from `clone` + `applyAction`;
 * the last ply is counted from the mask (bulk counting, as perft programs do).
 */
export function perftThroughPlugin(game: ChessGame, state: ChessState, depth: number): number {
  const rng = new Rng(0);
  const masks = Array.from({ length: depth + 1 }, () => new Uint8Array(game.masker.actionSize));
  const visit = (node: ChessState, remaining: number): number => {
    const mask = masks[remaining];
    const count = game.masker.fillMask(node, mask, 0);
    if (remaining === 1) return count;
    let total = 0;
    for (let action = 0; action < mask.length; action++) {
      if (!mask[action]) continue;
      const child = game.clone(node);
      game.applyAction(child, action, rng);
      total += visit(child, remaining - 1);
    }
    return total;
  };
  return depth === 0 ? 1 : visit(state, depth);
}

/**
 * Perft of the movement rules alone (the same legal-move generator and move application, without the
 * draw rules that end a game), for the published edge-case positions whose counts include moves played
 * after insufficient material or a repetition.
 */
export function perftMovesOnly(state: ChessState, depth: number): number {
  const moves = legalActionsOf(state);
  if (depth === 1) return moves.length;
  let total = 0;
  for (let i = 0; i < moves.length; i++) {
    const child = cloneState(state);
    applyLegalMove(child, i);
    total += perftMovesOnly(child, depth - 1);
  }
  return total;
}

/** The colour-mirrored position: ranks reversed, colours and side to move swapped. */
export function mirrorFen(fen: string): string {
  const [board, turn, castling, ep, half, full] = fen.split(' ');
  const swapCase = (s: string): string => s.replace(/[a-zA-Z]/g, (ch) => (ch === ch.toUpperCase() ? ch.toLowerCase() : ch.toUpperCase()));
  const mirroredBoard = swapCase(board.split('/').reverse().join('/'));
  const mirroredCastling = castling === '-' ? '-' : [...swapCase(castling)].sort((a, b) => 'KQkq'.indexOf(a) - 'KQkq'.indexOf(b)).join('');
  const mirroredEp = ep === '-' ? '-' : ep[0] + (ep[1] === '3' ? '6' : '3');
  return [mirroredBoard, turn === 'w' ? 'b' : 'w', mirroredCastling, mirroredEp, half ?? '0', full ?? '1'].join(' ');
}
