/**
 * Network input: 8x8xC planes (HWC), seen from one seat.
 *
 * Cell (row, col): row = rank counted from the perspective seat's own back rank (0..7), col = file a..h.
 * For white that is rank 1 at row 0; for black the board is flipped vertically. The cell index row*8+col
 * is therefore the same "relative square" the action encoding uses for the side to move.
 *
 * Channels, for H = `history` (C = 14 * (H + 1) + 7):
 *   for t = 0..H (t = 0 the current position, t = 1 the one before, ...), at 14 * t:
 *     +0..5   the perspective seat's pawns, knights, bishops, rooks, queens, king
 *     +6..11  the opponent's pawns, knights, bishops, rooks, queens, king
 *     +12     all ones if this position occurred at least once before in the game
 *     +13     all ones if it occurred at least twice before (threefold: only at the final position)
 *     (all zero for t before the start of the game)
 *   then the constant planes, at 14 * (H + 1):
 *     +0  colour: ones if the perspective seat is black
 *     +1  to move: ones if the perspective seat is the side to move (always, when the search encodes for the mover)
 *     +2  perspective seat may still castle kingside    +3  ... queenside
 *     +4  opponent may still castle kingside            +5  ... queenside
 *     +6  half-move clock / 100 (the fifty-move rule draws at 1)
 *
 * No plane tells the ply count or the game-length cap (v1 had plies / maxPlies): a model then plays
 * under any cap, so it can be trained on short games (adjudicated at a low cap, which teaches material
 * fast) and play full-length ones.
 */
import type { Encoder } from '@az/core';
import { BLACK_KINGSIDE, BLACK_QUEENSIDE, readCells, WHITE_KINGSIDE, WHITE_QUEENSIDE } from './position.js';
import { BLACK_PIECE_OFFSET, type ChessState } from './state.js';

export const PLANES_PER_POSITION = 14;
export const CONSTANT_PLANES = 7;

export function encoderChannels(history: number): number {
  return PLANES_PER_POSITION * (history + 1) + CONSTANT_PLANES;
}

export function encoderVersion(history: number): string {
  return `chess-v2-h${history}`;
}

export class ChessEncoder implements Encoder<ChessState> {
  readonly version: string;
  readonly shape: readonly number[];
  readonly size: number;
  readonly channels: number;
  /** `constantImage`'s inputs by key (perspective, to move, castling rights). */
  private readonly images: (Float32Array | undefined)[] = new Array<Float32Array | undefined>(64).fill(undefined);

  constructor(readonly history: number) {
    this.channels = encoderChannels(history);
    this.version = encoderVersion(history);
    this.shape = [8, 8, this.channels];
    this.size = 64 * this.channels;
  }

  encode(state: ChessState, perspective: number, out: Float32Array, offset: number): void {
    if (perspective !== 0 && perspective !== 1) throw new RangeError(`chess encoder: perspective must be seat 0 or 1, got ${perspective}`);
    const channels = this.channels;
    const pos = state.pos;
    const perspectiveIsWhite = perspective === 0;
    // Zeros and the constant planes but the half-move clock, in one copy (see `constantImage`).
    out.set(this.constantImage(perspective, pos.turn === perspective, pos.castling), offset);
    const flip = perspectiveIsWhite ? 0 : 56; // relative square = absolute ^ 56 for black
    const channelOf = perspectiveIsWhite ? CHANNEL_FOR_WHITE : CHANNEL_FOR_BLACK;
    let record: ChessState['position'] | null = state.position;
    for (let t = 0; t <= this.history && record !== null; t++) {
      const base = offset + PLANES_PER_POSITION * t;
      if (t === 0 && record.pieces === null) {
        // The current position, read straight off the board (cell a8 = 0, so the absolute square is cell ^ 56).
        const board = readCells(state.pos);
        const cellFlip = flip ^ 56;
        for (let cell = 0; cell < 64; cell++) {
          const code = board[cell];
          if (code !== 0) out[base + (cell ^ cellFlip) * channels + channelOf[code]] = 1;
        }
      } else {
        // Earlier positions got their pieces when their move was played (if the state keeps history).
        if (record.pieces === null) throw new Error('chess encoder: this state does not keep the history its input planes need');
        const pieces = record.pieces;
        for (let square = 0; square < 64; square++) {
          const code = pieces[square];
          if (code !== 0) out[base + (square ^ flip) * channels + channelOf[code]] = 1;
        }
      }
      if (record.repetitions >= 1) fillPlane(out, base + 12, channels, 1);
      if (record.repetitions >= 2) fillPlane(out, base + 13, channels, 1);
      record = record.previous;
    }

    const k = offset + PLANES_PER_POSITION * (this.history + 1);
    fillPlane(out, k + 6, channels, Math.min(1, pos.halfMoves / 100));
  }

  /**
   * An input with every piece and repetition plane zero and constant planes 0-5 set (colour, to move,
   * the four castling rights; the half-move clock left zero), built on first use: at most 64 of them
   * (344 KB with history 0). Copying one replaces clearing the input and filling those planes one
   * strided pass each.
   */
  private constantImage(perspective: number, toMove: boolean, rights: number): Float32Array {
    const key = perspective | (toMove ? 2 : 0) | (rights << 2);
    let image = this.images[key];
    if (image === undefined) {
      const white = perspective === 0;
      image = new Float32Array(this.size);
      const k = PLANES_PER_POSITION * (this.history + 1);
      const channels = this.channels;
      if (!white) fillPlane(image, k, channels, 1);
      if (toMove) fillPlane(image, k + 1, channels, 1);
      if (rights & (white ? WHITE_KINGSIDE : BLACK_KINGSIDE)) fillPlane(image, k + 2, channels, 1);
      if (rights & (white ? WHITE_QUEENSIDE : BLACK_QUEENSIDE)) fillPlane(image, k + 3, channels, 1);
      if (rights & (white ? BLACK_KINGSIDE : WHITE_KINGSIDE)) fillPlane(image, k + 4, channels, 1);
      if (rights & (white ? BLACK_QUEENSIDE : WHITE_QUEENSIDE)) fillPlane(image, k + 5, channels, 1);
      this.images[key] = image;
    }
    return image;
  }
}

/** Channel of each piece code (1..6 white, 7..12 black pawn..king) for a white and a black perspective. */
const CHANNEL_FOR_WHITE = Int8Array.from({ length: 13 }, (_, code) => (code === 0 ? -1 : code - 1));
const CHANNEL_FOR_BLACK = Int8Array.from({ length: 13 }, (_, code) => (code === 0 ? -1 : code <= BLACK_PIECE_OFFSET ? code - 1 + 6 : code - 1 - BLACK_PIECE_OFFSET));

/** Sets one channel of all 64 cells (HWC: the channel's values are `channels` apart). */
function fillPlane(out: Float32Array, start: number, channels: number, value: number): void {
  if (value === 0) return;
  for (let cell = 0; cell < 64; cell++) out[start + cell * channels] = value;
}
