/**
 * Games played in the browser: one `PlaySession` per game, holding the full state on the server. The
 * page only ever receives a `PlaySnapshot`, which is what the human's seat may see (its `render` and
 * `view` from that seat, its own legal moves, the public move list); hidden-information games never get
 * the full state, its hash, or a search analysis (the other seats' search would reveal their cards).
 */
import { RandomAgent, Rng, type Agent, type Game, type GamePlugin, type GameView, type InferenceModel } from '@az/core';
import { NetworkEvaluator, RolloutEvaluator, selectActionFromVisits, type Evaluator, type LeafBatch, type SearchEngine } from '@az/mcts';
import { createSearchEngine, type SearchLeaves } from '@az/imperfect-info';
import { agentNames, agentSearchSettings, gameBot, modelPlayFor, type AgentSettings, type LoadedModel, type ModelPlay } from '../agents.js';
import type { SearchSlots } from './search-slots.js';

/** What the search behind a computer move thought: shares of its root visits and its value estimate. */
export interface MoveAnalysis {
  readonly seat: number;
  /** The root value for the seat that moved, in [-1, 1] (1: it expects to win). */
  readonly value: number;
  readonly simulations: number;
  /** The most visited moves, best first. */
  readonly top: readonly { readonly action: number; readonly move: string; readonly share: number }[];
}

export interface PlayedMove {
  readonly seat: number;
  readonly action: number;
  readonly text: string;
}

/** Everything the page of the human's seat receives. */
export interface PlaySnapshot {
  readonly id: string;
  readonly game: { readonly id: string; readonly name: string; readonly numPlayers: number; readonly information: string };
  readonly humanSeat: number;
  readonly opponent: string;
  readonly toAct: number | null;
  readonly over: boolean;
  readonly result?: { readonly returns: readonly number[]; readonly verdict: string };
  readonly view: GameView | null;
  readonly text: string;
  /** The human's legal moves when it is to act, else empty. */
  readonly legal: readonly { readonly action: number; readonly text: string }[];
  readonly moves: readonly PlayedMove[];
  /** Perfect-information games only: the position in the game's notation (FEN), else its hash. */
  readonly position?: string;
  /** Perfect-information games only: the position the game started from, as `position` (a PGN's FEN header). */
  readonly start?: string;
  /** Perfect-information games: the search behind the last computer move. */
  readonly analysis?: MoveAnalysis;
}

/** A bad request about a game (illegal move, not your turn...): the server answers 400/409 with its message (503: busy). */
export class PlayError extends Error {
  constructor(
    message: string,
    readonly status: 400 | 404 | 409 | 503 = 400,
  ) {
    super(message);
    this.name = 'PlayError';
  }
}

/** How long a computer move's search may hold the event loop before it lets other requests in (ms). */
const SEARCH_SLICE_MS = 10;

/**
 * Cuts a search into slices: the search runs on the event loop (the evaluator may answer without ever
 * leaving it, as the rollouts of the `mcts` opponent do), so a long one would hold every other request,
 * of every game, until it ended. After each evaluator or network call, once `SEARCH_SLICE_MS` have gone
 * by since the last pause, `pause` waits for `setImmediate`: the requests that arrived meanwhile are
 * answered, then the search goes on where it was. The search itself is the same, call for call.
 */
class SearchSlicer {
  private since = performance.now();

  async pause(): Promise<void> {
    if (performance.now() - this.since < SEARCH_SLICE_MS) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.since = performance.now();
  }
}

/** `model`, pausing after each call; disposing it leaves `model` alone (az serve's model outlives any one game). */
function slicedModel(model: InferenceModel, slicer: SearchSlicer): InferenceModel {
  const { predictLegal } = model;
  return {
    config: model.config,
    backendName: model.backendName,
    async predict(input, count, policyOut, valueOut) {
      await model.predict(input, count, policyOut, valueOut);
      await slicer.pause();
    },
    ...(predictLegal
      ? {
          async predictLegal(input: Float32Array, count: number, actions: Int32Array, width: number, policyOut: Float32Array, valueOut: Float32Array) {
            await predictLegal.call(model, input, count, actions, width, policyOut, valueOut);
            await slicer.pause();
          },
        }
      : {}),
    dispose: () => undefined,
  };
}

/**
 * `leaves` with a pause after each network or evaluator call (see `SearchSlicer`). The network is sliced
 * at its model, which the hidden-information searches also call directly (world and own-view
 * evaluators, policy playouts).
 */
function slicedLeaves<S>(leaves: SearchLeaves<S>, slicer: SearchSlicer): SearchLeaves<S> {
  if (leaves.network) {
    const network = new NetworkEvaluator<S>(slicedModel(leaves.network.model, slicer));
    return { evaluator: network, network };
  }
  const evaluator = leaves.evaluator;
  return {
    evaluator: {
      needsInputs: evaluator.needsInputs,
      needsMasks: evaluator.needsMasks,
      get legalLogits() {
        return evaluator.legalLogits;
      },
      async evaluate(batch: LeafBatch<S>): Promise<void> {
        await evaluator.evaluate(batch);
        await slicer.pause();
      },
    },
  };
}

interface Opponent {
  readonly name: string;
  /** Whether its moves are searched (and so hold a search tree while they are). */
  readonly searches: boolean;
  /** Search trees it holds now: 1 while a move is searched, else 0. */
  readonly treesHeld: number;
  move(state: unknown): Promise<{ action: number; analysis?: MoveAnalysis }>;
}

/**
 * Searches one position and plays the most visited move, keeping what it saw. The search engine (its
 * tree, sized for the simulations when it is built) exists only while a move is searched: every move
 * searches from a fresh root anyway (no subtree is reused), so a game kept between moves holds no tree.
 */
class AnalyzingOpponent implements Opponent {
  readonly searches = true;
  private readonly counts: Float32Array;
  private readonly rng: Rng;
  private engine: SearchEngine<unknown> | undefined;
  /** Moves searched so far: each engine's seed is the game's seed plus this, so moves differ and a seeded game replays. */
  private searched = 0;

  constructor(
    readonly name: string,
    private readonly game: Game<unknown>,
    /** Builds the search for one move, seeded with `seed`. */
    private readonly buildEngine: (seed: number) => SearchEngine<unknown>,
    private readonly simulations: number,
    private readonly seed: number,
    /** The state the engine searches for a state of the game played (a part model's projection, see `modelPlayFor`). */
    private readonly project: (state: unknown) => unknown = (state) => state,
  ) {
    this.counts = new Float32Array(game.masker.actionSize);
    this.rng = new Rng(seed + 1);
  }

  get treesHeld(): number {
    return this.engine ? 1 : 0;
  }

  async move(state: unknown): Promise<{ action: number; analysis?: MoveAnalysis }> {
    const engine = this.buildEngine(this.seed + this.searched++);
    this.engine = engine;
    try {
      engine.setRoot(0, this.project(state));
      await engine.search();
      engine.visitCounts(0, this.counts);
      return this.choose(state, engine);
    } finally {
      this.engine = undefined;
    }
  }

  private choose(state: unknown, engine: SearchEngine<unknown>): { action: number; analysis?: MoveAnalysis } {
    const action = selectActionFromVisits(this.counts, 0, this.rng);
    const seat = this.game.currentPlayer(state);
    if (this.game.traits.information !== 'perfect') return { action };
    let total = 0;
    for (const c of this.counts) total += c;
    const ranked = Array.from(this.counts.keys()).filter((a) => this.counts[a] > 0);
    ranked.sort((a, b) => this.counts[b] - this.counts[a]);
    const top = ranked.slice(0, 5).map((a) => ({ action: a, move: this.game.formatAction(state, a), share: total > 0 ? this.counts[a] / total : 0 }));
    const value = engine.rootValue(0)[seat];
    return { action, analysis: { seat, value, simulations: this.simulations, top } };
  }
}

class AgentOpponent implements Opponent {
  readonly searches = false;
  readonly treesHeld = 0;
  constructor(private readonly agent: Agent<unknown>) {}
  get name(): string {
    return this.agent.name;
  }
  async move(state: unknown): Promise<{ action: number }> {
    const [action] = await this.agent.act([state]);
    return { action };
  }
}

export interface SessionOptions {
  readonly plugin: GamePlugin;
  readonly game: Game<unknown>;
  readonly humanSeat: number;
  /** random, mcts, a game bot, or 'model' (uses `model`). */
  readonly opponent: string;
  readonly model?: LoadedModel;
  readonly settings: AgentSettings;
  /** The searches the server runs at once: a request whose computer moves are searched takes one, or is refused (503). */
  readonly slots?: SearchSlots;
}

function makeOpponent(options: SessionOptions): Opponent {
  const { plugin, game, opponent } = options;
  const settings = options.settings;
  const seed = settings.seed;
  const search = agentSearchSettings(plugin, settings);
  const searching = (name: string, leaves: SearchLeaves<unknown>, modelPlay: ModelPlay = { game, project: (state) => state }): Opponent => {
    const sliced = slicedLeaves(leaves, new SearchSlicer());
    // One tree: a session searches one position at a time.
    const engineFor = (engineSeed: number): SearchEngine<unknown> => createSearchEngine(modelPlay.game, sliced, 1, { ...search, tree: { ...search.tree, seed: engineSeed } });
    return new AnalyzingOpponent(name, game, engineFor, settings.simulations, seed, modelPlay.project);
  };
  if (opponent === 'model') {
    if (!options.model) throw new PlayError('no model was given to az serve (--model DIR)');
    const network = options.model.evaluator;
    return searching(`model (iteration ${options.model.manifest.iteration})`, { evaluator: network, network }, modelPlayFor(plugin, game, options.model));
  }
  if (opponent === 'mcts') return searching('mcts', { evaluator: new RolloutEvaluator(game, seed) });
  if (opponent === 'random') return new AgentOpponent(new RandomAgent(game, seed));
  const bot = gameBot(plugin, opponent);
  if (bot) {
    const agent = bot(game, seed);
    return new AgentOpponent({ name: opponent, act: (states) => agent.act(states) });
  }
  throw new PlayError(`unknown opponent '${opponent}': use ${[...agentNames(plugin), ...(options.model ? ['model'] : [])].join(', ')}`);
}

export class PlaySession {
  private state: unknown;
  private readonly rng: Rng;
  private readonly opponent: Opponent;
  private readonly moves: PlayedMove[] = [];
  private analysis: MoveAnalysis | undefined;
  /** Perfect-information games: the starting position (hidden-information games never compute it). */
  private readonly startPosition: string | undefined;
  /** Requests on one game run one after another (a move waits for the computer's reply). */
  private queue: Promise<unknown> = Promise.resolve();
  lastUsed = Date.now();

  constructor(
    readonly id: string,
    private readonly options: SessionOptions,
  ) {
    const { game, humanSeat } = options;
    if (!Number.isInteger(humanSeat) || humanSeat < 0 || humanSeat >= game.numPlayers) {
      throw new PlayError(`seat must be 0..${game.numPlayers - 1} for this ${game.traits.id} game, got ${String(humanSeat)}`);
    }
    this.rng = new Rng(options.settings.seed);
    this.state = game.initialState(this.rng);
    this.startPosition = game.traits.information === 'perfect' ? this.positionOf(this.state) : undefined;
    this.opponent = makeOpponent(options);
  }

  get game(): Game<unknown> {
    return this.options.game;
  }

  /** Search trees the game holds now (only while a computer move is searched; none between moves). */
  get treesHeld(): number {
    return this.opponent.treesHeld;
  }

  /** Lets the computer seats move until the human is to act or the game ends. */
  start(): Promise<PlaySnapshot> {
    return this.serialized(async () => {
      const { game, humanSeat } = this.options;
      const computerFirst = !game.isTerminal(this.state) && game.currentPlayer(this.state) !== humanSeat;
      const release = computerFirst ? this.takeSearchSlot() : undefined;
      try {
        await this.playComputerSeats();
      } finally {
        release?.();
      }
      return this.snapshot();
    });
  }

  /** The human's move, by action number or in the game's notation; then the computer's replies. */
  play(move: { action?: unknown; move?: unknown }): Promise<PlaySnapshot> {
    return this.serialized(async () => {
      const { game, humanSeat } = this.options;
      if (game.isTerminal(this.state)) throw new PlayError('the game is over', 409);
      const toAct = game.currentPlayer(this.state);
      if (toAct !== humanSeat) throw new PlayError(`it is seat ${toAct}'s turn, not yours (seat ${humanSeat})`, 409);
      const action = this.readMove(move);
      // Taken before the move is played: a refused request (503) leaves the game as it was, to retry.
      const release = this.takeSearchSlot();
      try {
        this.record(action);
        await this.playComputerSeats();
      } finally {
        release?.();
      }
      return this.snapshot();
    });
  }

  current(): Promise<PlaySnapshot> {
    return this.serialized(async () => this.snapshot());
  }

  private readMove(move: { action?: unknown; move?: unknown }): number {
    const { game } = this.options;
    if (move.action !== undefined) {
      const action = move.action;
      if (typeof action !== 'number' || !Number.isInteger(action)) throw new PlayError(`'action' must be an integer, got ${JSON.stringify(action)}`);
      const mask = new Uint8Array(game.masker.actionSize);
      game.masker.fillMask(this.state, mask, 0);
      if (action < 0 || action >= mask.length || mask[action] === 0) throw new PlayError(`illegal move: action ${action} is not legal here`);
      return action;
    }
    if (typeof move.move === 'string') {
      const parsed = game.parseAction(this.state, move.move);
      if (!parsed.ok) throw new PlayError(`illegal move '${move.move}': ${parsed.error}`);
      return parsed.action;
    }
    throw new PlayError("a move needs 'action' (an integer) or 'move' (text in the game's notation)");
  }

  /** A search slot for this request's computer moves when they are searched (see `SearchSlots`), else none. */
  private takeSearchSlot(): (() => void) | undefined {
    return this.opponent.searches ? this.options.slots?.take() : undefined;
  }

  private record(action: number, analysis?: MoveAnalysis): void {
    const { game } = this.options;
    const seat = game.currentPlayer(this.state);
    const text = game.formatAction(this.state, action);
    game.applyAction(this.state, action, this.rng);
    this.moves.push({ seat, action, text });
    this.analysis = analysis;
  }

  private async playComputerSeats(): Promise<void> {
    const { game, humanSeat } = this.options;
    while (!game.isTerminal(this.state) && game.currentPlayer(this.state) !== humanSeat) {
      const { action, analysis } = await this.opponent.move(this.state);
      this.record(action, analysis);
    }
  }

  private serialized<T>(task: () => Promise<T>): Promise<T> {
    this.lastUsed = Date.now();
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private positionOf(state: unknown): string {
    const { game } = this.options;
    return game.positionText ? game.positionText(state) : game.hash(state);
  }

  snapshot(): PlaySnapshot {
    const { game, humanSeat, plugin } = this.options;
    const state = this.state;
    const over = game.isTerminal(state);
    const toAct = over ? null : game.currentPlayer(state);
    const legal: { action: number; text: string }[] = [];
    if (toAct === humanSeat) {
      const mask = new Uint8Array(game.masker.actionSize);
      game.masker.fillMask(state, mask, 0);
      for (let a = 0; a < mask.length; a++) if (mask[a]) legal.push({ action: a, text: game.formatAction(state, a) });
    }
    const perfect = game.traits.information === 'perfect';
    let result: PlaySnapshot['result'];
    if (over) {
      const returns = Array.from(game.returns(state));
      const best = Math.max(...returns);
      const mine = returns[humanSeat];
      const verdict = mine === best && returns.filter((r) => r === best).length === 1 ? 'you win' : mine === best ? 'a draw' : 'you lose';
      result = { returns, verdict };
    }
    return {
      id: this.id,
      game: { id: plugin.traits.id, name: plugin.traits.name, numPlayers: game.numPlayers, information: game.traits.information },
      humanSeat,
      opponent: this.opponent.name,
      toAct,
      over,
      ...(result ? { result } : {}),
      view: game.view ? game.view(state, humanSeat) : null,
      text: game.render(state, humanSeat),
      legal,
      moves: this.moves.map((m) => ({ ...m })),
      ...(perfect ? { position: this.positionOf(state), ...(this.startPosition !== undefined ? { start: this.startPosition } : {}) } : {}),
      ...(perfect && this.analysis ? { analysis: this.analysis } : {}),
    };
  }
}
