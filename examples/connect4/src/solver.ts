/**
 * An exact Connect Four solver: bitboard negamax with alpha-beta, a transposition table of bounds,
 * null-window bisection on the score, and move ordering by the threats a move creates (the method
 * Pascal Pons describes in his "Solving Connect 4" tutorial, written here from that description).
 *
 * Scores follow that convention: 0 is a draw; a win for the side to move with its k-th own disc counted
 * from the position is worth (cells + 1 - discs played after the win) / 2, i.e. the sooner the larger;
 * a loss the negative of the opponent's win. `solveWeak` only tells win (1), draw (0) and loss (-1),
 * which is much cheaper and all the test set needs.
 *
 * The board is `cols` columns of `rows + 1` bits each (the extra bit keeps columns apart), split over
 * two 32-bit words at a column boundary so every operation stays on JS int32 arithmetic. Only
 * four-in-a-row is supported, on boards whose two halves fit those words (6 x 7 and smaller).
 */
import { type Connect4Rules, type Connect4State } from './rules.js';

export const WIN = 1;
export const DRAW = 0;
export const LOSS = -1;

/** Column indices from the centre out: central columns take part in more lines, so they are tried first. */
function centreFirst(cols: number): Int32Array {
  const order = new Int32Array(cols);
  for (let i = 0; i < cols; i++) order[i] = Math.floor(cols / 2) + (1 - 2 * (i % 2)) * Math.floor((i + 1) / 2);
  return order;
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/** Number of entries of the transposition table: a prime, so keys spread evenly (see `Connect4Solver`). */
const DEFAULT_TABLE_SIZE = 4_194_319;

/**
 * Solves Connect Four positions exactly. One instance keeps its transposition table between calls, so
 * solving many related positions (all the moves of one position, positions of one game) reuses work.
 */
export class Connect4Solver {
  readonly rows: number;
  readonly cols: number;
  readonly cells: number;
  /** Nodes visited since construction (for benchmarks). */
  nodes = 0;

  // Layout: columns [0, loCols) live in the low word, [loCols, cols) in the high word.
  private readonly H1: number;
  private readonly loCols: number;
  private readonly loBits: number;
  private readonly loMask: number;
  private readonly hiMask: number;
  private readonly bottomLo: number;
  private readonly bottomHi: number;
  private readonly boardLo: number;
  private readonly boardHi: number;
  private readonly order: Int32Array;
  private readonly minScore: number;
  private readonly maxScore: number;

  // Transposition table: key mod 2^32 in `keys`, index = key mod size (the pair identifies the key, a
  // number below 2^53, as size is a prime above 2^21); value 0 = empty, else a bound (see put/get).
  private readonly keys: Uint32Array;
  private readonly values: Int8Array;
  private readonly tableSize: number;

  // Candidate moves per ply (indexed by discs played * cols), sorted by score.
  private readonly mvHi: Int32Array;
  private readonly mvLo: Int32Array;
  private readonly mvScore: Int32Array;

  // The results of the two-word operations (JS has no multiple returns; fields avoid allocation).
  private rHi = 0;
  private rLo = 0;

  constructor(rules: Pick<Connect4Rules, 'rows' | 'cols' | 'connect'>, tableSize = DEFAULT_TABLE_SIZE) {
    const { rows, cols, connect } = rules;
    if (connect !== 4) throw new RangeError(`Connect4Solver: only four in a row is supported, got connect=${connect}`);
    const H1 = rows + 1;
    const loCols = Math.min(cols, Math.floor(31 / H1));
    const loBits = loCols * H1;
    const hiBits = (cols - loCols) * H1;
    // The alignment test shifts by up to 3 * (rows + 2) bits across the split.
    if (hiBits > 31 || loBits < 3 * (rows + 2) || rows * cols > 120) {
      throw new RangeError(`Connect4Solver: a ${rows}x${cols} board does not fit the solver's two 32-bit words (6x7 and smaller do)`);
    }
    this.rows = rows;
    this.cols = cols;
    this.cells = rows * cols;
    this.H1 = H1;
    this.loCols = loCols;
    this.loBits = loBits;
    this.loMask = loBits >= 31 ? 0x7fffffff : (1 << loBits) - 1;
    this.hiMask = hiBits === 0 ? 0 : (1 << hiBits) - 1;
    let bLo = 0;
    let bHi = 0;
    let colLo = 0;
    let colHi = 0;
    const colMask = (1 << rows) - 1;
    for (let c = 0; c < cols; c++) {
      if (c < loCols) {
        bLo |= 1 << (c * H1);
        colLo |= colMask << (c * H1);
      } else {
        bHi |= 1 << ((c - loCols) * H1);
        colHi |= colMask << ((c - loCols) * H1);
      }
    }
    this.bottomLo = bLo;
    this.bottomHi = bHi;
    this.boardLo = colLo;
    this.boardHi = colHi;
    this.order = centreFirst(cols);
    this.minScore = -Math.floor(this.cells / 2) + 3;
    this.maxScore = Math.floor((this.cells + 1) / 2) - 3;
    this.tableSize = tableSize;
    this.keys = new Uint32Array(tableSize);
    this.values = new Int8Array(tableSize);
    this.mvHi = new Int32Array((this.cells + 1) * cols);
    this.mvLo = new Int32Array((this.cells + 1) * cols);
    this.mvScore = new Int32Array((this.cells + 1) * cols);
  }

  /** Forgets everything learnt (the table is only a cache; results never depend on it). */
  reset(): void {
    this.keys.fill(0);
    this.values.fill(0);
  }

  // ---- public API on game states ------------------------------------------------------------------

  /** The exact score of `state` for the side to move (see the module comment); the game must not be over. */
  solve(rules: Connect4Rules, state: Connect4State): number {
    const p = this.fromState(rules, state);
    return this.solveBits(p.curHi, p.curLo, p.maskHi, p.maskLo, p.moves, false);
  }

  /** Win (1), draw (0) or loss (-1) for the side to move in `state`; the game must not be over. */
  solveWeak(rules: Connect4Rules, state: Connect4State): number {
    const p = this.fromState(rules, state);
    return this.solveBits(p.curHi, p.curLo, p.maskHi, p.maskLo, p.moves, true);
  }

  /**
   * The value of each move for the side to move in `state`: `out[c]` is the result (weak: -1/0/1, else
   * the exact score) the mover gets by dropping in column c with best play after it, or NaN when the
   * column is full. A move that connects at once is a win worth its score.
   */
  moveValues(rules: Connect4Rules, state: Connect4State, weak = true, out = new Float64Array(this.cols)): Float64Array {
    const p = this.fromState(rules, state);
    for (let c = 0; c < this.cols; c++) {
      out[c] = NaN;
      if (!this.canPlay(p.maskHi, p.maskLo, c)) continue;
      this.moveBits(p.maskHi, p.maskLo, c);
      const mvHi = this.rHi;
      const mvLo = this.rLo;
      const moves = p.moves + 1;
      if (this.isWinningMove(p.curHi, p.curLo, p.maskHi, p.maskLo, c)) {
        out[c] = weak ? WIN : Math.floor((this.cells + 1 - p.moves) / 2);
        continue;
      }
      // After the move, the opponent is to move: its stones are the other stones of the old mask.
      const nHi = p.curHi ^ p.maskHi;
      const nLo = p.curLo ^ p.maskLo;
      const mHi = p.maskHi | mvHi;
      const mLo = p.maskLo | mvLo;
      if (moves === this.cells) {
        out[c] = DRAW;
        continue;
      }
      out[c] = 0 - this.solveBits(nHi, nLo, mHi, mLo, moves, weak); // 0 - x: no -0
    }
    return out;
  }

  // ---- bitboard -------------------------------------------------------------------------------------

  private fromState(rules: Connect4Rules, state: Connect4State): { curHi: number; curLo: number; maskHi: number; maskLo: number; moves: number } {
    if (rules.rows !== this.rows || rules.cols !== this.cols) throw new RangeError(`Connect4Solver: built for ${this.rows}x${this.cols}, given a ${rules.rows}x${rules.cols} position`);
    if (state.winner !== -1 || state.moves === this.cells) throw new RangeError('Connect4Solver: the game is over');
    let curHi = 0;
    let curLo = 0;
    let maskHi = 0;
    let maskLo = 0;
    const mine = state.toMove + 1;
    for (let c = 0; c < this.cols; c++) {
      for (let h = 0; h < state.heights[c]; h++) {
        const cell = state.board[(this.rows - 1 - h) * this.cols + c];
        if (c < this.loCols) {
          const bit = 1 << (c * this.H1 + h);
          maskLo |= bit;
          if (cell === mine) curLo |= bit;
        } else {
          const bit = 1 << ((c - this.loCols) * this.H1 + h);
          maskHi |= bit;
          if (cell === mine) curHi |= bit;
        }
      }
    }
    return { curHi, curLo, maskHi, maskLo, moves: state.moves };
  }

  private canPlay(maskHi: number, maskLo: number, c: number): boolean {
    const top = this.rows - 1;
    return c < this.loCols ? (maskLo & (1 << (c * this.H1 + top))) === 0 : (maskHi & (1 << ((c - this.loCols) * this.H1 + top))) === 0;
  }

  /** The cell a disc dropped in column c lands on, into rHi/rLo. */
  private moveBits(maskHi: number, maskLo: number, c: number): void {
    if (c < this.loCols) {
      const col = ((1 << this.rows) - 1) << (c * this.H1);
      this.rLo = (maskLo + (1 << (c * this.H1))) & col;
      this.rHi = 0;
    } else {
      const s = (c - this.loCols) * this.H1;
      const col = ((1 << this.rows) - 1) << s;
      this.rHi = (maskHi + (1 << s)) & col;
      this.rLo = 0;
    }
  }

  private isWinningMove(curHi: number, curLo: number, maskHi: number, maskLo: number, c: number): boolean {
    this.winningCells(curHi, curLo, maskHi, maskLo);
    const wHi = this.rHi;
    const wLo = this.rLo;
    this.moveBits(maskHi, maskLo, c);
    return ((wHi & this.rHi) | (wLo & this.rLo)) !== 0;
  }

  /** x << n (0 < n <= loBits) over the two words, into rHi/rLo. */
  private shl(hi: number, lo: number, n: number): void {
    this.rLo = (lo << n) & this.loMask;
    this.rHi = ((hi << n) | (lo >>> (this.loBits - n))) & this.hiMask;
  }

  /** x >> n (0 < n <= loBits) over the two words, into rHi/rLo. */
  private shr(hi: number, lo: number, n: number): void {
    this.rLo = ((lo >>> n) | (hi << (this.loBits - n))) & this.loMask;
    this.rHi = hi >>> n;
  }

  /**
   * The empty cells (playable or not) where the owner of `pos` would complete four in a row, into
   * rHi/rLo. For each direction d, a cell is winning when three of pos's discs sit at -3d..-d, -2d..+d,
   * -d..+2d or +d..+3d of it.
   */
  private winningCells(posHi: number, posLo: number, maskHi: number, maskLo: number): void {
    // Vertical: only the three discs below can complete a column.
    let wHi = (posHi << 1) & (posHi << 2) & (posHi << 3);
    let wLo = (posLo << 1) & (posLo << 2) & (posLo << 3);
    for (let k = 0; k < 3; k++) {
      const d = this.H1 + k - 1;
      this.shl(posHi, posLo, d);
      const l1Hi = this.rHi;
      const l1Lo = this.rLo;
      this.shl(posHi, posLo, 2 * d);
      const l2Hi = this.rHi;
      const l2Lo = this.rLo;
      this.shr(posHi, posLo, d);
      const r1Hi = this.rHi;
      const r1Lo = this.rLo;
      this.shr(posHi, posLo, 2 * d);
      const r2Hi = this.rHi;
      const r2Lo = this.rLo;
      let pHi = l1Hi & l2Hi;
      let pLo = l1Lo & l2Lo;
      this.shl(posHi, posLo, 3 * d);
      wHi |= pHi & this.rHi;
      wLo |= pLo & this.rLo;
      wHi |= pHi & r1Hi;
      wLo |= pLo & r1Lo;
      pHi = r1Hi & r2Hi;
      pLo = r1Lo & r2Lo;
      this.shr(posHi, posLo, 3 * d);
      wHi |= pHi & this.rHi;
      wLo |= pLo & this.rLo;
      wHi |= pHi & l1Hi;
      wLo |= pLo & l1Lo;
    }
    this.rHi = wHi & (this.boardHi ^ maskHi);
    this.rLo = wLo & (this.boardLo ^ maskLo);
  }

  // ---- search ---------------------------------------------------------------------------------------

  private solveBits(curHi: number, curLo: number, maskHi: number, maskLo: number, moves: number, weak: boolean): number {
    // A win in one is not searched (negamax assumes the side to move cannot win at once).
    const possHi = (maskHi + this.bottomHi) & this.boardHi;
    const possLo = (maskLo + this.bottomLo) & this.boardLo;
    this.winningCells(curHi, curLo, maskHi, maskLo);
    if ((this.rHi & possHi) | (this.rLo & possLo)) return weak ? WIN : Math.floor((this.cells + 1 - moves) / 2);
    let min = -Math.floor((this.cells - moves) / 2);
    let max = Math.floor((this.cells + 1 - moves) / 2);
    if (weak) {
      min = -1;
      max = 1;
    }
    while (min < max) {
      // Bisection with a null window, biased towards 0 (results near a draw are the cheap ones to prove).
      let med = min + Math.floor((max - min) / 2);
      if (med <= 0 && Math.trunc(min / 2) < med) med = Math.trunc(min / 2);
      else if (med >= 0 && Math.trunc(max / 2) > med) med = Math.trunc(max / 2);
      const r = this.negamax(curHi, curLo, maskHi, maskLo, moves, med, med + 1);
      if (r <= med) max = r;
      else min = r;
    }
    return (weak ? Math.sign(min) : min) + 0; // no -0
  }

  private tableGet(keyHi: number, keyLo: number): number {
    const key = keyHi * 2 ** this.loBits + keyLo;
    const i = key % this.tableSize;
    return this.keys[i] === key >>> 0 ? this.values[i] : 0;
  }

  private tablePut(keyHi: number, keyLo: number, value: number): void {
    const key = keyHi * 2 ** this.loBits + keyLo;
    const i = key % this.tableSize;
    this.keys[i] = key >>> 0;
    this.values[i] = value;
  }

  /**
   * Score of the position for the side to move, within (alpha, beta): a fail-low returns an upper bound,
   * a fail-high a lower bound. Precondition: the side to move cannot win with its next disc.
   */
  private negamax(curHi: number, curLo: number, maskHi: number, maskLo: number, moves: number, alpha: number, beta: number): number {
    this.nodes++;
    const { cells } = this;
    const oppHi = curHi ^ maskHi;
    const oppLo = curLo ^ maskLo;
    let possHi = (maskHi + this.bottomHi) & this.boardHi;
    let possLo = (maskLo + this.bottomLo) & this.boardLo;
    this.winningCells(oppHi, oppLo, maskHi, maskLo);
    const oppWinHi = this.rHi;
    const oppWinLo = this.rLo;
    const forcedHi = possHi & oppWinHi;
    const forcedLo = possLo & oppWinLo;
    if (forcedHi | forcedLo) {
      // Two threats the opponent can play at once cannot both be blocked.
      if (popcount(forcedHi) + popcount(forcedLo) > 1) return -Math.floor((cells - moves) / 2);
      possHi = forcedHi;
      possLo = forcedLo;
    }
    // Never play right below a cell where the opponent would connect.
    this.shr(oppWinHi, oppWinLo, 1);
    possHi &= ~this.rHi;
    possLo &= ~this.rLo;
    if ((possHi | possLo) === 0) return -Math.floor((cells - moves) / 2);
    if (moves >= cells - 2) return 0;

    // The opponent cannot win with its next disc, so the worst is losing two discs later.
    const lower = -Math.floor((cells - 2 - moves) / 2);
    if (alpha < lower) {
      alpha = lower;
      if (alpha >= beta) return alpha;
    }
    let upper = Math.floor((cells - 1 - moves) / 2);
    const keyHi = curHi + maskHi;
    const keyLo = curLo + maskLo;
    const stored = this.tableGet(keyHi, keyLo);
    if (stored !== 0) {
      if (stored > this.maxScore - this.minScore + 1) {
        const lo = stored + 2 * this.minScore - this.maxScore - 2;
        if (alpha < lo) {
          alpha = lo;
          if (alpha >= beta) return alpha;
        }
      } else {
        const up = stored + this.minScore - 1;
        if (up < upper) upper = up;
      }
    }
    if (beta > upper) {
      beta = upper;
      if (alpha >= beta) return beta;
    }

    // Order the candidate moves by how many winning cells they leave the mover (ties: centre first).
    const { mvHi, mvLo, mvScore: score } = this;
    const base = moves * this.cols;
    let n = 0;
    for (let i = this.cols - 1; i >= 0; i--) {
      const c = this.order[i];
      let hi = 0;
      let lo = 0;
      if (c < this.loCols) lo = possLo & (((1 << this.rows) - 1) << (c * this.H1));
      else hi = possHi & (((1 << this.rows) - 1) << ((c - this.loCols) * this.H1));
      if ((hi | lo) === 0) continue;
      this.winningCells(curHi | hi, curLo | lo, maskHi, maskLo);
      const s = popcount(this.rHi) + popcount(this.rLo);
      // Insertion sort, best last; equal scores keep the later-inserted (more central) move later.
      let j = base + n++;
      while (j > base && score[j - 1] > s) {
        mvHi[j] = mvHi[j - 1];
        mvLo[j] = mvLo[j - 1];
        score[j] = score[j - 1];
        j--;
      }
      mvHi[j] = hi;
      mvLo[j] = lo;
      score[j] = s;
    }
    for (let k = base + n - 1; k >= base; k--) {
      // Play: the opponent becomes the side to move.
      const v = -this.negamax(oppHi, oppLo, maskHi | mvHi[k], maskLo | mvLo[k], moves + 1, -beta, -alpha);
      if (v >= beta) {
        // A lower bound, stored above the upper bounds' range (scores below minScore never occur as bounds worth keeping).
        if (v >= this.minScore) this.tablePut(keyHi, keyLo, v + this.maxScore - 2 * this.minScore + 2);
        return v;
      }
      if (v > alpha) alpha = v;
    }
    // An upper bound; 0 would read as an empty entry.
    if (alpha >= this.minScore) this.tablePut(keyHi, keyLo, alpha - this.minScore + 1);
    return alpha;
  }
}
