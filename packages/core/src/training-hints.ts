// The trainer's knobs a game may preset (TrainingHints) and the play settings read from them: what a
// plugin suggests, kept apart from the rules contract it must implement.
import type { ConfigValue } from './config.js';
import type { NetworkSpec } from './network-spec.js';
import type { LeafValues, SearchMethod, WorldSampling } from './search-vocabulary.js';

/** Hints a game gives the trainer about sensible defaults (all optional; the CLI flags override). */
export interface TrainingHints {
  /**
   * Game settings training uses unless the user sets them (the user's `--config` is merged over
   * these). For games whose natural training unit is smaller than their default game, e.g. Blob
   * trains on single rounds although its default config plays a whole game.
   */
  readonly gameConfig?: Readonly<Record<string, ConfigValue>>;
  /**
   * The network a run of this game builds unless the user names one (`--network`); a user's resnet
   * spec is merged over a game's resnet spec field by field.
   */
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
  /** Self-play games per training iteration. */
  readonly gamesPerIteration?: number;
  /** Training iterations in a run (self-play, then training, then evaluation, each). */
  readonly iterations?: number;
  /** Self-play games stepped together, their leaves evaluated in one batch. */
  readonly parallelGames?: number;
  /** Optimizer steps per iteration. */
  readonly trainingSteps?: number;
  /** Positions per training minibatch. */
  readonly batchSize?: number;
  /** Positions the replay buffer holds (the oldest are dropped first). */
  readonly replayCapacity?: number;
  /** Moves played with temperature 1 before switching to the most-visited move. */
  readonly temperatureMoves?: number;
  /** Concentration of the Dirichlet noise added to the self-play root's priors (smaller for more legal moves). */
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
