// Move generation checked by perft, through the plugin's own fillMask / clone / applyAction.
// Counts from https://www.chessprogramming.org/Perft_Results and the edge-case suite of
// https://www.chessprogramming.net/perfect-perft/ (every count below also matches chess.js's own perft).
import { Chess } from 'chess.js';
import { describe, expect, it } from 'vitest';
import { stateFromFen } from './state.js';
import { makeGame, mirrorFen, perftMovesOnly, perftThroughPlugin } from './test-helpers.js';

const game = makeGame();

const START = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';
// Note: Kiwipete has a knight on e5, a pawn on e4, a queen on f3 and a black pawn on h3, and position 6
// a black bishop on g4; copies of these FENs without those pieces circulate (and give other counts).
const KIWIPETE = 'r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1';
const POSITION_3 = '8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - -';
const POSITION_4 = 'r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1';
const POSITION_5 = 'rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8';
const POSITION_6 = 'r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10';

const cases: [name: string, fen: string, counts: number[]][] = [
  // counts[d - 1] = nodes at depth d
  ['start position', START, [20, 400, 8_902, 197_281]],
  ['Kiwipete (castling, pins, en passant, promotions)', KIWIPETE, [48, 2_039, 97_862]],
  ['position 3 (en passant pins, rook endgame)', POSITION_3, [14, 191, 2_812, 43_238, 674_624]],
  ['position 4 (promotions, castling through check)', POSITION_4, [6, 264, 9_467, 422_333]],
  ['position 4 mirrored (black to move: flipped action encoding)', mirrorFen(POSITION_4), [6, 264, 9_467, 422_333]],
  ['position 5 (promotion with check, castling)', POSITION_5, [44, 1_486, 62_379, 2_103_487]],
  ['position 6 (middlegame)', POSITION_6, [46, 2_079, 89_890]],
];

describe('perft through fillMask + clone + applyAction', () => {
  for (const [name, fen, counts] of cases) {
    it(`${name} to depth ${counts.length}`, { timeout: 30_000 }, () => {
      for (let depth = 1; depth <= counts.length; depth++) {
        expect(perftThroughPlugin(game, stateFromFen(fen), depth), `${fen} depth ${depth}`).toBe(counts[depth - 1]);
      }
    });
  }
});

describe('perft of the movement rules on edge cases', () => {
  // Published counts include moves made after the game would have ended by rule (insufficient material),
  // so these run without the draw rules; generator and move application are the plugin's. Counts marked
  // "chess.js" are at a smaller depth than published, computed with chess.js's own perft (which matches
  // the published count at the published depth).
  const edgeCases: [name: string, fen: string, depth: number, count: number][] = [
    ['illegal en passant: horizontal pin (chess.js)', '3k4/3p4/8/K1P4r/8/8/8/8 b - - 0 1', 5, 185_429],
    ['illegal en passant: diagonal pin (chess.js)', '8/8/4k3/8/2p5/8/B2P2K1/8 w - - 0 1', 5, 135_655],
    ['en passant capture gives check (chess.js)', '8/8/1k6/2b5/2pP4/8/5K2/8 b - d3 0 1', 5, 206_379],
    ['short castling gives check (chess.js)', '5k2/8/8/8/8/8/8/4K2R w K - 0 1', 5, 120_330],
    ['long castling gives check (chess.js)', '3k4/8/8/8/8/8/8/R3K3 w Q - 0 1', 5, 141_077],
    ['castling rights lost by capture (chess.js)', 'r3k2r/1b4bq/8/8/8/8/7B/R3K2R w KQkq - 0 1', 3, 27_826],
    ['castling prevented by attacks (chess.js)', 'r3k2r/8/3Q4/8/8/5q2/8/R3K2R b KQkq - 0 1', 3, 50_509],
    ['promote out of check (chess.js)', '2K2r2/4P3/8/8/8/8/8/3k4 w - - 0 1', 5, 266_199],
    ['discovered check (chess.js)', '8/8/1P2K3/8/2n5/1q6/8/5k2 b - - 0 1', 4, 31_961],
    ['promote to give check', '4k3/1P6/8/8/8/8/K7/8 w - - 0 1', 6, 217_342],
    ['underpromote to check', '8/P1k5/K7/8/8/8/8/8 w - - 0 1', 6, 92_683],
    ['self stalemate', 'K1k5/8/P7/8/8/8/8/8 w - - 0 1', 6, 2_217],
    ['stalemate and checkmate (chess.js)', '8/k1P5/8/1K6/8/8/8/8 w - - 0 1', 6, 43_261],
    ['double check', '8/8/2k5/5q2/5n2/8/5K2/8 b - - 0 1', 4, 23_527],
  ];
  for (const [name, fen, depth, count] of edgeCases) {
    it(`${name}: ${fen} depth ${depth}`, { timeout: 30_000 }, () => {
      expect(perftMovesOnly(stateFromFen(fen), depth)).toBe(count);
    });
  }
});

describe('agrees with chess.js perft', () => {
  // Mistyped variants of Kiwipete and position 6 (pieces missing) that circulate: no published counts,
  // so chess.js's own perft (make/unmake with its full legality check) is the reference.
  it.each([
    ['r3k2r/p1ppqpb1/bn2pnp1/3P4/1p6/2N2N2/PPPBBPPP/R3K2R w KQkq - 0 1'],
    ['r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P3/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10'],
  ])('%s to depth 3', (fen) => {
    expect(perftThroughPlugin(game, stateFromFen(fen), 3)).toBe(new Chess(fen).perft(3));
  });
});
