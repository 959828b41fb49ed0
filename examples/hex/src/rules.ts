/**
 * The rules of Hex on an n x n rhombus. Players take turns placing a stone on an empty cell. Seat 0
 * (X, moves first) wins by joining the top and bottom edges with a chain of its stones, seat 1 (O)
 * by joining the left and right edges. The board fills up only when someone has connected, so there
 * are no draws and no passes. No pie rule.
 *
 * Cells are row-major with row 0 at the top. On the rhombus, cell (r, c) touches (r, c-1), (r, c+1),
 * (r-1, c), (r-1, c+1), (r+1, c-1) and (r+1, c).
 */

/** The settings a game is played under (from the plugin's config schema, see game.ts). */
export interface HexRules {
  /** Cells per side of the rhombus. */
  readonly size: number;
}

/** A position. Mutable: the game applies moves in place and clones it for search. */
export interface HexState {
  /** size * size cells, row-major with row 0 at the top: -1 empty, else the seat whose stone it is. */
  cells: Int8Array;
  /** Seat to move, 0 or 1. */
  toMove: number;
  /** Stones on the board. */
  stones: number;
  /** The seat that connected its edges, or -1. */
  winner: number;
  /** The cell of the last stone placed, or -1. */
  lastCell: number;
}

/** The six neighbour offsets on the rhombus, as [dr, dc]. */
export const NEIGHBOURS: readonly (readonly [number, number])[] = [
  [0, -1],
  [0, 1],
  [-1, 0],
  [-1, 1],
  [1, -1],
  [1, 0],
];

/** Every game ends by the time the board is full (someone has connected by then). */
export function longestGame(rules: HexRules): number {
  return rules.size * rules.size;
}

export function newState(rules: HexRules): HexState {
  return { cells: new Int8Array(rules.size * rules.size).fill(-1), toMove: 0, stones: 0, winner: -1, lastCell: -1 };
}

export function cloneState(s: HexState): HexState {
  return { ...s, cells: s.cells.slice() };
}

export function isOver(_rules: HexRules, s: HexState): boolean {
  return s.winner >= 0;
}

/** Why `action` cannot be played now, or null when it can. */
export function illegalReason(rules: HexRules, s: HexState, action: number): string | null {
  if (isOver(rules, s)) return 'the game is over';
  if (!Number.isInteger(action) || action < 0 || action >= rules.size * rules.size) return 'no such move';
  if (s.cells[action] !== -1) return 'that cell is taken';
  return null;
}

/** Plays `action` (a cell) for the seat to move; throws when it is illegal. */
export function play(rules: HexRules, s: HexState, action: number): void {
  const why = illegalReason(rules, s, action);
  if (why) throw new Error(`hex: illegal move ${action}: ${why}`);
  s.cells[action] = s.toMove;
  s.stones++;
  s.lastCell = action;
  if (connectsAt(rules, s, action)) s.winner = s.toMove;
  s.toMove = 1 - s.toMove;
}

/**
 * The chain through `cell` (its owner's stones joined to it), or an empty list for an empty cell.
 */
export function chainOf(rules: HexRules, s: HexState, cell: number): number[] {
  const seat = s.cells[cell];
  if (seat < 0) return [];
  const { size } = rules;
  const seen = new Uint8Array(size * size);
  const stack = [cell];
  const chain: number[] = [];
  seen[cell] = 1;
  while (stack.length > 0) {
    const at = stack.pop()!;
    chain.push(at);
    const r = Math.floor(at / size);
    const c = at % size;
    for (const [dr, dc] of NEIGHBOURS) {
      const r2 = r + dr;
      const c2 = c + dc;
      if (r2 < 0 || r2 >= size || c2 < 0 || c2 >= size) continue;
      const next = r2 * size + c2;
      if (!seen[next] && s.cells[next] === seat) {
        seen[next] = 1;
        stack.push(next);
      }
    }
  }
  return chain;
}

/** Whether the chain through the stone on `cell` joins its owner's two edges. */
export function connectsAt(rules: HexRules, s: HexState, cell: number): boolean {
  const { size } = rules;
  const seat = s.cells[cell];
  let low = false;
  let high = false;
  for (const at of chainOf(rules, s, cell)) {
    const line = seat === 0 ? Math.floor(at / size) : at % size;
    if (line === 0) low = true;
    if (line === size - 1) high = true;
  }
  return low && high;
}

/**
 * The fewest empty cells `seat` still has to fill to join its edges (0: connected already;
 * Infinity: cut off), by a 0-1 breadth-first search over the board: own stones cost 0, empty cells 1.
 */
export function distanceToConnect(rules: HexRules, s: HexState, seat: number): number {
  const { size } = rules;
  const n = size * size;
  const dist = new Float64Array(n).fill(Infinity);
  const deque: number[] = [];
  const cost = (cell: number): number => (s.cells[cell] === seat ? 0 : s.cells[cell] < 0 ? 1 : Infinity);
  for (let i = 0; i < size; i++) {
    const start = seat === 0 ? i : i * size; // top row for seat 0, left column for seat 1
    const c = cost(start);
    if (c < dist[start]) {
      dist[start] = c;
      if (c === 0) deque.unshift(start);
      else if (c === 1) deque.push(start);
    }
  }
  let best = Infinity;
  while (deque.length > 0) {
    const at = deque.shift()!;
    const r = Math.floor(at / size);
    const col = at % size;
    if ((seat === 0 ? r : col) === size - 1) best = Math.min(best, dist[at]);
    for (const [dr, dc] of NEIGHBOURS) {
      const r2 = r + dr;
      const c2 = col + dc;
      if (r2 < 0 || r2 >= size || c2 < 0 || c2 >= size) continue;
      const next = r2 * size + c2;
      const c = cost(next);
      if (c === Infinity) continue;
      const d = dist[at] + c;
      if (d < dist[next]) {
        dist[next] = d;
        if (c === 0) deque.unshift(next);
        else deque.push(next);
      }
    }
  }
  return best;
}

/** The result for each seat: +1 for the winner, -1 for the loser, 0 each while the game is on. */
export function result(s: HexState): [number, number] {
  if (s.winner < 0) return [0, 0];
  return s.winner === 0 ? [1, -1] : [-1, 1];
}

/** Cell names as in Hex notation: columns a, b, c ... from the left, rows 1, 2, 3 ... from the top. */
export function cellName(rules: HexRules, cell: number): string {
  return String.fromCharCode(97 + (cell % rules.size)) + String(Math.floor(cell / rules.size) + 1);
}

/** The cell a name like 'c2' gives, or -1. */
export function cellOf(rules: HexRules, name: string): number {
  const m = /^([a-z])(\d+)$/.exec(name.trim().toLowerCase());
  if (!m) return -1;
  const col = m[1].charCodeAt(0) - 97;
  const row = Number(m[2]) - 1;
  return col < rules.size && row >= 0 && row < rules.size ? row * rules.size + col : -1;
}
