import { configValues, defineConfigSchema, type Game, type GameTraits, type GridView, type ParsedAction, type ResolvedConfig, type Symmetry } from '@az/core';
import { HexEncoder, HexMasker, hexSymmetries } from './encoding.js';
import { cellName, cellOf, chainOf, cloneState, illegalReason, isOver, longestGame, newState, play, result, type HexRules, type HexState } from './rules.js';

/** Settings for `--config key=value`, validated (types, ranges, unknown keys) before `create`. */
export const HEX_CONFIG = defineConfigSchema({
  size: { type: 'int', default: 5, min: 2, max: 11, description: 'cells per side of the rhombus' },
});

/** Typed rules from a validated config. */
export function rulesOf(config: ResolvedConfig): HexRules {
  return configValues(HEX_CONFIG, config);
}

const DEFAULT_RULES = rulesOf({});

export const HEX_TRAITS: GameTraits = {
  id: 'hex',
  name: 'Hex',
  description: 'Place stones on a rhombus of hexagons; X joins top and bottom, O joins left and right. No draws.',
  minPlayers: 2,
  maxPlayers: 2,
  information: 'perfect',
  chance: false,
  rewards: 'zero-sum',
  // Under the default config; each Game states its own config's bound.
  maxGameLength: longestGame(DEFAULT_RULES),
};

/** Hex under one config: the contract's view of the rules in rules.ts. */
export class HexGame implements Game<HexState> {
  readonly traits = HEX_TRAITS;
  readonly numPlayers = 2;
  readonly rules: HexRules;
  readonly maxGameLength: number;
  readonly encoder: HexEncoder;
  readonly masker: HexMasker;
  readonly symmetries: readonly Symmetry[];

  constructor(readonly config: ResolvedConfig) {
    this.rules = rulesOf(config);
    this.maxGameLength = longestGame(this.rules);
    this.encoder = new HexEncoder(this.rules);
    this.masker = new HexMasker(this.rules);
    this.symmetries = hexSymmetries(this.rules);
  }

  // No chance in this game, so the Rng arguments are unused.
  initialState(): HexState {
    return newState(this.rules);
  }

  currentPlayer(state: HexState): number {
    return state.toMove;
  }

  applyAction(state: HexState, action: number): void {
    play(this.rules, state, action);
  }

  isTerminal(state: HexState): boolean {
    return isOver(this.rules, state);
  }

  /** One value per seat: +1 for the winner, -1 for the loser, zeros while the game is on. */
  returns(state: HexState): Float32Array {
    return Float32Array.from(result(state));
  }

  clone(state: HexState): HexState {
    return cloneState(state);
  }

  hash(state: HexState): string {
    return Array.from(state.cells, (v) => (v < 0 ? '.' : String(v))).join('') + '|' + state.toMove;
  }

  /** The rhombus drawn slanted, as Hex boards are: each row one step further right. */
  render(state: HexState): string {
    const { size } = this.rules;
    const lines: string[] = ['   ' + Array.from({ length: size }, (_, c) => String.fromCharCode(97 + c)).join(' ') + '   (X: top-bottom, O: left-right)'];
    for (let r = 0; r < size; r++) {
      const row = Array.from({ length: size }, (_, c) => ['.', 'X', 'O'][state.cells[r * size + c] + 1]).join(' ');
      lines.push(' '.repeat(r) + String(r + 1).padStart(2) + ' ' + row);
    }
    const status = isOver(this.rules, state)
      ? 'seat ' + state.winner + ' (' + 'XO'[state.winner] + ') wins'
      : 'seat ' + state.toMove + ' (' + 'XO'[state.toMove] + ') to move';
    return lines.join('\n') + '\n' + status;
  }

  formatAction(_state: HexState, action: number): string {
    return cellName(this.rules, action);
  }

  /** Reads a cell name ('c2': column letter from the left, row number from the top). */
  parseAction(state: HexState, text: string): ParsedAction {
    const action = cellOf(this.rules, text);
    if (action < 0) return { ok: false, error: "type a cell such as 'c2' (column letter, row number from the top)" };
    const why = illegalReason(this.rules, state, action);
    return why ? { ok: false, error: why } : { ok: true, action };
  }

  /** A grid for `az serve` (square cells: the grid view has no hexagons); the winning chain or the last stone marked. */
  view(state: HexState): GridView {
    const { size } = this.rules;
    const targets: { action: number; cell: number }[] = [];
    if (!isOver(this.rules, state)) {
      for (let cell = 0; cell < size * size; cell++) if (state.cells[cell] === -1) targets.push({ action: cell, cell });
    }
    const highlight = state.winner >= 0 ? chainOf(this.rules, state, state.lastCell) : state.lastCell >= 0 ? [state.lastCell] : [];
    return {
      kind: 'grid',
      rows: size,
      cols: size,
      cells: Array.from(state.cells, (v) => (v < 0 ? null : { seat: v, label: '' })),
      targets,
      highlight,
    };
  }
}
