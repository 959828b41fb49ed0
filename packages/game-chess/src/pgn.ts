/**
 * PGN (Portable Game Notation) export: the seven-tag roster, SetUp/FEN for games from a position,
 * Termination, and the moves in SAN, wrapped at 80 columns as the standard asks.
 */
import { legalMoveIndex, outcomeOf, sanOfLegalMove, stateFromFen, toFen, type ChessState } from './state.js';
import { applyLegalMove } from './state.js';

export interface PgnGame {
  /** Tags besides the result (Event, Site, Date, Round, White, Black and any others), in order. */
  readonly tags: Readonly<Record<string, string>>;
  /** The position before the first move. */
  readonly start: ChessState;
  /** The actions played. */
  readonly actions: readonly number[];
  /** Overrides the result and termination read from the final position (e.g. an abandoned game: '*'). */
  readonly result?: '1-0' | '0-1' | '1/2-1/2' | '*';
  readonly termination?: string;
}

const STANDARD_START = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';
const ROSTER = ['Event', 'Site', 'Date', 'Round', 'White', 'Black'];

function escapeTag(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"');
}

/** PGN text of one game (ends with a blank line, so games can be concatenated). */
export function formatPgn(game: PgnGame): string {
  const startFen = toFen(game.start);
  const state = stateFromFen(startFen, { maxPlies: game.start.maxPlies, adjudicateLead: game.start.adjudicateLead });
  // Replay from a copy: the ply count of the start state is kept (it may not be 0 for a FEN start).
  state.plies = game.start.plies;
  const [, turn, , , , fullmoveText] = startFen.split(' ');
  let moveNumber = Number(fullmoveText) || 1;
  let whiteToMove = turn === 'w';
  const tokens: string[] = [];
  for (const action of game.actions) {
    const index = legalMoveIndex(state, action);
    if (index < 0) throw new Error(`PGN: action ${action} is not legal in ${toFen(state)}`);
    const san = sanOfLegalMove(state, index);
    if (whiteToMove) tokens.push(`${moveNumber}.`);
    else if (tokens.length === 0) tokens.push(`${moveNumber}...`);
    tokens.push(san);
    applyLegalMove(state, index);
    if (!whiteToMove) moveNumber++;
    whiteToMove = !whiteToMove;
  }
  const outcome = outcomeOf(state);
  const result = game.result ?? (outcome ? (outcome.winner === 'w' ? '1-0' : outcome.winner === 'b' ? '0-1' : '1/2-1/2') : '*');
  const termination = game.termination ?? (outcome ? outcome.termination : 'unterminated');
  const tags: [string, string][] = [];
  for (const key of ROSTER) tags.push([key, game.tags[key] ?? '?']);
  tags.push(['Result', result]);
  for (const [k, v] of Object.entries(game.tags)) if (!ROSTER.includes(k)) tags.push([k, v]);
  if (startFen !== STANDARD_START) tags.push(['SetUp', '1'], ['FEN', startFen]);
  tags.push(['PlyCount', String(game.actions.length)], ['Termination', termination]);
  tokens.push(result);
  const lines: string[] = [];
  let line = '';
  for (const t of tokens) {
    if (line.length + 1 + t.length > 79) {
      lines.push(line);
      line = t;
    } else line = line ? `${line} ${t}` : t;
  }
  if (line) lines.push(line);
  return `${tags.map(([k, v]) => `[${k} "${escapeTag(v)}"]`).join('\n')}\n\n${lines.join('\n')}\n\n`;
}
