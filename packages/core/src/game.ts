import type { ConfigSchema, ConfigValue, ResolvedConfig } from './config.js';
import type { NetworkSpec } from './network-spec.js';
import type { Rng } from './rng.js';

/**
 * The version of the contracts in this file. A plugin states the version it was built against;
 * core refuses plugins whose major contract differs (see `checkContractVersion`).
 */
export const GAME_CONTRACT_VERSION = 1;

export type InformationKind = 'perfect' | 'imperfect';
export type RewardModel = 'zero-sum' | 'general-sum';

/** What a game is, declared up front (as OpenSpiel does): search, training and the CLI read these. */
export interface GameTraits {
  /** Registry id, used on the command line: lowercase letters, digits and dashes. */
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly minPlayers: number;
  readonly maxPlayers: number;
  readonly information: InformationKind;
  /** True when the environment makes random moves (deals, dice) inside `initialState`/`applyAction`. */
  readonly chance: boolean;
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
  readonly shape: readonly number[];
  readonly size: number;
  /** Writes `size` floats at `out[offset..]`. Must write every element (buffers are reused). */
  encode(state: S, perspective: number, out: Float32Array, offset: number): void;
}

/** The fixed action space and the legal-action mask over it. */
export interface Masker<S> {
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
  readonly inputMap: Int32Array;
  readonly actionMap: Int32Array;
}

export type ParsedAction = { readonly ok: true; readonly action: number } | { readonly ok: false; readonly error: string };

/** A piece on a grid board: whose it is (colours follow the seat) and the text drawn on it ('X', 'O', ''). */
export interface GridPiece {
  readonly seat: number;
  readonly label: string;
}

/** A legal action that is not on the board (pass, resign, draw offer), named for its button. */
export interface ViewAction {
  readonly action: number;
  readonly label: string;
}

/** Fields every view may carry, whatever its kind; a front end that knows none of them still works. */
export interface ViewCommon {
  /** A name per seat, in seat order (['Black', 'White']): the page says it wherever it names a seat. */
  readonly seatNames?: readonly string[];
  /**
   * The viewing seat's legal actions that no board square or card offers (pass, resign, draw offer),
   * shown as buttons. Together with the actions the kind offers (grid targets, chess moves, card-table
   * `legal`), they are exactly the legal actions: the contract kit checks so.
   */
  readonly actions?: readonly ViewAction[];
}

/** The board of a grid view, without its kind: also what a plugin's own view kind may carry to be drawn as a grid. */
export interface GridBoard {
  readonly rows: number;
  readonly cols: number;
  /** `rows * cols` cells, row-major with row 0 at the top; null for an empty cell. */
  readonly cells: readonly (GridPiece | null)[];
  /** For each legal action of the seat to act: the cell whose click plays it (Connect Four: the landing cell). */
  readonly targets: readonly { readonly action: number; readonly cell: number }[];
  /** Cells to mark (the last move, a winning line). */
  readonly highlight?: readonly number[];
  /**
   * Coordinates drawn around the board, `cols` labels left to right and `rows` labels top to bottom, as
   * the game's notation names them (tic-tac-toe: a b c and 1 2 3, so the top-left cell is a1).
   */
  readonly columnLabels?: readonly string[];
  readonly rowLabels?: readonly string[];
}

/**
 * A rectangular board of cells, for grid games (tic-tac-toe, Connect Four, most plugin board games).
 * Graphical front ends (`az serve`) draw it and turn a click on a cell into the action it targets, and
 * a button per entry of `actions` (a pass) into that action.
 */
export interface GridView extends GridBoard, ViewCommon {
  readonly kind: 'grid';
}

/** Chess, for a board component: the position as FEN and every legal move with its squares and SAN. */
export interface ChessView extends ViewCommon {
  readonly kind: 'chess';
  readonly fen: string;
  readonly moves: readonly { readonly action: number; readonly from: string; readonly to: string; readonly promotion?: string; readonly san: string }[];
  readonly check: boolean;
  /** The squares of the move that led here (the king's for castling), when there was one. */
  readonly lastMove?: readonly [string, string];
}

/**
 * A trick-taking card table as one seat sees it (its own hand only). Cards are text: rank then suit
 * letter ('QS', '10H'); suits S, H, C, D.
 */
export interface CardTableView extends ViewCommon {
  readonly kind: 'cards';
  readonly seat: number;
  readonly numPlayers: number;
  readonly phase: 'bid' | 'play' | 'over';
  readonly toAct: number;
  readonly round: number;
  readonly cardsDealt: number;
  readonly dealer: number;
  readonly hand: readonly string[];
  /** The trump suit letter, or null for a round without trump. */
  readonly trump: string | null;
  readonly turnedUp: string | null;
  /** Per seat; null before it has bid this round. */
  readonly bids: readonly (number | null)[];
  readonly tricksWon: readonly number[];
  readonly handSizes: readonly number[];
  /** The trick in progress, in playing order. */
  readonly trick: readonly { readonly seat: number; readonly card: string }[];
  /**
   * The last completed trick and who took it (empty before the first of the game is done). Until the
   * first trick of a round is done it may be the last trick of the round before (`lastTrickRound`).
   */
  readonly lastTrick: readonly { readonly seat: number; readonly card: string }[];
  readonly lastTrickWinner: number | null;
  /** Set when `lastTrick` is of an earlier round than `round`: the round (0-based) it ended. */
  readonly lastTrickRound?: number;
  /** Totals so far, and the points of the last finished round. */
  readonly scores: readonly number[];
  readonly lastRoundScores: readonly number[];
  /** The viewing seat's legal actions when it is to act (else empty), labelled as on its cards/bids. */
  readonly legal: readonly { readonly action: number; readonly label: string }[];
  /**
   * Moves of the kind being offered that the rules refuse here, with the reason in words (Blob: the
   * dealer's bid that would make the bids add up to the cards dealt), so a page can show them disabled.
   */
  readonly refused?: readonly { readonly label: string; readonly reason: string }[];
}

/** A JSON value: what a plugin's own view kind may carry beyond the common fields. */
export type JsonValue = string | number | boolean | null | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/**
 * A view of a kind a plugin names itself (`custom:` then its name), for a front end of its own. A page
 * that has no renderer for it draws the grid fields when it has them, else `lines` (else the game's
 * `render` text), with a button for each of `actions` and the legal moves: never a blank page.
 */
export type CustomView = CustomViewFields | (CustomViewFields & GridBoard);

export interface CustomViewFields extends ViewCommon {
  readonly kind: `custom:${string}`;
  /** Text to show when the front end has no renderer for the kind (each entry a line). */
  readonly lines?: readonly string[];
  /** Anything else the plugin's own front end reads, as plain JSON. */
  readonly data?: { readonly [key: string]: JsonValue };
}

/** What `Game.view` returns: plain JSON for a graphical front end. */
export type GameView = GridView | ChessView | CardTableView | CustomView;

/**
 * One configured game. States are mutable objects owned by the game: `applyAction` changes a state in
 * place, `clone` makes an independent copy. Seats are 0..numPlayers-1.
 */
export interface Game<S> {
  readonly traits: GameTraits;
  readonly config: ResolvedConfig;
  readonly numPlayers: number;
  /** Upper bound on the number of actions in one game under this config. */
  readonly maxGameLength: number;
  readonly encoder: Encoder<S>;
  readonly masker: Masker<S>;
  /** Non-identity symmetries of the encoding and action space, for data augmentation (optional). */
  readonly symmetries?: readonly Symmetry[];

  /** A new game; `rng` drives any chance (the deal). Same seed, same game. */
  initialState(rng: Rng): S;
  /** The seat to act. Only meaningful when the state is not terminal. */
  currentPlayer(state: S): number;
  /** Applies a legal action in place; `rng` drives chance events it triggers. Throws on an illegal action. */
  applyAction(state: S, action: number, rng: Rng): void;
  isTerminal(state: S): boolean;
  /** One value per seat in [-1, 1]; for non-terminal states, the game's best provisional answer (usually zeros). */
  returns(state: S): Float32Array;
  clone(state: S): S;
  /** A stable key for the state (identical states, identical keys), for caches and tests. */
  hash(state: S): string;
  /** A human-readable picture of the state; with a perspective, only what that seat may see. */
  render(state: S, perspective?: number): string;
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
  readonly name: string;
  act(states: readonly S[]): Promise<Int32Array>;
}

/** Hints a game gives the trainer about sensible defaults (all optional; the CLI flags override). */
export interface TrainingHints {
  /**
   * Game settings training uses unless the user sets them (the user's `--config` is merged over
   * these). For games whose natural training unit is smaller than their default game, e.g. Blob
   * trains on single rounds although its default config plays a whole game.
   */
  readonly gameConfig?: Readonly<Record<string, ConfigValue>>;
  readonly network?: NetworkSpec;
  /** Self-play simulations per move. */
  readonly simulations?: number;
  /**
   * Simulations per move when a trained model plays for real (`az play`, `az eval`, the trainer's final
   * assessment); default: the larger of 100 and `simulations`. Games whose tactics lie a few plies deep
   * need more than self-play can afford (chess: 800).
   */
  readonly playSimulations?: number;
  /**
   * When a trained model plays for real, its value estimates are multiplied by this in the search
   * (`SearchConfig.networkValueScale`), so a result the search has found (a mate) outranks any estimate;
   * default 1. For nets whose estimates saturate at the win value (chess, far ahead on material).
   */
  readonly playValueScale?: number;
  readonly gamesPerIteration?: number;
  readonly iterations?: number;
  readonly parallelGames?: number;
  readonly trainingSteps?: number;
  readonly batchSize?: number;
  readonly replayCapacity?: number;
  /** Moves played with temperature 1 before switching to the most-visited move. */
  readonly temperatureMoves?: number;
  readonly dirichletAlpha?: number;
  /** Imperfect-information games: sampled worlds searched per move (determinized search). */
  readonly determinizations?: number;
  /**
   * Imperfect-information games: how determinized search values its leaves. 'playouts' (default): a
   * random playout of the sampled world, the network giving priors; 'world': the network reading the
   * sampled world's full state (`Game.worldEncoder`), and self-play also records the true full states
   * as value-training rows; 'policy-playouts': a playout of the sampled world with every seat playing
   * the network's top move from its own view.
   */
  readonly leafValues?: LeafValues;
  /**
   * Imperfect-information games: leaf values when a trained model plays for real (`az play`, `az eval`,
   * `az serve`, the trainer's evaluation games); default: `leafValues`. A game sets it where the two
   * measure differently: self-play wants the cheaper setting that trains well, play the stronger one.
   */
  readonly playLeafValues?: LeafValues;
  /**
   * Imperfect-information games: the share w in [0, 1] of one random playout of the sampled world in
   * each leaf's value, (1 - w) x network + w x playout, when a trained model plays with `playLeafValues`
   * (not with policy playouts, which replace the random playout). Default: 0 with 'world' values, 1 with
   * 'playouts'. A player who picks other leaf values gets that setting's default, not this.
   */
  readonly playPlayoutWeight?: number;
  /**
   * Imperfect-information games: the search a trained model (or the network-free `mcts` player) plays
   * with (`az play`, `az eval`, `az serve`, the trainer's evaluation games); default 'determinized'.
   * Self-play searches as `selfPlaySearchMethod` says.
   */
  readonly playSearchMethod?: SearchMethod;
  /**
   * Imperfect-information games: the search self-play trains with (its policy targets: visit counts, or
   * Gumbel's improved policy); default 'determinized'. 'information-set' trains on information-set
   * search's targets (no strategy fusion at the root), with either root selection and no forced playouts.
   */
  readonly selfPlaySearchMethod?: SearchMethod;
  /**
   * Imperfect-information games played with information-set search: how its worlds are drawn when a
   * trained model plays (default 'uniform'; 'inferred' needs `Game.pastDecisions`).
   */
  readonly playWorldSampling?: WorldSampling;
  /**
   * Weight w in [0, 1) of the game's `estimateReturns` in value targets: a position's target is
   * (1 - w) * game result + w * estimate. Games whose results are too sparse or noisy to learn from in a
   * short run (chess: a game's result says little about its opening) give the value head a dense signal
   * this way; 0 (the default) trains on results alone, as AlphaZero does.
   */
  readonly valueShaping?: number;
  /** Weight in [0, 1] of the root search value in value targets (default 0; see docs/training.md). */
  readonly rootValueWeight?: number;
  /** Worlds whose root children self-play records as value-only rows (default 0, off; see docs/training.md). */
  readonly childValueWorlds?: number;
  /** Prove results in the self-play search tree (default false; see docs/training.md). */
  readonly selfPlaySolve?: boolean;
  /** Playout cap randomization: share of moves searched in full and recorded (default 1, off). */
  readonly fullSearchShare?: number;
  /** Playout cap randomization: simulations of the moves not recorded (default simulations / 8). */
  readonly reducedSimulations?: number;
  /** Positions the self-play NN evaluation cache holds (default 0, no cache); only for games whose encoding is a function of `hash`. */
  readonly evalCacheSize?: number;
  /** Self-play root search: 'puct' (default) or 'gumbel' (Gumbel-top-m, sequential halving, improved-policy targets; see docs/training.md). */
  readonly rootSelection?: 'puct' | 'gumbel';
  /** Gumbel: root actions considered (default 16). */
  readonly gumbelConsideredActions?: number;
  /** Gumbel: c_visit of σ(q) (default 50). */
  readonly gumbelCVisit?: number;
  /** Gumbel: c_scale of σ(q) (default 1). */
  readonly gumbelCScale?: number;
  /** PUCT self-play: k of KataGo's forced playouts at the root, with policy target pruning (default 0, off; KataGo: 2). */
  readonly forcedPlayouts?: number;
  /**
   * CPU machines: with neither `--gpus` nor `--devices` given, `az train` runs self-play in this many
   * worker processes beside the training process (as `--devices cpu:N`) when the machine has more cores
   * than N and the game comes from a plugin package. Training on tfjs wasm uses one core, so on 2 cores a
   * single-process run leaves one idle while it trains; with one worker, the next iteration's games are
   * played meanwhile. Default 0: self-play and training take turns in one process.
   */
  readonly selfPlayProcesses?: number;
  /** Learning rate over the run: 'constant' (default) or 'cosine' (from the learning rate down to a tenth of it at the last iteration; see docs/training.md). */
  readonly learningRateSchedule?: 'constant' | 'cosine';
  /** Decay per iteration of the moving average of weights that plays (default 0, off; see docs/training.md). */
  readonly weightsAverageDecay?: number;
}

/** One earlier decision, rebuilt in a sampled world (`Game.pastDecisions`). */
export interface PastDecision<S> {
  /** The full state when `seat` decided. */
  readonly state: S;
  readonly seat: number;
  /** What it chose (public). */
  readonly action: number;
}

/**
 * How search values the leaves of an imperfect-information game: a uniformly random playout of the
 * sampled world ('playouts'), the network on its full state ('world'), or a playout in which every
 * seat plays the network's top move from its own view ('policy-playouts').
 */
export type LeafValues = 'playouts' | 'world' | 'policy-playouts';

/** The leaf values of a search neither the player nor the game names (the search's own default). */
export const DEFAULT_LEAF_VALUES: LeafValues = 'playouts';

/**
 * How an imperfect-information game is searched: 'determinized' (D trees per move, one per sampled
 * world) or 'information-set' (one tree over the mover's information sets, a world per simulation).
 */
export type SearchMethod = 'determinized' | 'information-set';

/**
 * How information-set search draws its worlds: 'uniform' (the determinizer's samples, consistent with
 * the mover's view) or 'inferred' (a pool weighed by how likely a model of the players makes the other
 * seats' earlier decisions, `Game.pastDecisions`).
 */
export type WorldSampling = 'uniform' | 'inferred';

/** How a trained model plays for real, from the game's hints; each field is undefined where the game is silent. */
export interface PlaySettings {
  readonly leafValues?: LeafValues;
  /** The share of a random playout in a leaf's value with `leafValues` (`playPlayoutWeight`). */
  readonly playoutWeight?: number;
  readonly searchMethod?: SearchMethod;
  readonly worldSampling?: WorldSampling;
  readonly valueScale?: number;
}

/**
 * The play-time settings a game's hints ask for: `playLeafValues` (else the self-play `leafValues`),
 * `playPlayoutWeight`, `playSearchMethod`, `playWorldSampling`, `playValueScale`. One place, so the CLI's agents and the trainer's evaluation
 * games play the same way.
 */
export function playSettingsOf(hints: TrainingHints | undefined): PlaySettings {
  return {
    leafValues: hints?.playLeafValues ?? hints?.leafValues,
    playoutWeight: hints?.playPlayoutWeight,
    searchMethod: hints?.playSearchMethod,
    worldSampling: hints?.playWorldSampling,
    valueScale: hints?.playValueScale,
  };
}

/**
 * The game's playout share (`PlaySettings.playoutWeight`) for a player searching with `leafValues`: the
 * hint goes with the game's own play leaf values (unset on either side meaning `DEFAULT_LEAF_VALUES`), never with
 * policy playouts; other leaf values get undefined, i.e. their own default. One rule for the CLI's agents
 * and the trainer's evaluation games.
 */
export function gamePlayoutWeightFor(play: PlaySettings, leafValues: LeafValues | undefined): number | undefined {
  const used = leafValues ?? DEFAULT_LEAF_VALUES;
  return used === (play.leafValues ?? DEFAULT_LEAF_VALUES) && used !== 'policy-playouts' ? play.playoutWeight : undefined;
}

/** A baseline player a game offers by name (random is built in everywhere). */
export type BotFactory<S> = (game: Game<S>, seed: number) => Agent<S>;

/** A game's own verdict on an agent (e.g. tic-tac-toe measures it against the exact oracle). */
export interface AgentAssessment {
  /** One line for the terminal, e.g. "optimal moves 4,520/4,520 (100.0%), 0 losses vs minimax". */
  readonly summary: string;
  readonly metrics: Readonly<Record<string, number>>;
  /** Whether the agent meets the game's own bar (perfect play, ...), when it has one. */
  readonly passed?: boolean;
}

/** What a game package exports and registers. */
export interface GamePlugin<S = unknown> {
  /** The `GAME_CONTRACT_VERSION` the plugin was built against. */
  readonly contractVersion: number;
  readonly traits: GameTraits;
  readonly configSchema: ConfigSchema;
  /**
   * Cross-field checks and derived defaults after the schema has validated each field.
   * Throw a `ConfigError` naming the field that is wrong.
   */
  finalizeConfig?(config: ResolvedConfig): ResolvedConfig;
  create(config: ResolvedConfig): Game<S>;
  readonly bots?: Readonly<Record<string, BotFactory<S>>>;
  readonly training?: TrainingHints;
  /**
   * Per-seat statistics of a finished game for `az eval` (e.g. Blob: score per round, bid accuracy).
   * The arena reports the mean of each with a confidence interval, per agent.
   */
  outcomeMetrics?(game: Game<S>, finalState: S, seat: number): Readonly<Record<string, number>>;
  /** Optional exact or reference assessment of an agent; the trainer reports it after training. */
  assessAgent?(game: Game<S>, agent: Agent<S>): Promise<AgentAssessment>;
  /**
   * For games whose networks play a long game one part at a time (Blob: a network trained on single
   * rounds drawn from the whole game plays each round of a whole game). Absent: a model plays the
   * config it was trained on, nothing else.
   */
  readonly partModels?: PartModels<S>;
}

/**
 * How a model trained on parts of a game plays the whole (see `GamePlugin.partModels`). The two
 * settings maps are each other's inverse on the keys they name; the CLI uses them to find the model for
 * a config (`az play --players 5`), to pick the config a model plays by default, and `project` to hand
 * the model's search each decision as a state of the game it was trained on.
 */
export interface PartModels<S> {
  /** Settings a model that plays `played` was trained with instead (Blob: rounds=game -> rounds=sampled); undefined when `played` needs a model of its own config. */
  trainedSettings(played: ResolvedConfig): Readonly<Record<string, ConfigValue>> | undefined;
  /** Settings a model trained on `trained` plays unless told otherwise (Blob: rounds=sampled -> rounds=game); undefined when it plays its own config. */
  playedSettings(trained: ResolvedConfig): Readonly<Record<string, ConfigValue>> | undefined;
  /**
   * The state of `modelGame` (the trained config's game) that asks for the same decision as `state` of
   * `played`: same seat to act, same legal actions, the same information for every seat. A new object;
   * `state` is not changed.
   */
  project(state: S, played: Game<S>, modelGame: Game<S>): S;
}
