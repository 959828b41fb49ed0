// The 4,672-action encoding over thousands of positions from seeded random playouts, and the
// black-to-move flip checked on mirrored positions.
import { Rng } from '@az/core';
import { Chess } from 'chess.js';
import { describe, expect, it } from 'vitest';
import { ACTION_SIZE, decodeMove, encodeMove, FIRST_KNIGHT_PLANE, FIRST_UNDERPROMOTION_PLANE, PLANES_PER_SQUARE } from './action-encoding.js';
import { internals } from './internals.js';
import { legalMoveIndex, legalMoveOf, legalMovesOf, stateFromFen, toFen, type ChessState } from './state.js';
import { CONSTANT_PLANES } from './encoding.js';
import { makeGame, mirrorFen } from './test-helpers.js';

const game = makeGame();

/** Positions from seeded random games (every 3rd ply, until the game ends). */
function randomPositions(games: number, seed: number): ChessState[] {
  const rng = new Rng(seed);
  const mask = new Uint8Array(ACTION_SIZE);
  const out: ChessState[] = [];
  for (let g = 0; g < games; g++) {
    const state = game.initialState(rng);
    for (let ply = 0; !game.isTerminal(state); ply++) {
      if (ply % 3 === 0) out.push(game.clone(state));
      const count = game.masker.fillMask(state, mask, 0);
      let k = rng.int(count);
      let action = 0;
      for (; action < ACTION_SIZE; action++) if (mask[action] && k-- === 0) break;
      game.applyAction(state, action, rng);
    }
  }
  return out;
}

const positions = randomPositions(30, 1234);

describe('action encoding', () => {
  it('has the documented layout', () => {
    expect(ACTION_SIZE).toBe(4672);
    // e2e4 for white: from e2 (square 12), north (direction 0) distance 2 -> plane 1.
    expect(encodeMove({ from: 'e2', to: 'e4' }, 'w')).toBe(12 * PLANES_PER_SQUARE + 1);
    // e7e5 for black is the same action: the board is flipped vertically for the side to move.
    expect(encodeMove({ from: 'e7', to: 'e5' }, 'b')).toBe(12 * PLANES_PER_SQUARE + 1);
    // g1f3: knight jump (-1, +2) is knight plane 7.
    expect(encodeMove({ from: 'g1', to: 'f3' }, 'w')).toBe(6 * PLANES_PER_SQUARE + FIRST_KNIGHT_PLANE + 7);
    // e1g1 (castling) is a two-square king move east: direction 2, distance 2.
    expect(encodeMove({ from: 'e1', to: 'g1' }, 'w')).toBe(4 * PLANES_PER_SQUARE + 2 * 7 + 1);
    // a7a8=Q is a queen move; a7xb8=N is underpromotion knight (0), capture towards h (+1).
    expect(encodeMove({ from: 'a7', to: 'a8', promotion: 'q' }, 'w')).toBe(48 * PLANES_PER_SQUARE + 0);
    expect(encodeMove({ from: 'a7', to: 'b8', promotion: 'n' }, 'w')).toBe(48 * PLANES_PER_SQUARE + FIRST_UNDERPROMOTION_PLANE + 2);
    // h2xg1=R for black: relative h7 -> g8, rook (2), capture towards a (-1 -> 0).
    expect(encodeMove({ from: 'h2', to: 'g1', promotion: 'r' }, 'b')).toBe(55 * PLANES_PER_SQUARE + FIRST_UNDERPROMOTION_PLANE + 6);
    expect(decodeMove(55 * PLANES_PER_SQUARE + FIRST_UNDERPROMOTION_PLANE + 6, 'b')).toEqual({ from: 'h2', to: 'g1', underpromotion: 'r' });
    expect(() => encodeMove({ from: 'a1', to: 'c2' as string }, 'w')).not.toThrow();
    expect(() => encodeMove({ from: 'a1', to: 'b4' }, 'w')).toThrow(/not a move/);
    // An action leading off the board decodes to null: a1 moving west.
    expect(decodeMove(0 * PLANES_PER_SQUARE + 6 * 7, 'w')).toBeNull();
  });

  it('every action of the 4,672 decodes and re-encodes to itself when on the board', () => {
    let onBoard = 0;
    const wrong: number[] = [];
    for (const turn of ['w', 'b'] as const) {
      for (let action = 0; action < ACTION_SIZE; action++) {
        const move = decodeMove(action, turn);
        if (!move) continue;
        onBoard++;
        if (encodeMove({ from: move.from, to: move.to, promotion: move.underpromotion }, turn) !== action) wrong.push(action);
      }
    }
    expect(wrong).toEqual([]);
    // On the board, per side: 1,456 queen-plane (896 rook-like + 560 bishop-like), 336 knight-plane and
    // 3 x 154 underpromotion-plane actions (defined from every square below the last rank).
    expect(onBoard).toBe(2 * (1456 + 336 + 462));
  });

  // Checks are plain comparisons collected into a list (one expect per test): vitest's expect costs ~10 µs
  // a call, which over millions of checks would dominate the run.
  it(`is injective, decodes back, and the mask holds exactly chess.js's legal moves (${positions.length} random positions)`, { timeout: 30_000 }, () => {
    expect(positions.length).toBeGreaterThan(2000);
    const mask = new Uint8Array(ACTION_SIZE);
    const problems: string[] = [];
    let moves = 0;
    for (const state of positions) {
      const fen = toFen(state);
      const turn = state.turn;
      const count = game.masker.fillMask(state, mask, 0);
      // chess.js's own legal moves on the FEN (its make/unmake legality), as the reference.
      const reference = internals(new Chess(fen))._moves({ legal: true });
      if (count !== reference.length) problems.push(`${fen}: mask count ${count}, chess.js ${reference.length}`);
      let ones = 0;
      for (let a = 0; a < ACTION_SIZE; a++) ones += mask[a];
      if (ones !== count) problems.push(`${fen}: ${ones} ones in the mask, fillMask returned ${count}`);
      const seen = new Set<number>();
      for (const m of reference) {
        moves++;
        const from = 'abcdefgh'[m.from & 7] + String(8 - (m.from >> 4));
        const to = 'abcdefgh'[m.to & 7] + String(8 - (m.to >> 4));
        const text = from + to + (m.promotion ?? '');
        const action = encodeMove({ from, to, promotion: m.promotion }, turn);
        if (seen.has(action)) problems.push(`${fen}: two moves share action ${action}`);
        seen.add(action);
        if (mask[action] !== 1) problems.push(`${fen}: ${text} (action ${action}) missing from the mask`);
        const decoded = decodeMove(action, turn);
        const underpromotion = m.promotion === 'q' ? undefined : m.promotion;
        if (!decoded || decoded.from + decoded.to !== from + to || decoded.underpromotion !== underpromotion) {
          problems.push(`${fen}: ${text} decodes to ${JSON.stringify(decoded)}`);
        }
        // The plugin's own move for this action (what applyAction would play).
        const index = legalMoveIndex(state, action);
        const own = index < 0 ? undefined : legalMovesOf(state)[index];
        if (!own || own.from !== m.from || own.to !== m.to || own.promotion !== m.promotion) problems.push(`${fen}: action of ${text} plays something else`);
      }
      if (problems.length > 20) break;
    }
    expect(problems).toEqual([]);
    expect(moves).toBeGreaterThan(50_000);
  });

  it('black to move uses the same actions as white in the mirrored position', () => {
    const fens = [
      'r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1',
      'r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1',
      'rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3', // en passant
      ...positions.filter((_, i) => i % 10 === 0).map(toFen),
    ];
    const maskA = new Uint8Array(ACTION_SIZE);
    const maskB = new Uint8Array(ACTION_SIZE);
    const planesA = new Float32Array(game.encoder.size);
    const planesB = new Float32Array(game.encoder.size);
    const channels = game.encoder.shape[2];
    const colourPlane = channels - CONSTANT_PLANES;
    const problems: string[] = [];
    for (const fen of fens) {
      const a = stateFromFen(fen);
      const b = stateFromFen(mirrorFen(fen));
      if (b.turn === a.turn) problems.push(`${fen}: mirror has the same side to move`);
      const countA = game.masker.fillMask(a, maskA, 0);
      const countB = game.masker.fillMask(b, maskB, 0);
      if (countA !== countB || maskA.some((v, i) => v !== maskB[i])) problems.push(`${fen}: masks differ (${countA} vs ${countB} legal)`);
      // Seen by the side to move, the two positions are the same except for the colour plane.
      game.encoder.encode(a, game.currentPlayer(a), planesA, 0);
      game.encoder.encode(b, game.currentPlayer(b), planesB, 0);
      for (let i = 0; i < planesA.length; i++) {
        const expected = i % channels === colourPlane ? 1 - planesA[i] : planesA[i];
        if (planesB[i] !== expected) {
          problems.push(`${fen}: input element ${i} (channel ${i % channels}) is ${planesB[i]}, expected ${expected}`);
          break;
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('legalMoveOf describes the move an action plays', () => {
    const state = stateFromFen('4k3/1P6/8/8/8/8/8/4K2R w K - 0 1');
    expect(legalMoveOf(state, encodeMove({ from: 'b7', to: 'b8', promotion: 'q' }, 'w'))).toEqual({
      from: 'b7',
      to: 'b8',
      piece: 'p',
      promotion: 'q',
      san: 'b8=Q+',
      uci: 'b7b8q',
    });
    expect(legalMoveOf(state, encodeMove({ from: 'e1', to: 'g1' }, 'w'))?.san).toBe('O-O');
    expect(legalMoveOf(state, encodeMove({ from: 'e1', to: 'e3' }, 'w'))).toBeNull();
  });

  it('legal moves match chess.js move for move after play (not only after loading a FEN)', () => {
    for (const state of positions.slice(0, 300)) {
      const ours = legalMovesOf(state).map((m) => `${m.from}-${m.to}-${m.promotion ?? ''}`).sort();
      const reference = internals(state.chess)._moves({ legal: true }).map((m) => `${m.from}-${m.to}-${m.promotion ?? ''}`).sort();
      expect(ours).toEqual(reference);
    }
  });
});
