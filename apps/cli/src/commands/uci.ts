import { createInterface } from 'node:readline';
import { resolveGame, type Game, type Masker } from '@az/core';
import { BACKEND_CHOICES } from '@az/nn';
import { runUciServer, uciOfAction, valueToCentipawns, type UciBudget, type UciInfo, type UciSearchControl, type UciSearcher } from '@az/chess-uci';
import { legalActionsOf, type ChessState } from '@az/game-chess';
import { BatchedMcts, defaultPlaySimulations, playSearchConfig, selectActionFromVisits, type Evaluator } from '@az/mcts';
import { Rng } from '@az/core';
import { gameFor, loadModel, type LoadedModel } from '../agents.js';
import { helpText, parseFlags, UsageError } from '../args.js';

export const uciSpec = {
  name: 'uci',
  summary: 'A trained chess model as a UCI engine on stdin/stdout (for cutechess-cli, chess GUIs, az eval --a uci:...).',
  usage: 'az uci --model DIR [--sims N] [--threads N]',
  flags: {
    model: { type: 'string', description: 'trained chess model (run or checkpoint directory)', placeholder: 'DIR' },
    sims: { type: 'int', min: 1, description: "simulations per move when 'go' gives no limit (default: chess's play setting, 800); UCI option Simulations" },
    threads: { type: 'int', min: 1, description: 'onnxruntime threads per network call (default: the cores available); UCI option Threads' },
    backend: { type: 'enum', values: BACKEND_CHOICES, default: 'auto', description: 'network engine: auto (onnxruntime if it loads, else tfjs), onnx, onnx-cuda, or tfjs on cpu, wasm, node, gpu' },
    seed: { type: 'int', min: 0, default: 0, description: 'random seed of the search' },
  },
  examples: ['az uci --model runs/chess', "az eval --game chess --a 'uci:az uci --model runs/chess,movetime=1000' --b 'uci:stockfish,depth=1'"],
} as const;

/** Simulations per search step between checks of the clock, of `stop` and of the depth (the last step of `go nodes N` is shorter). */
const STEP_SIMULATIONS = 32;
/** Simulations a move takes at least: the first evaluates the position, the second gives a move a visit. */
const MIN_SIMULATIONS = 2;
/** The tree's size in nodes; a search that fills it stops growing it (see `search`). */
const NODE_CAPACITY = 200_000;
/** At most this often an `info` line during a search (ms). */
const INFO_INTERVAL_MS = 1000;

/** MCTS with the model's network, searched in small steps so that time limits and `stop` are honoured. */
class ModelSearcher implements UciSearcher {
  readonly author = 'az (AlphaZero in TypeScript)';
  readonly name: string;
  private simulations: number;
  private threads: number | undefined;
  private engine: BatchedMcts<ChessState> | null = null;
  private readonly counts: Float32Array;
  private readonly rng: Rng;
  /** The game the search runs on, which can narrow the root's moves (`go searchmoves`). */
  private readonly root: RootRestrictedGame;

  constructor(
    private model: LoadedModel,
    private readonly game: Game<ChessState>,
    private readonly reload: (threads: number | undefined) => Promise<LoadedModel>,
    settings: { simulations: number; threads?: number; seed: number; valueScale: number },
  ) {
    this.name = `az ${model.dir} (iteration ${model.manifest.iteration})`;
    this.simulations = settings.simulations;
    this.threads = settings.threads;
    this.seed = settings.seed;
    this.valueScale = settings.valueScale;
    this.counts = new Float32Array(game.masker.actionSize);
    this.rng = new Rng(settings.seed);
    this.root = new RootRestrictedGame(game);
  }

  private readonly seed: number;
  private readonly valueScale: number;
  private threadsChanged = false;

  get options(): UciSearcher['options'] {
    return [
      { name: 'Simulations', type: 'spin', default: this.simulations, min: 1, max: 10_000_000 },
      { name: 'Threads', type: 'spin', default: this.threads ?? 0, min: 0, max: 256 },
    ];
  }

  setOption(name: string, value: string): string | null {
    const n = Number(value);
    const key = name.toLowerCase();
    if (key !== 'simulations' && key !== 'threads') return `unknown option '${name}' (options: Simulations, Threads)`;
    if (!Number.isInteger(n) || n < (key === 'threads' ? 0 : 1)) return `option ${name} must be an integer of at least ${key === 'threads' ? 0 : 1} (got '${value}')`;
    if (key === 'simulations') this.simulations = n;
    else {
      this.threads = n === 0 ? undefined : n;
      this.threadsChanged = true;
    }
    return null;
  }

  dispose(): void {
    this.model.dispose();
  }

  newGame(): void {
    // Searches start from a fresh tree every move; nothing to forget.
  }

  private async ensureEngine(): Promise<BatchedMcts<ChessState>> {
    if (this.threadsChanged) {
      this.threadsChanged = false;
      this.model.dispose();
      this.model = await this.reload(this.threads);
      this.engine = null;
    }
    // The tree grows with the search; an infinite search stops growing it once full (and keeps searching).
    this.engine ??= new BatchedMcts(this.root.game, this.model.evaluator as unknown as Evaluator<ChessState>, 1, {
      ...playSearchConfig,
      simulations: STEP_SIMULATIONS,
      nodeCapacity: NODE_CAPACITY,
      seed: this.seed,
      networkValueScale: this.valueScale,
    });
    return this.engine;
  }

  async search(state: ChessState, budget: UciBudget, control: UciSearchControl, onInfo: (info: UciInfo) => void): Promise<string> {
    const engine = await this.ensureEngine();
    const started = performance.now();
    // With no limit given, the Simulations option; `go depth D` alone searches until the depth is reached.
    const limited = budget.nodes !== undefined || budget.timeMs !== undefined || budget.depth !== undefined;
    // At least 2: the first simulation evaluates the position itself, a move needs the second.
    const nodes = Math.max(MIN_SIMULATIONS, budget.infinite ? Infinity : (budget.nodes ?? (limited ? Infinity : this.simulations)));
    const depth = budget.infinite ? undefined : budget.depth;
    const moveTime = budget.timeMs === undefined || budget.infinite ? Infinity : budget.timeMs;
    // When the limits start to apply: now, or at `ponderhit` for `go ponder`.
    let limitsFrom = control.pondering() ? undefined : started;
    const seat = this.game.currentPlayer(state);
    this.root.restrictTo(state, budget.searchMoves);
    engine.setRoot(0, state);
    let lastInfo = started;
    // `played`: the move about to be sent as bestmove; the line reported starts with it (visit ties are
    // broken at random, so the most-visited line may start with another move of the same count).
    const info = (played?: number): UciInfo => {
      const elapsed = performance.now() - started;
      const visits = engine.rootVisits(0);
      const value = engine.rootValue(0)[seat];
      const pv: string[] = [];
      const line = this.game.clone(state);
      const variation = engine.principalVariation(0, 20);
      for (const a of played === undefined || variation[0] === played ? variation : [played]) {
        const uci = uciOfAction(line, a);
        if (uci === null) break;
        pv.push(uci);
        this.game.applyAction(line, a, this.rng);
        if (this.game.isTerminal(line)) break;
      }
      const reached = engine.searchDepth(0);
      return { depth: Math.max(1, Math.floor(reached.mean)), seldepth: Math.max(1, reached.max), nodes: visits, nps: (visits * 1000) / Math.max(1, elapsed), scoreCp: valueToCentipawns(value), pv, timeMs: elapsed };
    };
    // At least one step, so there is always a searched move to play. `go nodes N` ends with a partial
    // step, so exactly N simulations are searched.
    const step = new Int32Array(1);
    for (;;) {
      step[0] = limitsFrom === undefined ? STEP_SIMULATIONS : Math.max(1, Math.min(STEP_SIMULATIONS, nodes - engine.rootVisits(0)));
      const sizeBefore = engine.treeSize(0);
      await engine.search(step);
      const now = performance.now();
      if (control.stopped()) break;
      if (limitsFrom === undefined && !control.pondering()) limitsFrom = now;
      if (limitsFrom !== undefined) {
        if (engine.rootVisits(0) >= nodes || now >= limitsFrom + moveTime) break;
        // `go depth D`: the mean depth of the simulations has reached D, or it cannot grow: a step that added
        // no node to the tree (the root's result is proven, or the tree is full) would be followed by more alike.
        if (depth !== undefined && (engine.searchDepth(0).mean >= depth || engine.treeSize(0) === sizeBefore)) break;
      }
      if (now - lastInfo >= INFO_INTERVAL_MS) {
        onInfo(info());
        lastInfo = now;
      }
      // Let `stop`, `ponderhit`, `quit` and `isready` in between steps.
      await new Promise((resolve) => setImmediate(resolve));
    }
    engine.visitCounts(0, this.counts);
    const action = selectActionFromVisits(this.counts, 0, this.rng);
    onInfo(info(action));
    return uciOfAction(state, action) ?? '0000';
  }
}

/**
 * The chess game as the search sees it: the same, except that the root's legal moves can be narrowed to
 * UCI `searchmoves`. The root is told apart by its ply count: every other state of the tree is deeper.
 */
class RootRestrictedGame {
  readonly game: Game<ChessState>;
  private rootPlies = -1;
  private rootActions: readonly number[] | null = null;

  constructor(base: Game<ChessState>) {
    const masker: Masker<ChessState> = {
      actionSize: base.masker.actionSize,
      fillMask: (state, out, offset = 0) => {
        const actions = this.restrictedActions(state);
        if (actions === null) return base.masker.fillMask(state, out, offset);
        out.fill(0, offset, offset + masker.actionSize);
        for (const a of actions) out[offset + a] = 1;
        return actions.length;
      },
      legalActions: (state) => this.restrictedActions(state) ?? legalActionsOf(state),
    };
    // The game's own methods and fields, with this masker.
    this.game = Object.create(base, { masker: { value: masker } }) as Game<ChessState>;
  }

  /** The next search's root and the moves it may play there (all of them when `actions` is undefined). */
  restrictTo(root: ChessState, actions: readonly number[] | undefined): void {
    this.rootPlies = root.plies;
    this.rootActions = actions ?? null;
  }

  private restrictedActions(state: ChessState): readonly number[] | null {
    return this.rootActions !== null && state.plies === this.rootPlies ? this.rootActions : null;
  }
}

export async function uciCommand(argv: readonly string[]): Promise<number> {
  const { flags } = parseFlags(uciSpec, argv);
  if (flags.help) {
    console.log(helpText(uciSpec));
    return 0;
  }
  if (!flags.model) throw new UsageError('az uci: --model DIR is required (a trained chess model)');
  const plugin = resolveGame('chess');
  const backend = flags.backend ?? 'auto';
  const load = (threads: number | undefined): Promise<LoadedModel> => loadModel(plugin, flags.model as string, { backend, threads, log: (m) => process.stderr.write(`${m}\n`) });
  const model = await load(flags.threads);
  const game = gameFor(plugin, {}, model) as unknown as Game<ChessState>;
  const searcher = new ModelSearcher(model, game, load, {
    simulations: flags.sims ?? defaultPlaySimulations(plugin),
    threads: flags.threads,
    seed: flags.seed ?? 0,
    valueScale: plugin.training?.playValueScale ?? 1,
  });
  const rl = createInterface({ input: process.stdin, terminal: false });
  try {
    await runUciServer(rl, searcher, { game, write: (line) => process.stdout.write(`${line}\n`) });
  } finally {
    rl.close();
    // stdin would keep the process alive after 'quit'.
    process.stdin.destroy();
    searcher.dispose();
  }
  return 0;
}
