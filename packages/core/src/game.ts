// The contract a game implements (its traits, rules, encoding, mask, and the optional parts search and
// training read); how a state is drawn is views.ts, how a game is packaged is plugin.ts.
import type { ResolvedConfig } from './config.js';
import type { Rng } from './rng.js';
import type { GameView } from './views.js';

/** Whether every seat sees the whole state ('perfect') or some of it is hidden from some seats ('imperfect'). */
export type InformationKind = 'perfect' | 'imperfect';
/**
 * 'zero-sum': one seat's gain is the others' loss (two-player returns add up to 0, which the contract kit
 * checks); 'general-sum': each seat's return is about its own outcome alone (Blob's scores).
 */
export type RewardModel = 'zero-sum' | 'general-sum';

/** What a game is, declared up front (as OpenSpiel does): search, training and the CLI read these. */
export interface GameTraits {
  /** Registry id, used on the command line: lowercase letters, digits and dashes. */
  readonly id: string;
  /** The game's name for people ('Tic-tac-toe'), as `az games` and the web page show it. */
  readonly name: string;
  /** One sentence about the game, for `az games` and the web page's game list. */
  readonly description: string;
  /** The fewest seats any config may have. */
  readonly minPlayers: number;
  /** The most seats any config may have (equal to `minPlayers` for a fixed-seat game). */
  readonly maxPlayers: number;
  /** Whether seats see everything; 'imperfect' games need a `Game.determinizer` to be searched. */
  readonly information: InformationKind;
  /** True when the environment makes random moves (deals, dice) inside `initialState`/`applyAction`. */
  readonly chance: boolean;
  /** How the seats' returns relate (see `RewardModel`). */
  readonly rewards: RewardModel;
  /** Upper bound on the number of actions in one game under the default config. */
  readonly maxGameLength: number;
}

/**
 * Turns a state into network input, as seen by one seat. `shape` is HWC for spatial games
 * (e.g. [8, 8, 20]) or [n] for flat ones; `size` is the product. Encoders write into a caller's
 * buffer at an offset so a whole batch is encoded into one Float32Array with no allocation.
 */
export interface Encoder<S> {
  /** Changes whenever the encoding changes; stored in checkpoints so stale models are refused. */
  readonly version: string;
  /** The input's dimensions: HWC for spatial games, `[size]` for flat ones. */
  readonly shape: readonly number[];
  /** Floats per encoded state: the product of `shape`. */
  readonly size: number;
  /** Writes `size` floats at `out[offset..]`. Must write every element (buffers are reused). */
  encode(state: S, perspective: number, out: Float32Array, offset: number): void;
}

/** The fixed action space and the legal-action mask over it. */
export interface Masker<S> {
  /** The number of actions (legal or not): the policy head's width; actions are 0..actionSize-1. */
  readonly actionSize: number;
  /** Writes 1 for legal and 0 for illegal actions at `out[offset..offset+actionSize)`; returns the legal count. */
  fillMask(state: S, out: Uint8Array, offset?: number): number;
  /**
   * Optional: the legal actions as a list, each once, in any order (the search creates a node's children
   * in this order); exactly the actions `fillMask` marks. For games with large action spaces and few
   * legal moves (chess: 4,672 actions, ~30 legal) the search then expands a node in O(legal) instead of
   * scanning all actions twice. The result may be a cached
   * array: callers must not modify it, nor keep it after `state` changes.
   */
  legalActions?(state: S): ArrayLike<number>;
}

/**
 * Samples full states of a hidden-information game that are consistent with what one seat knows.
 *
 * Determinized search (perfect-information MCTS run on sampled "worlds", as in PIMC / ISMCTS) calls
 * `sample` once per world: the result must agree with `seat`'s information state exactly (own hand,
 * everything public, everything revealed by play) and fill the hidden parts at random, ideally
 * uniformly over the deals that are still possible. Lives in core (not @az/imperfect-info) because
 * `Game` refers to it: a game offers its determinizer as `Game.determinizer`.
 */
export interface Determinizer<S> {
  /**
   * A full state consistent with what `seat` knows in `state`. When `out` is given it is overwritten
   * and returned (so a search can reuse one scratch state per world); otherwise a new state is made.
   * `state` itself is never modified.
   */
  sample(state: S, seat: number, rng: Rng, out?: S): S;
}

/**
 * A symmetry of the game (a board rotation or reflection) as forward maps: element `i` of an
 * encoding moves to `inputMap[i]`, action `a` to `actionMap[a]`. The trainer uses these to augment
 * training data (a random symmetry per sampled position); values are unchanged by a symmetry.
 */
export interface Symmetry {
  /** Where each element of an encoding goes: `Encoder.size` entries. */
  readonly inputMap: Int32Array;
  /** Where each action goes: `Masker.actionSize` entries. */
  readonly actionMap: Int32Array;
}

/** What `Game.parseAction` makes of a typed move: the action, or why the text names no legal one. */
export type ParsedAction =
  | {
      /** The text named a legal action. */
      readonly ok: true;
      /** The action it names. */
      readonly action: number;
    }
  | {
      /** The text named no legal action. */
      readonly ok: false;
      /** Why, in words for the user (unknown notation, illegal here, ...). */
      readonly error: string;
    };

/**
 * One configured game. States are mutable objects owned by the game: `applyAction` changes a state in
 * place, `clone` makes an independent copy. Seats are 0..numPlayers-1.
 */
export interface Game<S> {
  /** The plugin's traits (the same object as `GamePlugin.traits`). */
  readonly traits: GameTraits;
  /** The config this game was created with, every field filled. */
  readonly config: ResolvedConfig;
  /** Seats in this config, within the traits' `minPlayers`..`maxPlayers`. */
  readonly numPlayers: number;
  /** Upper bound on the number of actions in one game under this config. */
  readonly maxGameLength: number;
  /** The network input of a state as one seat sees it. */
  readonly encoder: Encoder<S>;
  /** The action space and its legal-action mask. */
  readonly masker: Masker<S>;
  /** Non-identity symmetries of the encoding and action space, for data augmentation (optional). */
  readonly symmetries?: readonly Symmetry[];

  /** A new game; `rng` drives any chance (the deal). Same seed, same game. */
  initialState(rng: Rng): S;
  /** The seat to act. Only meaningful when the state is not terminal. */
  currentPlayer(state: S): number;
  /** Applies a legal action in place; `rng` drives chance events it triggers. Throws on an illegal action. */
  applyAction(state: S, action: number, rng: Rng): void;
  /** Whether the game is over (then `returns` is the result). */
  isTerminal(state: S): boolean;
  /** One value per seat in [-1, 1]; for non-terminal states, the game's best provisional answer (usually zeros). */
  returns(state: S): Float32Array;
  /** An independent copy: applying actions to either leaves the other as it was. */
  clone(state: S): S;
  /** A stable key for the state (identical states, identical keys), for caches and tests. */
  hash(state: S): string;
  /** A human-readable picture of the state; with a perspective, only what that seat may see. */
  render(state: S, perspective?: number): string;
  /** A legal action of `state` in the game's notation, as `parseAction` reads it back. */
  formatAction(state: S, action: number): string;
  /** Reads a move typed by a human; errors explain why (unknown notation, illegal here, ...). */
  parseAction(state: S, text: string): ParsedAction;
  /**
   * Optional: the position in the game's standard notation (chess: FEN), something a user can copy and
   * set up again. `az play` prints it for `position`; games without one show `hash`, which is a cache key
   * and need not be readable.
   */
  positionText?(state: S): string;
  /**
   * Optional: a cheap domain-knowledge estimate of the returns from a non-terminal state (one value per
   * seat in [-1, 1], absolute seat order, like `returns`), e.g. chess material. Only training reads it,
   * and only when the run asks for value shaping (`TrainingHints.valueShaping`, `az train
   * --value-shaping`): each position's value target is then blended with it. Search never calls it, so
   * a trained model is judged on its own.
   */
  estimateReturns?(state: S): Float32Array;
  /**
   * Imperfect-information games: what `seat` knows (its own view). Encoders of such games must depend
   * only on this, never on hidden parts of the full state.
   */
  informationState?(state: S, seat: number): unknown;
  /**
   * Imperfect-information games that want determinized search (self-play, `az play`/`eval` search
   * agents) must provide this: it samples the hidden parts of a state consistently with one seat's
   * view. Perfect-information games leave it out. Search refuses an imperfect-information game
   * without one, naming the game.
   */
  readonly determinizer?: Determinizer<S>;
  /**
   * Optional, imperfect-information games: encodes a FULL state (every hand, as in a world sampled by
   * the determinizer) from one seat, into the same `size` and layout as `encoder` so one network reads
   * both. Legitimate only where the full state is a sampled world, never the real hidden cards: leaf
   * values inside determinized search (`@az/imperfect-info`'s `WorldNetworkEvaluator`) and, in
   * self-play, extra value-training rows of the true full states (the network learns what a world is
   * worth to each seat). The own-view `encoder` stays the input for acting and for priors.
   */
  readonly worldEncoder?: Encoder<S>;
  /**
   * Optional, imperfect-information games: the decisions the seats other than `observer` took earlier
   * in the current deal, rebuilt inside a sampled `world` (a full state from the determinizer), each as
   * the full state at the moment it was taken. Search weighs sampled worlds by how likely a model of the
   * players makes what they did there (`@az/imperfect-info`'s `PolicyWorldWeigher`): inference about
   * the hidden cards from the public play. A game may list only the decisions that say the most about
   * hidden cards (Blob: the bids). Each `state` must encode, from its `seat`, exactly as the real state
   * did when that seat decided, had the world been the real deal.
   */
  pastDecisions?(world: S, observer: number): readonly PastDecision<S>[];
  /**
   * Optional: the state as JSON for graphical front ends (`az serve`), as `seat` may see it (the same
   * information as `render(state, seat)`: for hidden-information games never another seat's cards).
   * Grid games return a `GridView`; a game may name its own kind (`CustomView`), which a front end
   * without a renderer for it shows as a grid or as text. Games without a view are shown as their
   * `render` text and a list of legal moves.
   */
  view?(state: S, seat: number): GameView;
}

/**
 * A player that picks actions. Batched: `act` answers for many states at once (each state's
 * current player is the one to move). Agents for imperfect-information games must use only what the
 * current player can see.
 */
export interface Agent<S> {
  /** Names the agent in results and logs ('random', 'mcts-200', a model's run). */
  readonly name: string;
  /** One legal action per state, in the order of `states`, for each state's current player. */
  act(states: readonly S[]): Promise<Int32Array>;
}

/** One earlier decision, rebuilt in a sampled world (`Game.pastDecisions`). */
export interface PastDecision<S> {
  /** The full state when `seat` decided. */
  readonly state: S;
  /** The seat that decided. */
  readonly seat: number;
  /** What it chose (public). */
  readonly action: number;
}
