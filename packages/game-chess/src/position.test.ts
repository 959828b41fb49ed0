// The search's typed-array position (position.ts) against chess.js, position by position, over seeded
// random games from openings, tactical test positions and endgames: the same legal moves in the same
// order, check, and game ends as the game defines them (mate, stalemate, threefold repetition counted on
// chess.js's own Zobrist keys, the fifty-move rule, chess.js's insufficient material), the same position
// (chess.js's key of our board equals chess.js's key after its own moves) and an incremental key equal to
// one computed from scratch. 20,000 positions by default; AZ_SLOW_TESTS=1 runs 200,000.
import { Rng } from '@az/core';
import { Chess } from 'chess.js';
import { describe, expect, it } from 'vitest';
import { actionOfInternalMove } from './action-encoding.js';
import { internals, type InternalMove } from './internals.js';
import { chessFromPosition, freshKey } from './position.js';
import { applyLegalMove, legalActionsOf, loadChess, outcomeOf, stateFromFen, type Termination } from './state.js';

const SLOW = process.env.AZ_SLOW_TESTS === '1';
const POSITIONS = SLOW ? 200_000 : 20_000;
/** Plies per game before starting the next one (endgames reach the fifty-move rule well before). */
const MAX_GAME_PLIES = 400;

const STARTS = [
  'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1',
  'r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1', // Kiwipete
  '8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1', // en passant pins
  'r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1', // promotions, castling through check
  'rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8',
  'r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10',
  'n3k3/1P4P1/8/8/8/8/1p4p1/N3K3 w - - 0 1', // promotions on both sides
  '4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1', // castling, rook endgames (repetitions, fifty moves)
  'k7/8/8/8/8/8/1n6/KR6 w - - 0 1', // captures into insufficient material
  'k7/8/2b5/8/8/5B2/8/K7 w - - 0 1', // bishops: same or opposite colours
  '8/8/3k4/8/2pPp3/8/8/3K4 b - d3 0 1', // double en passant chance
  '8/5k2/8/8/8/8/2K5/5Nb1 w - - 0 1',
  'k7/8/1Q6/8/8/8/8/7K w - - 0 1', // most quiet white moves stalemate
];

/** What the game should report for a position, computed from chess.js alone. */
function referenceTermination(chess: Chess, legal: InternalMove[], earlierOccurrences: number): Termination | null {
  const c = internals(chess);
  if (legal.length === 0) return c._isKingAttacked(c._turn) ? 'checkmate' : 'stalemate';
  if (earlierOccurrences >= 2) return 'threefold repetition';
  if (c._halfMoves >= 100) return 'fifty-move rule';
  if (chess.isInsufficientMaterial()) return 'insufficient material';
  return null;
}

describe('typed-array position', () => {
  it(`agrees with chess.js on ${POSITIONS.toLocaleString('en')} positions of seeded random games`, () => {
    const rng = new Rng(20);
    const seen: Record<string, number> = {};
    let positions = 0;
    for (let game = 0; positions < POSITIONS; game++) {
      const fen = STARTS[game % STARTS.length];
      const state = stateFromFen(fen, { maxPlies: 100_000 });
      const reference = loadChess(fen);
      const ref = internals(reference);
      const occurrences = new Map<bigint, number>();
      // Each side's last move: taking it back now and then makes repetitions common enough to test.
      const lastMove: (InternalMove | undefined)[] = [undefined, undefined];
      for (let ply = 0; ply < MAX_GAME_PLIES && positions < POSITIONS; ply++, positions++) {
        const where = `${reference.fen()} (game ${game}, ply ${ply})`;
        const earlier = occurrences.get(ref._hash) ?? 0;
        occurrences.set(ref._hash, earlier + 1);
        const legal = ref._moves({ legal: true });
        const ours = legalActionsOf(state);
        // Same moves in chess.js's order: compared as action lists (actions are injective, see action-encoding.test.ts).
        if (ours.length !== legal.length || legal.some((m, i) => actionOfInternalMove(m) !== ours[i])) {
          expect(Array.from(ours), where).toEqual(legal.map(actionOfInternalMove));
        }
        const ourChess = internals(chessFromPosition(state.pos));
        if (ourChess._hash !== ref._hash) expect(chessFromPosition(state.pos).fen(), where).toBe(reference.fen());
        expect(ourChess._halfMoves, where).toBe(ref._halfMoves);
        expect(ourChess._moveNumber, where).toBe(ref._moveNumber);
        expect(state.pos.key, where).toBe(freshKey(state.pos));
        expect(state.position.repetitions, where).toBe(earlier);
        expect(state.turn === ref._turn && state.pos.ep === ref._epSquare, where).toBe(true);
        const expected = referenceTermination(reference, legal, earlier);
        const outcome = outcomeOf(state);
        if ((outcome?.termination ?? null) !== expected) expect(outcome?.termination ?? null, where).toBe(expected);
        const termination = expected ?? 'ongoing';
        seen[termination] = (seen[termination] ?? 0) + 1;
        if (ref._isKingAttacked(ref._turn)) seen.check = (seen.check ?? 0) + 1;
        if (expected !== null) break;
        const last = lastMove[ply & 1];
        const back = last && rng.next() < 0.3 ? legal.findIndex((m) => m.from === last.to && m.to === last.from && !m.captured && !m.promotion) : -1;
        const index = back >= 0 ? back : rng.int(legal.length);
        const move = legal[index];
        lastMove[ply & 1] = move;
        if (move.flags & 8) seen['en passant'] = (seen['en passant'] ?? 0) + 1;
        if (move.flags & 96) seen.castling = (seen.castling ?? 0) + 1;
        if (move.promotion) seen.promotion = (seen.promotion ?? 0) + 1;
        applyLegalMove(state, index);
        ref._makeMove(move);
        ref._history.length = 0;
      }
    }
    // Every rule was exercised, not just ordinary moves.
    for (const what of ['checkmate', 'stalemate', 'threefold repetition', 'fifty-move rule', 'insufficient material', 'check', 'en passant', 'castling', 'promotion']) {
      expect(seen[what] ?? 0, `${what} in ${JSON.stringify(seen)}`).toBeGreaterThan(0);
    }
    if (SLOW) console.log(`typed-array position vs chess.js, ${positions} positions: ${JSON.stringify(seen)}`);
  }, 600_000);
});
