import type { Game } from '@az/core';
import { Rng } from '@az/core';
import { selectActionFromVisits, type RootChildVisitor, type SearchEngine } from '@az/mcts';
import type { GameRecord } from './game-record.js';

export interface SelfPlayOptions {
  /**
   * Moves (per game) played by sampling the search's policy at temperature 1: the visit counts, or with
   * Gumbel root search its improved policy. After that, the most visited move, or Gumbel's own pick.
   */
  readonly temperatureMoves: number;
  readonly seed: number;
  /**
   * Weight w of the game's `estimateReturns` in value targets: (1 - w) * result + w * estimate of the
   * position (default 0: results only). Needs a game with `estimateReturns`.
   */
  readonly valueShaping?: number;
  /**
   * Weight w of the root search value in value targets: (1 - w) * target + w * the root's mean value
   * after the move's search (default 0). The search value is less noisy than one game's result when
   * moves are sampled at temperature; it is biased by the network early on.
   */
  readonly rootValueWeight?: number;
  /**
   * Playout cap randomization (KataGo): each move is searched with `fullSimulations` with probability
   * `fullShare` and recorded as a training position; otherwise with `reducedSimulations` and not
   * recorded, so games advance cheaply while every recorded policy target comes from a full search.
   */
  readonly playoutCap?: PlayoutCap;
  /**
   * Also record each position's TRUE full state through `game.worldEncoder` (same policy and legal
   * actions, value targets the final returns from the mover's seat), so the network learns to value
   * the full states that determinized search meets as leaves (`leafValues: 'world'`). Each move then
   * adds two rows to the record: the own view, then the world.
   */
  readonly recordWorldStates?: boolean;
  /**
   * Value-only training rows for the root's children (default 0: none). After each recorded move, every
   * child that the search visited at least `CHILD_MIN_VISITS` times in the first N worlds of the slot
   * (perfect information: the one tree, for any N >= 1) adds a row: the child encoded from its mover's
   * seat (through the world encoder when positions are recorded as worlds, which hidden information
   * needs), its value target the child's mean search value, its policy target empty. A game's result
   * only speaks for the move that was played; these rows show the network its sibling moves side by side,
   * which is what a search reads its values for.
   */
  readonly childValueWorlds?: number;
  /** Weights version stamped on every record. */
  readonly weightsVersion?: number;
}

/**
 * A child's value target averages at least this many evaluations (its own and its subtree's): with one,
 * it would be the network's own output on that child, nothing to learn from.
 */
export const CHILD_MIN_VISITS = 2;

export interface PlayoutCap {
  readonly fullShare: number;
  readonly fullSimulations: number;
  readonly reducedSimulations: number;
}

export interface SelfPlayStats {
  games: number;
  positions: number;
  evaluations: number;
  seconds: number;
  averageBatch: number;
  /** With a playout cap: the share of moves searched with the full budget (and recorded). */
  fullSearchShare?: number;
}

/** Positions of one game in progress, grown as it is played. */
class GameInProgress {
  /**
   * The encoded inputs, end to end in chunks of `INPUT_CHUNK` positions, each position encoded straight
   * into its place: one allocation per chunk rather than a copy per move. Position i's is at
   * i % INPUT_CHUNK of chunk i / INPUT_CHUNK; there are `perspectives.length` of them.
   */
  readonly inputChunks: Float32Array[] = [];
  readonly perspectives: number[] = [];
  /** Per position, `estimateReturns` in absolute seat order (value shaping only). */
  readonly estimates: number[] = [];
  /** Per position, the root search value in absolute seat order (root value weight only). */
  readonly rootValues: number[] = [];
  /**
   * Per position, where its value target comes from: -1 for the game's result (with shaping and root
   * value blended in), else the offset in `childValues` of a root child's search value (`childValueWorlds`).
   */
  readonly valueSources: number[] = [];
  /** Root children's search values, P per child row, absolute seat order. */
  readonly childValues: number[] = [];
  readonly policyOffsets: number[] = [0];
  readonly policyIndex: number[] = [];
  readonly policyProb: number[] = [];
  readonly legalOffsets: number[] = [0];
  readonly legalIndex: number[] = [];
  moves = 0;
  /** The weights version when the game started: the oldest network that chose any of its moves. */
  constructor(readonly weightsVersion: number) {}
}

/**
 * Plays many games at once through one `SearchEngine` (one slot per game, all searched in
 * lock-step, so every network call is a batch across games). When a game ends its slot starts the
 * next one, so batches stay full until the last games finish.
 */
export class SelfPlay<S> {
  private readonly rng: Rng;
  private readonly counts: Float32Array;
  /** The policy the search teaches for the current move (`SearchEngine.policyTarget`). */
  private readonly target: Float32Array;
  private readonly mask: Uint8Array;
  private readonly valueShaping: number;
  private readonly rootValueWeight: number;
  private readonly rootValue: Float32Array;
  /** The encoders each position is recorded through: the own view, then (optionally) the world. */
  private readonly encoders: Game<S>['encoder'][];
  private readonly childValueWorlds: number;
  /** `forEachRootChild`'s visitor, made once; it records into `childRecord`. */
  private readonly recordChild: RootChildVisitor<S>;
  private childRecord: GameInProgress | null = null;
  /**
   * The version of the weights the engine's evaluator uses now. A self-play worker sets it when it loads
   * new weights between moves; each record carries the version current when its game started (the
   * oldest network that played in it), so the trainer's staleness check is conservative.
   */
  weightsVersion: number;

  constructor(
    readonly game: Game<S>,
    readonly engine: SearchEngine<S>,
    readonly options: SelfPlayOptions,
  ) {
    this.rng = new Rng(options.seed);
    this.counts = new Float32Array(game.masker.actionSize);
    this.target = new Float32Array(game.masker.actionSize);
    this.mask = new Uint8Array(game.masker.actionSize);
    this.weightsVersion = options.weightsVersion ?? 0;
    this.valueShaping = options.valueShaping ?? 0;
    this.encoders = [game.encoder];
    if (options.recordWorldStates) {
      if (!game.worldEncoder) throw new RangeError(`recordWorldStates: game '${game.traits.id}' has no world encoder`);
      if (game.worldEncoder.size !== game.encoder.size) throw new RangeError(`recordWorldStates: '${game.traits.id}' world encoder size differs from its encoder's`);
      this.encoders.push(game.worldEncoder);
    }
    if (!(this.valueShaping >= 0 && this.valueShaping < 1)) throw new RangeError(`valueShaping must be in [0, 1), got ${this.valueShaping}`);
    if (this.valueShaping > 0 && !game.estimateReturns) throw new RangeError(`valueShaping: game '${game.traits.id}' has no estimateReturns`);
    this.rootValueWeight = options.rootValueWeight ?? 0;
    if (!(this.rootValueWeight >= 0 && this.rootValueWeight <= 1)) throw new RangeError(`rootValueWeight must be in [0, 1], got ${this.rootValueWeight}`);
    if (this.valueShaping + this.rootValueWeight > 1) throw new RangeError('valueShaping + rootValueWeight must not exceed 1');
    this.rootValue = new Float32Array(game.numPlayers);
    this.childValueWorlds = options.childValueWorlds ?? 0;
    if (!(Number.isInteger(this.childValueWorlds) && this.childValueWorlds >= 0)) throw new RangeError(`childValueWorlds must be an integer >= 0, got ${this.childValueWorlds}`);
    if (this.childValueWorlds > 0) {
      if (!engine.forEachRootChild) throw new RangeError('childValueWorlds: this search engine does not list its root children (determinized or perfect-information search does)');
      if (game.traits.information !== 'perfect' && !options.recordWorldStates) {
        throw new RangeError(`childValueWorlds: '${game.traits.id}' has hidden information, so its children are valued as sampled worlds and need recordWorldStates (world values)`);
      }
    }
    const childEncoder = this.encoders[this.encoders.length - 1];
    this.recordChild = (state, visits, value, world) => {
      const rec = this.childRecord;
      if (rec === null || world >= this.childValueWorlds || visits < CHILD_MIN_VISITS || game.isTerminal(state)) return;
      this.recordChildRow(rec, state, value, childEncoder);
    };
    const cap = options.playoutCap;
    if (cap) {
      if (!(cap.fullShare > 0 && cap.fullShare <= 1)) throw new RangeError(`playoutCap.fullShare must be in (0, 1], got ${cap.fullShare}`);
      if (!(Number.isInteger(cap.reducedSimulations) && cap.reducedSimulations >= 1 && cap.reducedSimulations <= cap.fullSimulations)) {
        throw new RangeError(`playoutCap.reducedSimulations must be an integer in [1, fullSimulations=${cap.fullSimulations}], got ${cap.reducedSimulations}`);
      }
    }
  }

  /**
   * Plays `numGames` games (Infinity: until stopped); `onGame` receives each finished game as it
   * completes, `onProgress` the number finished so far. `shouldStop` is polled between moves (Ctrl-C):
   * unfinished games are dropped. `betweenMoves` runs after every move of all slots, before the next
   * search: a worker process yields to its event loop there to take in new weights.
   */
  async play(
    numGames: number,
    onGame: (record: GameRecord) => void,
    onProgress?: (finished: number) => void,
    shouldStop?: () => boolean,
    betweenMoves?: () => Promise<void> | void,
  ): Promise<SelfPlayStats> {
    const { game, engine } = this;
    const slots = engine.numTrees;
    const states: (S | null)[] = new Array<S | null>(slots).fill(null);
    const progress: (GameInProgress | null)[] = new Array<GameInProgress | null>(slots).fill(null);
    const evalBefore = engine.stats.evaluations;
    const callsBefore = engine.stats.evaluatorCalls;
    const start = performance.now();
    let started = 0;
    let finished = 0;
    let positions = 0;

    const startGame = (slot: number): void => {
      if (started >= numGames) {
        states[slot] = null;
        progress[slot] = null;
        engine.clearTree(slot);
        return;
      }
      started++;
      const state = game.initialState(this.rng);
      states[slot] = state;
      progress[slot] = new GameInProgress(this.weightsVersion);
      engine.setRoot(slot, state);
    };
    for (let s = 0; s < slots; s++) startGame(s);

    const cap = this.options.playoutCap;
    const budgets = cap ? new Int32Array(slots) : undefined;
    let fullMoves = 0;
    let reducedMoves = 0;
    while (finished < numGames && !shouldStop?.()) {
      if (cap && budgets) for (let slot = 0; slot < slots; slot++) budgets[slot] = this.rng.next() < cap.fullShare ? cap.fullSimulations : cap.reducedSimulations;
      await engine.search(budgets);
      for (let slot = 0; slot < slots; slot++) {
        const state = states[slot];
        const rec = progress[slot];
        if (state === null || rec === null) continue;
        const player = game.currentPlayer(state);
        engine.visitCounts(slot, this.counts);
        const recorded = !cap || !budgets || budgets[slot] === cap.fullSimulations;
        const chosen = engine.selectedAction(slot);
        const temperature = rec.moves < this.options.temperatureMoves ? 1 : 0;
        // A Gumbel search has its own pick; early moves sample its improved policy instead, for the same
        // spread of openings that sampling the visit counts gives PUCT.
        const sampleTarget = chosen >= 0 && temperature > 0;
        if (recorded || sampleTarget) engine.policyTarget(slot, this.target);
        if (recorded) {
          if (this.rootValueWeight > 0) engine.rootValue(slot, this.rootValue);
          for (const encoder of this.encoders) {
            if (this.rootValueWeight > 0) for (let j = 0; j < game.numPlayers; j++) rec.rootValues.push(this.rootValue[j]);
            this.recordPosition(rec, state, player, encoder);
          }
          if (this.childValueWorlds > 0) {
            this.childRecord = rec;
            engine.forEachRootChild!(slot, this.recordChild);
            this.childRecord = null;
          }
          fullMoves++;
        } else {
          reducedMoves++;
        }
        const action = sampleTarget ? selectActionFromVisits(this.target, 1, this.rng) : chosen >= 0 ? chosen : selectActionFromVisits(this.counts, temperature, this.rng);
        game.applyAction(state, action, this.rng);
        rec.moves++;
        positions++;
        if (game.isTerminal(state)) {
          // A game whose moves were all searched with the small budget has nothing to train on.
          if (rec.perspectives.length > 0) onGame(this.finishRecord(rec, game.returns(state)));
          finished++;
          onProgress?.(finished);
          startGame(slot);
        } else if (rec.moves > game.maxGameLength) {
          throw new Error(`${game.traits.id}: a game exceeded its declared maximum length of ${game.maxGameLength} actions`);
        } else {
          engine.advance(slot, action, state);
        }
      }
      if (betweenMoves) await betweenMoves();
    }
    const evaluations = engine.stats.evaluations - evalBefore;
    const calls = engine.stats.evaluatorCalls - callsBefore;
    return {
      games: finished,
      positions,
      evaluations,
      seconds: (performance.now() - start) / 1000,
      averageBatch: calls ? evaluations / calls : 0,
      ...(cap ? { fullSearchShare: fullMoves / Math.max(1, fullMoves + reducedMoves) } : {}),
    };
  }

  private recordPosition(rec: GameInProgress, state: S, player: number, encoder: Game<S>['encoder']): void {
    this.encodeRow(rec, state, player, encoder);
    rec.valueSources.push(-1);
    if (this.valueShaping > 0) {
      const estimate = this.game.estimateReturns!(state);
      for (let j = 0; j < this.game.numPlayers; j++) rec.estimates.push(estimate[j]);
    }
    // One pass over the actions: those with a share are listed (and everything nonzero summed, which is
    // the sum of all), then the listed shares are divided by the total.
    const target = this.target;
    const first = rec.policyProb.length;
    let total = 0;
    for (let a = 0; a < target.length; a++) {
      const p = target[a];
      if (p !== 0) {
        total += p;
        if (p > 0) {
          rec.policyIndex.push(a);
          rec.policyProb.push(p);
        }
      }
    }
    for (let k = first; k < rec.policyProb.length; k++) rec.policyProb[k] /= total;
    rec.policyOffsets.push(rec.policyIndex.length);
    this.recordLegal(rec, state);
  }

  /** A value-only row for a root child (`childValueWorlds`): `value` per seat in absolute order. */
  private recordChildRow(rec: GameInProgress, state: S, value: Float32Array, encoder: Game<S>['encoder']): void {
    const P = this.game.numPlayers;
    this.encodeRow(rec, state, this.game.currentPlayer(state), encoder);
    rec.valueSources.push(rec.childValues.length);
    for (let j = 0; j < P; j++) rec.childValues.push(value[j]);
    // Kept in step with the rows; a child's target is its search value alone.
    if (this.valueShaping > 0) for (let j = 0; j < P; j++) rec.estimates.push(0);
    if (this.rootValueWeight > 0) for (let j = 0; j < P; j++) rec.rootValues.push(0);
    rec.policyOffsets.push(rec.policyIndex.length);
    this.recordLegal(rec, state);
  }

  /** Encodes `state` from `perspective` into the record's next input slot. */
  private encodeRow(rec: GameInProgress, state: S, perspective: number, encoder: Game<S>['encoder']): void {
    const size = this.game.encoder.size; // the world encoder's too (checked in the constructor)
    const slot = rec.perspectives.length % INPUT_CHUNK;
    if (slot === 0) rec.inputChunks.push(new Float32Array(INPUT_CHUNK * size));
    encoder.encode(state, perspective, rec.inputChunks[rec.inputChunks.length - 1], slot * size);
    rec.perspectives.push(perspective);
  }

  private recordLegal(rec: GameInProgress, state: S): void {
    const { masker } = this.game;
    if (masker.legalActions) {
      const legal = masker.legalActions(state);
      for (let k = 0; k < legal.length; k++) rec.legalIndex.push(legal[k]);
    } else {
      masker.fillMask(state, this.mask, 0);
      for (let a = 0; a < this.mask.length; a++) if (this.mask[a]) rec.legalIndex.push(a);
    }
    rec.legalOffsets.push(rec.legalIndex.length);
  }

  private finishRecord(rec: GameInProgress, returns: Float32Array): GameRecord {
    const P = this.game.numPlayers;
    const length = rec.perspectives.length;
    const values = new Float32Array(length * P);
    const w = this.valueShaping;
    const r = this.rootValueWeight;
    for (let i = 0; i < length; i++) {
      const persp = rec.perspectives[i];
      const source = rec.valueSources[i];
      if (source >= 0) {
        for (let j = 0; j < P; j++) values[i * P + j] = rec.childValues[source + ((persp + j) % P)];
        continue;
      }
      for (let j = 0; j < P; j++) {
        const seat = (persp + j) % P;
        let v = (1 - w - r) * returns[seat];
        if (w > 0) v += w * rec.estimates[i * P + seat];
        if (r > 0) v += r * rec.rootValues[i * P + seat];
        values[i * P + j] = v;
      }
    }
    return {
      length,
      inputSize: this.game.encoder.size,
      numSeats: P,
      inputs: concatInputs(rec.inputChunks, length, this.game.encoder.size),
      policyOffsets: Int32Array.from(rec.policyOffsets),
      policyIndex: Int32Array.from(rec.policyIndex),
      policyProb: Float32Array.from(rec.policyProb),
      legalOffsets: Int32Array.from(rec.legalOffsets),
      legalIndex: Int32Array.from(rec.legalIndex),
      values,
      returns: Float32Array.from(returns.subarray(0, P)),
      weightsVersion: rec.weightsVersion,
    };
  }
}

/** Positions' inputs encoded into place, per chunk (see `GameInProgress.inputChunks`). */
const INPUT_CHUNK = 16;

/** The first `count` positions' inputs of the chunks, end to end. */
function concatInputs(chunks: readonly Float32Array[], count: number, size: number): Float32Array {
  const out = new Float32Array(count * size);
  for (let c = 0; c < chunks.length; c++) {
    const positions = Math.min(INPUT_CHUNK, count - c * INPUT_CHUNK);
    out.set(positions === INPUT_CHUNK ? chunks[c] : chunks[c].subarray(0, positions * size), c * INPUT_CHUNK * size);
  }
  return out;
}
