// Over 450 lines: one check per contract promise, each short, kept together so the list of checks reads as the contract.
/**
 * The contract test-kit: `testGameContract(plugin, options)` plays many seeded random games and
 * checks, at every step, the promises the Game / Encoder / Masker contracts make to search, training
 * and the CLI. It is framework-agnostic on purpose (no vitest, no node:assert): it throws a
 * `ContractViolation` naming the check, the seed and the move so a failure can be replayed, and
 * otherwise returns a report. A plugin's own test calls it inside its `it`:
 *
 *   it('meets the game contract', async () => {
 *     const report = await testGameContract(myPlugin, { playouts: 50 });
 *     expect(report.skipped).toEqual([]);
 *   });
 *
 * What it checks (each name appears in `ContractViolation.check` and in `report.checks`):
 * - plugin: contract version, traits, config schema defaults, `create`.
 * - shape: encoder shape/size/version, masker action size.
 * - playout: random playouts never throw and end within `game.maxGameLength` actions.
 * - player: the seat to act is in 0..numPlayers-1.
 * - mask: the mask is 0/1, its count is returned, a live state has a legal action, and writing at an
 *   offset touches exactly `actionSize` entries.
 * - mask-matches-apply: every action the mask allows is accepted by `applyAction` and (all or a
 *   sample of) the actions it forbids, plus out-of-range ones, are refused by throwing.
 * - encoding: every element is written, finite, for every seat, and writing at an offset gives the
 *   same floats and touches nothing outside `size`.
 * - clone: a clone has the same hash, and playing on it leaves the original untouched.
 * - determinism: the same seed (for chance and for the move choices) gives the same game.
 * - returns: one finite value per seat in [-1, 1] (summing to 0 for two-player zero-sum games).
 * - notation: `parseAction(formatAction(a))` gives back `a` for legal actions.
 * - hidden-information: for imperfect-information games, re-sampling the hidden parts of a state
 *   (with `game.determinizer` and/or the `resampleHidden` option) changes neither the seat's
 *   encoding, nor its information state, nor its view (`Game.view`), nor (for the seat to act) the
 *   mask, and the sampled state plays on to a legal end.
 * - view (games with `Game.view`): every seat's view is plain JSON of a known kind (or `custom:NAME`),
 *   a grid has all its cells, and the actions a view offers (its targets, moves or cards, and its named
 *   `actions` such as a pass) are exactly the legal ones.
 * - symmetry: each of `game.symmetries` maps encodings and actions one-to-one, and (for games without
 *   chance) replaying a game with every action mapped reaches the mapped position: the mapped
 *   encoding, the mapped mask and the same returns.
 * - bots: each bot the plugin offers answers with legal actions for a batch of states.
 */
import { randomLegalAction } from '../agents.js';
import { validateConfig, type ResolvedConfig } from '../config.js';
import type { Agent, Game, Symmetry } from '../game.js';
import type { GamePlugin } from '../plugin.js';
import type { GameView, GridBoard } from '../views.js';

/** The fields that make a view drawable as a grid (a `GridView`, or a plugin's own kind carrying them). */
const GRID_FIELDS = ['rows', 'cols', 'cells', 'targets'] as const;
/** A view kind a plugin names itself. */
const CUSTOM_KIND = /^custom:[a-z0-9][a-z0-9-]*$/;
import { checkContractVersion } from '../registry.js';
import { Rng } from '../rng.js';

/** The name of one promise the contract kit checks (listed, with what each checks, at the top of this module). */
export type ContractCheck =
  | 'plugin'
  | 'shape'
  | 'playout'
  | 'player'
  | 'mask'
  | 'mask-matches-apply'
  | 'encoding'
  | 'clone'
  | 'determinism'
  | 'returns'
  | 'notation'
  | 'hidden-information'
  | 'symmetry'
  | 'view'
  | 'bots';

/** How hard {@link testGameContract} tries: how many games, which config, how many states checked deeply. */
export interface GameContractOptions<S> {
  /** Raw game config (as from `--config`), validated with the plugin's schema. Default: all defaults. */
  readonly config?: Readonly<Record<string, unknown>>;
  /** Random games to play (each with its own seed). Default 32. */
  readonly playouts?: number;
  /** Seed of the first playout; playout i uses seed + i. Default 1. */
  readonly seed?: number;
  /**
   * States per playout at which every action is tried against `applyAction` (plus the clone,
   * notation, offset and hidden-information checks, which are dearer). Spread evenly over the game.
   * Default 3.
   */
  readonly deepChecksPerPlayout?: number;
  /**
   * Illegal actions tried per deep-checked state (a random sample, so big action spaces stay cheap);
   * `Infinity` tries all of them. Default 64.
   */
  readonly illegalSamples?: number;
  /** Playouts that are replayed to check that the same seed gives the same game. Default 4. */
  readonly determinismPlayouts?: number;
  /** Check that `parseAction(formatAction(a))` is `a`. Default true. */
  readonly notation?: boolean;
  /** Games each bot plays against itself (in every seat), batched, at least 2; 0 skips bots. Default 2. */
  readonly botGames?: number;
  /**
   * Imperfect-information games without `game.determinizer` (or to test another sampler too): returns
   * a new state that `seat` cannot tell apart from `state` (only hidden information differs).
   * Must not modify `state`.
   */
  readonly resampleHidden?: (state: S, seat: number, rng: Rng) => S;
  /** Hidden-information samples per seat at each deep-checked state. Default 2. */
  readonly hiddenSamples?: number;
}

/** What {@link testGameContract} did when nothing failed, so a test can assert that no check was skipped. */
export interface GameContractReport {
  /** The plugin's game id. */
  readonly gameId: string;
  /** The config the game was created with, after validation. */
  readonly config: ResolvedConfig;
  /** Random games played. */
  readonly playouts: number;
  /** Actions played in all playouts. */
  readonly moves: number;
  /** Actions in the longest playout, to compare with the game's declared maximum length. */
  readonly longestGame: number;
  /** How many times each check ran (a check that ran 0 times did not apply or was skipped). */
  readonly checks: Readonly<Record<ContractCheck, number>>;
  /** Checks that could not run, with why (e.g. an imperfect-information game with no sampler). */
  readonly skipped: readonly string[];
}

/** A broken promise of the game contract. `check` names it; the message says where and how to replay. */
export class ContractViolation extends Error {
  /**
   * @param gameId The game whose plugin broke the contract.
   * @param check Which promise it broke.
   * @param message Where and how.
   * @param seed Seed of the playout it happened in, when it happened in one.
   * @param move Actions played in that playout before it happened.
   */
  constructor(
    readonly gameId: string,
    readonly check: ContractCheck,
    message: string,
    /** Seed of the playout it happened in, when it happened in one. */
    readonly seed?: number,
    /** Actions played in that playout before it happened. */
    readonly move?: number,
  ) {
    super(`[${gameId}] ${check}: ${message}` + (seed !== undefined ? ` (playout seed ${seed}${move !== undefined ? `, after ${move} moves` : ''})` : ''));
    this.name = 'ContractViolation';
  }
}

const ALL_CHECKS: readonly ContractCheck[] = [
  'plugin',
  'shape',
  'playout',
  'player',
  'mask',
  'mask-matches-apply',
  'encoding',
  'clone',
  'determinism',
  'returns',
  'notation',
  'hidden-information',
  'symmetry',
  'view',
  'bots',
];

/** Salt that separates the move-choice stream from the chance stream of a playout. */
const CHOICE_SALT = 0x9e3779b9;
const DEEP_SALT = 0x2545f491;

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function isPositiveInt(n: unknown): n is number {
  return typeof n === 'number' && Number.isInteger(n) && n > 0;
}

/** A stable text of any value, typed arrays included, to compare information states. */
function stableText(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (ArrayBuffer.isView(v) && !(v instanceof DataView)) return Array.from(v as unknown as ArrayLike<number>);
    if (v instanceof Map) return [...v.entries()];
    if (v instanceof Set) return [...v.values()];
    return v;
  });
}

/**
 * Checks a game plugin against the contract by seeded random play; see the file comment for the list.
 * Resolves to a report, or rejects with the first `ContractViolation`.
 */
export async function testGameContract<S>(plugin: GamePlugin<S>, options: GameContractOptions<S> = {}): Promise<GameContractReport> {
  const kit = new ContractKit(plugin, options);
  return kit.run();
}

class ContractKit<S> {
  private readonly id: string;
  private readonly counts = Object.fromEntries(ALL_CHECKS.map((c) => [c, 0])) as Record<ContractCheck, number>;
  private readonly skipped: string[] = [];
  private game!: Game<S>;
  private config: ResolvedConfig = {};
  private mask!: Uint8Array;
  private scratchMask!: Uint8Array;
  private enc!: Float32Array;
  private encOffset!: Float32Array;
  private readonly playouts: number;
  private readonly baseSeed: number;
  private readonly deepChecks: number;
  private readonly illegalSamples: number;
  private readonly hiddenSamples: number;
  /** Samplers of hidden information, by name for messages. */
  private samplers: { name: string; sample: (state: S, seat: number, rng: Rng) => S }[] = [];
  /** Seed and move of the playout being checked, for messages. */
  private where: { seed?: number; move?: number } = {};

  constructor(
    private readonly plugin: GamePlugin<S>,
    private readonly options: GameContractOptions<S>,
  ) {
    this.id = typeof plugin?.traits?.id === 'string' ? plugin.traits.id : '?';
    this.playouts = options.playouts ?? 32;
    this.baseSeed = options.seed ?? 1;
    this.deepChecks = options.deepChecksPerPlayout ?? 3;
    this.illegalSamples = options.illegalSamples ?? 64;
    this.hiddenSamples = options.hiddenSamples ?? 2;
  }

  private fail(check: ContractCheck, message: string): never {
    throw new ContractViolation(this.id, check, message, this.where.seed, this.where.move);
  }

  private ok(check: ContractCheck): void {
    this.counts[check]++;
  }

  /** A short description of a state for messages: its hash, cut to a readable length. */
  private describe(state: S): string {
    let h: string;
    try {
      h = this.game.hash(state);
    } catch (err) {
      return `<hash threw: ${errorText(err)}>`;
    }
    return h.length > 120 ? `${h.slice(0, 117)}...` : h;
  }

  async run(): Promise<GameContractReport> {
    this.checkPlugin();
    this.checkShapes();
    let moves = 0;
    let longest = 0;
    const determinism = Math.min(this.playouts, this.options.determinismPlayouts ?? 4);
    for (let i = 0; i < this.playouts; i++) {
      const seed = this.baseSeed + i;
      const hashes = this.playout(seed, true);
      moves += hashes.length - 1;
      longest = Math.max(longest, hashes.length - 1);
      if (i < determinism) {
        const again = this.playout(seed, false);
        this.where = { seed };
        const at = hashes.findIndex((h, k) => h !== again[k]);
        if (at >= 0 || again.length !== hashes.length) {
          const k = at >= 0 ? at : Math.min(hashes.length, again.length);
          this.where = { seed, move: k };
          this.fail('determinism', `replaying the same seed gave a different game: ${JSON.stringify(hashes[k] ?? '<ended>')} then ${JSON.stringify(again[k] ?? '<ended>')}`);
        }
        this.ok('determinism');
      }
    }
    this.where = {};
    await this.checkBots();
    return {
      gameId: this.id,
      config: this.config,
      playouts: this.playouts,
      moves,
      longestGame: longest,
      checks: { ...this.counts },
      skipped: [...this.skipped],
    };
  }

  private checkPlugin(): void {
    const p = this.plugin;
    if (!p || typeof p !== 'object') this.fail('plugin', 'the plugin is not an object');
    try {
      checkContractVersion(this.id, p.contractVersion);
    } catch (err) {
      this.fail('plugin', errorText(err));
    }
    const t = p.traits;
    if (!t || !/^[a-z][a-z0-9-]*$/.test(t.id)) this.fail('plugin', `traits.id ${JSON.stringify(t?.id)} must be lowercase letters, digits and dashes`);
    for (const key of ['name', 'description'] as const) if (typeof t[key] !== 'string' || t[key] === '') this.fail('plugin', `traits.${key} must be a non-empty string`);
    if (!(isPositiveInt(t.minPlayers) && isPositiveInt(t.maxPlayers) && t.minPlayers <= t.maxPlayers)) {
      this.fail('plugin', `traits must satisfy 1 <= minPlayers <= maxPlayers (got ${t.minPlayers}..${t.maxPlayers})`);
    }
    if (!isPositiveInt(t.maxGameLength)) this.fail('plugin', `traits.maxGameLength must be a positive integer (got ${t.maxGameLength})`);
    if (t.information !== 'perfect' && t.information !== 'imperfect') this.fail('plugin', `traits.information must be 'perfect' or 'imperfect'`);
    if (t.rewards !== 'zero-sum' && t.rewards !== 'general-sum') this.fail('plugin', `traits.rewards must be 'zero-sum' or 'general-sum'`);
    if (typeof t.chance !== 'boolean') this.fail('plugin', 'traits.chance must be a boolean');
    if (typeof p.create !== 'function') this.fail('plugin', 'create must be a function');
    try {
      // The defaults alone must make a valid config: `az train --game <id>` uses them.
      const defaults = validateConfig(p.configSchema, {}, `game '${this.id}' config`);
      if (p.finalizeConfig) p.finalizeConfig(defaults);
      const raw = validateConfig(p.configSchema, this.options.config ?? {}, `game '${this.id}' config`);
      this.config = p.finalizeConfig ? p.finalizeConfig(raw) : raw;
    } catch (err) {
      this.fail('plugin', `config: ${errorText(err)}`);
    }
    try {
      this.game = p.create(this.config);
    } catch (err) {
      this.fail('plugin', `create threw: ${errorText(err)}`);
    }
    const g = this.game;
    if (g.traits?.id !== t.id) this.fail('plugin', `game.traits.id is ${JSON.stringify(g.traits?.id)}, not the plugin's '${t.id}'`);
    if (!(Number.isInteger(g.numPlayers) && g.numPlayers >= t.minPlayers && g.numPlayers <= t.maxPlayers)) {
      this.fail('plugin', `game.numPlayers ${g.numPlayers} is outside the traits' ${t.minPlayers}..${t.maxPlayers}`);
    }
    if (!isPositiveInt(g.maxGameLength)) this.fail('plugin', `game.maxGameLength must be a positive integer (got ${g.maxGameLength})`);
    if (p.bots) for (const [name, f] of Object.entries(p.bots)) if (typeof f !== 'function') this.fail('plugin', `bot '${name}' is not a factory function`);
    this.ok('plugin');

    if (g.determinizer) this.samplers.push({ name: 'game.determinizer', sample: (s, seat, rng) => g.determinizer!.sample(s, seat, rng) });
    if (this.options.resampleHidden) this.samplers.push({ name: 'resampleHidden', sample: this.options.resampleHidden });
    if (t.information === 'imperfect' && this.samplers.length === 0) {
      this.skipped.push('hidden-information: the game has no determinizer and no resampleHidden option was given');
    }
  }

  private checkShapes(): void {
    const { encoder, masker } = this.game;
    if (!encoder || !masker) this.fail('shape', 'the game needs an encoder and a masker');
    if (typeof encoder.version !== 'string' || encoder.version === '') this.fail('shape', 'encoder.version must be a non-empty string');
    if (!Array.isArray(encoder.shape) || encoder.shape.length === 0 || !encoder.shape.every(isPositiveInt)) {
      this.fail('shape', `encoder.shape must be a non-empty list of positive integers (got ${JSON.stringify(encoder.shape)})`);
    }
    const product = encoder.shape.reduce((a, b) => a * b, 1);
    if (product !== encoder.size) this.fail('shape', `encoder.size ${encoder.size} is not the product of its shape ${JSON.stringify(encoder.shape)} (${product})`);
    if (!isPositiveInt(masker.actionSize)) this.fail('shape', `masker.actionSize must be a positive integer (got ${masker.actionSize})`);
    this.mask = new Uint8Array(masker.actionSize);
    this.scratchMask = new Uint8Array(masker.actionSize + 2);
    this.enc = new Float32Array(encoder.size);
    this.encOffset = new Float32Array(encoder.size + 2);
    this.ok('shape');
    const syms = this.game.symmetries ?? [];
    syms.forEach((sym, k) => {
      const isPermutation = (map: Int32Array, n: number): boolean => {
        if (!map || map.length !== n) return false;
        const seen = new Uint8Array(n);
        for (let i = 0; i < n; i++) {
          const j = map[i];
          if (!(j >= 0 && j < n) || seen[j]) return false;
          seen[j] = 1;
        }
        return true;
      };
      if (!isPermutation(sym.inputMap, encoder.size)) this.fail('symmetry', `symmetry ${k}: inputMap is not a permutation of the ${encoder.size} encoding elements`);
      if (!isPermutation(sym.actionMap, masker.actionSize)) this.fail('symmetry', `symmetry ${k}: actionMap is not a permutation of the ${masker.actionSize} actions`);
    });
    if (syms.length && this.game.traits.chance) {
      this.skipped.push('symmetry: the game has chance, so games replayed with mapped actions cannot be compared (only the maps were checked)');
    }
  }

  /**
   * One seeded random game. With `check`, every state is checked (and some deeply); either way the
   * list of hashes (initial state, then after each action) is returned for the determinism check.
   */
  private playout(seed: number, check: boolean): string[] {
    const g = this.game;
    const chance = new Rng(seed);
    const choice = new Rng((seed ^ CHOICE_SALT) >>> 0);
    // The deep checks draw from their own stream so a checked and an unchecked playout of one seed agree.
    const deepRng = new Rng((seed ^ DEEP_SALT) >>> 0);
    this.where = { seed, move: 0 };
    let state: S;
    try {
      state = g.initialState(chance);
    } catch (err) {
      this.fail('playout', `initialState threw: ${errorText(err)}`);
    }
    const hashes = [g.hash(state)];
    const actions: number[] = [];
    // Deep checks at moves 0, k, 2k, ...: the real length of a game is unknown in advance, so k spreads
    // them over the first min(maxGameLength, 60) moves, which random games of most lengths reach.
    const stride = Math.max(1, Math.floor(Math.min(g.maxGameLength, 60) / Math.max(1, this.deepChecks)));
    let deepDone = 0;
    for (let move = 0; ; move++) {
      this.where = { seed, move };
      let terminal: boolean;
      try {
        terminal = g.isTerminal(state);
      } catch (err) {
        this.fail('playout', `isTerminal threw: ${errorText(err)}`);
      }
      if (check) this.checkReturns(state, terminal);
      if (check && g.view) this.checkView(state, terminal);
      if (terminal) {
        if (check) this.ok('playout');
        return hashes;
      }
      if (move >= g.maxGameLength) {
        this.fail('playout', `the game is not over after maxGameLength = ${g.maxGameLength} actions (state ${this.describe(state)})`);
      }
      let player: number;
      try {
        player = g.currentPlayer(state);
      } catch (err) {
        this.fail('player', `currentPlayer threw: ${errorText(err)}`);
      }
      if (check) {
        if (!(Number.isInteger(player) && player >= 0 && player < g.numPlayers)) {
          this.fail('player', `currentPlayer is ${player}, not a seat 0..${g.numPlayers - 1}`);
        }
        this.ok('player');
        this.checkMask(state);
        this.checkEncodings(state);
        if (deepDone < this.deepChecks && move % stride === 0) {
          deepDone++;
          this.deepCheck(state, deepRng.fork());
          this.checkSymmetries(state, seed, actions);
        }
      }
      let action: number;
      try {
        action = randomLegalAction(g, state, choice, this.mask);
      } catch (err) {
        this.fail('mask', `no legal action to choose from: ${errorText(err)}`);
      }
      try {
        g.applyAction(state, action, chance);
      } catch (err) {
        this.fail('mask-matches-apply', `applyAction refused the legal action ${action} (${this.safeFormat(state, action)}): ${errorText(err)}`);
      }
      actions.push(action);
      hashes.push(g.hash(state));
    }
  }

  /** Replays the playout so far with every action mapped by each symmetry; compares with the mapped position. */
  private checkSymmetries(state: S, seed: number, actions: readonly number[]): void {
    const g = this.game;
    const syms = g.symmetries ?? [];
    if (syms.length === 0 || g.traits.chance) return;
    const seat = g.currentPlayer(state);
    const enc = Float32Array.from(this.encodeFor(state, seat));
    const mask = new Uint8Array(g.masker.actionSize);
    g.masker.fillMask(state, mask, 0);
    const ret = g.returns(state);
    syms.forEach((sym, k) => {
      const rng = new Rng(seed);
      const mapped = g.initialState(rng);
      for (const a of actions) {
        try {
          g.applyAction(mapped, sym.actionMap[a], rng);
        } catch (err) {
          this.fail('symmetry', `symmetry ${k}: the mapped action ${sym.actionMap[a]} (of ${a}) was refused in the mapped game: ${errorText(err)}`);
        }
      }
      if (g.currentPlayer(mapped) !== seat) this.fail('symmetry', `symmetry ${k}: a different seat is to move in the mapped position`);
      const encMapped = this.encodeFor(mapped, seat);
      for (let i = 0; i < enc.length; i++) {
        if (!Object.is(encMapped[sym.inputMap[i]], enc[i])) this.fail('symmetry', this.symmetryEncodingMismatch(k, sym, i, enc[i], encMapped[sym.inputMap[i]], seed, actions));
      }
      g.masker.fillMask(mapped, this.scratchMask, 0);
      for (let a = 0; a < mask.length; a++) {
        if (this.scratchMask[sym.actionMap[a]] !== mask[a]) this.fail('symmetry', `symmetry ${k}: action ${a} maps to ${sym.actionMap[a]}, but their legality differs in the mapped position`);
      }
      const r = g.returns(mapped);
      for (let i = 0; i < ret.length; i++) if (r[i] !== ret[i]) this.fail('symmetry', `symmetry ${k}: returns differ in the mapped position`);
    });
    this.ok('symmetry');
  }

  /**
   * Why a mapped encoding differs, in the author's terms: which element (as plane/row/column where the
   * shape has them), after which moves, and for the start position the rule itself: every replay starts
   * from the same initial state, so a declared symmetry must map the start position to itself.
   */
  private symmetryEncodingMismatch(k: number, sym: Symmetry, i: number, expected: number, found: number, seed: number, actions: readonly number[]): string {
    const shape = this.game.encoder.shape;
    const from = `element ${i}${coordinates(shape, i)}`;
    const to = `element ${sym.inputMap[i]}${coordinates(shape, sym.inputMap[i])}`;
    if (actions.length === 0) {
      return (
        `symmetry ${k} does not map the start position to itself: its inputMap sends encoding ${from} (${expected}) to ${to}, ` +
        `which holds ${found} at the start. Each replay starts from the same initial state, so a declared symmetry must leave ` +
        `the start position unchanged (a board that is not symmetric at the start cannot declare this symmetry), or inputMap is wrong`
      );
    }
    const moves = this.describeMoves(seed, actions);
    return (
      `symmetry ${k}: after the moves ${moves}, replayed with every action mapped by actionMap, encoding ${from} (${expected}) ` +
      `should appear at ${to}, but the mapped position has ${found} there: inputMap and actionMap disagree about where this move goes`
    );
  }

  /** The moves of a playout in the game's notation, from its start (the first 12 and the count beyond). */
  private describeMoves(seed: number, actions: readonly number[]): string {
    const g = this.game;
    const rng = new Rng(seed);
    const state = g.initialState(rng);
    const shown: string[] = [];
    for (const a of actions.slice(0, 12)) {
      shown.push(this.safeFormat(state, a));
      try {
        g.applyAction(state, a, rng);
      } catch {
        break;
      }
    }
    return `[${shown.join(', ')}${actions.length > 12 ? `, … ${actions.length - 12} more` : ''}]`;
  }

  private safeFormat(state: S, action: number): string {
    try {
      return this.game.formatAction(state, action);
    } catch (err) {
      return `formatAction threw: ${errorText(err)}`;
    }
  }

  /**
   * `Game.view`, for every seat: plain JSON (it goes over the wire as is), a known kind, a grid of
   * rows x cols cells, and the actions it offers are exactly the legal ones (none once the game is over;
   * a card table offers them only to the seat to act).
   */
  private checkView(state: S, terminal: boolean): void {
    const g = this.game;
    const legal = new Set<number>();
    if (!terminal) {
      g.masker.fillMask(state, this.scratchMask, 0);
      for (let a = 0; a < g.masker.actionSize; a++) if (this.scratchMask[a]) legal.add(a);
    }
    const toAct = terminal ? -1 : g.currentPlayer(state);
    for (let seat = 0; seat < g.numPlayers; seat++) {
      let view: GameView;
      try {
        view = (g.view as (state: S, seat: number) => GameView)(state, seat);
      } catch (err) {
        this.fail('view', `view(state, ${seat}) threw: ${errorText(err)} (${this.describe(state)})`);
      }
      const text = JSON.stringify(view);
      if (stableText(JSON.parse(text)) !== stableText(view)) this.fail('view', `view(state, ${seat}) is not plain JSON (typed arrays, undefined or functions do not survive the wire)`);
      this.checkViewCommon(view, seat);
      let offered: number[];
      const gridFields = GRID_FIELDS.filter((k) => k in view);
      const custom = typeof view.kind === 'string' && CUSTOM_KIND.test(view.kind);
      if (view.kind === 'grid' || (custom && gridFields.length > 0)) {
        if (gridFields.length < GRID_FIELDS.length) this.fail('view', `view(state, ${seat}) of kind ${view.kind} has ${gridFields.join(', ')} but not ${GRID_FIELDS.filter((k) => !(k in view)).join(', ')}: a view drawn as a grid needs all of ${GRID_FIELDS.join(', ')}`);
        offered = this.checkGrid(view as GridBoard).map((t) => t.action);
      } else if (view.kind === 'chess') {
        offered = view.moves.map((m) => m.action);
      } else if (view.kind === 'cards') {
        offered = view.legal.map((m) => m.action);
        const all = [...offered, ...(view.actions ?? []).map((m) => m.action)];
        if (seat !== toAct && all.length > 0) this.fail('view', `the card table of seat ${seat} offers moves, but seat ${toAct} is to act`);
        if (seat !== toAct) continue;
      } else if (custom) {
        // Without a board, the page lists every legal move anyway: its named actions need only be legal.
        const named = (view.actions ?? []).map((m) => m.action);
        const illegal = named.filter((a) => !legal.has(a));
        if (illegal.length > 0 || new Set(named).size !== named.length) this.fail('view', `view(state, ${seat}) names actions [${named.join(', ')}] of which [${illegal.join(', ')}] are not legal (or one is named twice) (${this.describe(state)})`);
        continue;
      } else {
        this.fail('view', `view(state, ${seat}) has an unknown kind ${JSON.stringify((view as { kind?: unknown }).kind)}: use 'grid', 'chess', 'cards', or 'custom:NAME' for a kind of the game's own`);
      }
      offered = [...offered, ...(view.actions ?? []).map((m) => m.action)];
      const unique = new Set(offered);
      if (unique.size !== offered.length || unique.size !== legal.size || offered.some((a) => !legal.has(a))) {
        this.fail('view', `view(state, ${seat}) offers actions [${offered.slice(0, 12).join(', ')}${offered.length > 12 ? ', ...' : ''}] but the legal actions are [${[...legal].slice(0, 12).join(', ')}${legal.size > 12 ? ', ...' : ''}] (${this.describe(state)})`);
      }
    }
    this.ok('view');
  }

  /** The fields any view may carry: a name per seat, and named actions with a label each. */
  private checkViewCommon(view: GameView, seat: number): void {
    const names = view.seatNames;
    if (names !== undefined && !(Array.isArray(names) && names.length === this.game.numPlayers && names.every((n) => typeof n === 'string' && n !== ''))) {
      this.fail('view', `view(state, ${seat}).seatNames must name each of the ${this.game.numPlayers} seats, got ${JSON.stringify(names)}`);
    }
    for (const a of view.actions ?? []) {
      if (!(Number.isInteger(a.action) && typeof a.label === 'string' && a.label !== '')) this.fail('view', `view(state, ${seat}) action ${JSON.stringify(a)} is not { action: integer, label: text }`);
    }
  }

  /** A grid's shape, cells, coordinates and targets; returns the targets. */
  private checkGrid(view: GridBoard): GridBoard['targets'] {
    if (!isPositiveInt(view.rows) || !isPositiveInt(view.cols) || view.cells.length !== view.rows * view.cols) {
      this.fail('view', `a grid view of ${view.rows} x ${view.cols} has ${view.cells?.length} cells`);
    }
    for (const cell of view.cells) {
      if (cell !== null && !(Number.isInteger(cell.seat) && cell.seat >= 0 && cell.seat < this.game.numPlayers && typeof cell.label === 'string')) this.fail('view', `grid cell ${JSON.stringify(cell)} is not null or { seat, label }`);
    }
    if (view.columnLabels !== undefined && view.columnLabels.length !== view.cols) this.fail('view', `a grid of ${view.cols} columns has ${view.columnLabels.length} column labels`);
    if (view.rowLabels !== undefined && view.rowLabels.length !== view.rows) this.fail('view', `a grid of ${view.rows} rows has ${view.rowLabels.length} row labels`);
    for (const t of view.targets) if (!(Number.isInteger(t.cell) && t.cell >= 0 && t.cell < view.cells.length)) this.fail('view', `grid target ${JSON.stringify(t)} points outside the grid`);
    return view.targets;
  }

  private checkReturns(state: S, terminal: boolean): void {
    const g = this.game;
    let r: Float32Array;
    try {
      r = g.returns(state);
    } catch (err) {
      this.fail('returns', `returns threw: ${errorText(err)}`);
    }
    if (!r || r.length !== g.numPlayers) this.fail('returns', `returns gave ${r?.length} values for ${g.numPlayers} seats`);
    for (let i = 0; i < r.length; i++) {
      if (!Number.isFinite(r[i]) || r[i] < -1 || r[i] > 1) this.fail('returns', `seat ${i}'s return is ${r[i]}, not a number in [-1, 1]${terminal ? ' (final)' : ''}`);
    }
    if (terminal && g.traits.rewards === 'zero-sum' && g.numPlayers === 2 && Math.abs(r[0] + r[1]) > 1e-5) {
      this.fail('returns', `a zero-sum game ended with returns ${r[0]}, ${r[1]} that do not sum to 0`);
    }
    if (g.estimateReturns && !terminal) {
      let e: Float32Array;
      try {
        e = g.estimateReturns(state);
      } catch (err) {
        this.fail('returns', `estimateReturns threw: ${errorText(err)} (${this.describe(state)})`);
      }
      if (!e || e.length !== g.numPlayers) this.fail('returns', `estimateReturns gave ${e?.length} values for ${g.numPlayers} seats`);
      for (let i = 0; i < e.length; i++) {
        if (!Number.isFinite(e[i]) || e[i] < -1 || e[i] > 1) this.fail('returns', `estimateReturns gave seat ${i} ${e[i]}, not a number in [-1, 1] (${this.describe(state)})`);
      }
    }
    this.ok('returns');
  }

  private checkMask(state: S): void {
    const g = this.game;
    const n = g.masker.actionSize;
    const m = this.mask;
    m.fill(7);
    let count: number;
    try {
      count = g.masker.fillMask(state, m, 0);
    } catch (err) {
      this.fail('mask', `fillMask threw: ${errorText(err)}`);
    }
    let ones = 0;
    for (let a = 0; a < n; a++) {
      if (m[a] !== 0 && m[a] !== 1) this.fail('mask', `fillMask left entry ${a} at ${m[a]} (every entry must be written 0 or 1)`);
      ones += m[a];
    }
    if (count !== ones) this.fail('mask', `fillMask returned ${count} but marked ${ones} actions legal`);
    if (ones === 0) this.fail('mask', `a state that is not terminal has no legal action (${this.describe(state)})`);
    if (g.masker.legalActions) {
      let list: ArrayLike<number>;
      try {
        list = g.masker.legalActions(state);
      } catch (err) {
        this.fail('mask', `legalActions threw: ${errorText(err)}`);
      }
      if (list.length !== ones) this.fail('mask', `legalActions listed ${list.length} actions but fillMask marked ${ones} (${this.describe(state)})`);
      for (let k = 0; k < list.length; k++) {
        const a = list[k];
        // Each listed action must be marked, and marked only once: clear it as it is seen.
        if (!(Number.isInteger(a) && a >= 0 && a < n) || m[a] !== 1) {
          this.fail('mask', `legalActions lists ${a}, which fillMask does not mark legal${Number.isInteger(a) && a >= 0 && a < n ? ' (or lists it twice)' : ''} (${this.describe(state)})`);
        }
        m[a] = 2;
      }
      for (let k = 0; k < list.length; k++) m[list[k]] = 1;
    }
    this.ok('mask');
  }

  /** Encodes for `seat` into `this.enc` (pre-filled with NaN so unwritten elements show). */
  private encodeFor(state: S, seat: number): Float32Array {
    const g = this.game;
    this.enc.fill(Number.NaN);
    try {
      g.encoder.encode(state, seat, this.enc, 0);
    } catch (err) {
      this.fail('encoding', `encode for seat ${seat} threw: ${errorText(err)}`);
    }
    for (let i = 0; i < this.enc.length; i++) {
      if (!Number.isFinite(this.enc[i])) {
        this.fail('encoding', `encode for seat ${seat} left element ${i} ${Number.isNaN(this.enc[i]) ? 'unwritten (or NaN)' : `at ${this.enc[i]}`}: every element must be written with a finite value`);
      }
    }
    return this.enc;
  }

  private checkEncodings(state: S): void {
    for (let seat = 0; seat < this.game.numPlayers; seat++) this.encodeFor(state, seat);
    this.ok('encoding');
  }

  /** The dearer checks, at a few states per playout. `rng` is private to this call. */
  private deepCheck(state: S, rng: Rng): void {
    const g = this.game;
    const n = g.masker.actionSize;
    g.masker.fillMask(state, this.mask, 0);
    const legal: number[] = [];
    const illegal: number[] = [];
    for (let a = 0; a < n; a++) (this.mask[a] ? legal : illegal).push(a);
    const before = g.hash(state);

    // The mask at an offset: the same entries, nothing outside touched.
    const sm = this.scratchMask;
    sm.fill(9);
    g.masker.fillMask(state, sm, 1);
    if (sm[0] !== 9 || sm[n + 1] !== 9) this.fail('mask', `fillMask at offset 1 wrote outside its ${n} entries`);
    for (let a = 0; a < n; a++) if (sm[a + 1] !== this.mask[a]) this.fail('mask', `fillMask at offset 1 disagrees with offset 0 at action ${a}`);

    // The encoding at an offset: the same floats, nothing outside touched.
    for (let seat = 0; seat < g.numPlayers; seat++) {
      const at0 = Float32Array.from(this.encodeFor(state, seat));
      const eo = this.encOffset;
      eo.fill(-12345);
      g.encoder.encode(state, seat, eo, 1);
      if (eo[0] !== -12345 || eo[eo.length - 1] !== -12345) this.fail('encoding', `encode at offset 1 for seat ${seat} wrote outside its ${g.encoder.size} elements`);
      for (let i = 0; i < at0.length; i++) {
        if (!Object.is(eo[i + 1], at0[i])) this.fail('encoding', `encode at offset 1 for seat ${seat} disagrees with offset 0 at element ${i}`);
      }
    }

    // clone: equal, and independent (first, so a shared structure is blamed on clone, not on apply).
    const c = g.clone(state);
    if (c === state) this.fail('clone', 'clone returned the same object');
    if (g.hash(c) !== before) this.fail('clone', `the clone's hash ${JSON.stringify(g.hash(c))} differs from the original's ${JSON.stringify(before)}`);
    const encBefore = Float32Array.from(this.encodeFor(state, g.currentPlayer(state)));
    const played = g.clone(c);
    g.applyAction(played, legal[rng.int(legal.length)], rng.fork());
    // Play the clone on to the end, so every structure it shares with the original would be touched.
    this.playToEnd(played, rng, 'a clone');
    const encAfter = this.encodeFor(state, g.currentPlayer(state));
    if (g.hash(state) !== before) this.fail('clone', 'playing on a clone changed the original state (clone must copy, not share, mutable parts)');
    for (let i = 0; i < encAfter.length; i++) if (!Object.is(encAfter[i], encBefore[i])) this.fail('clone', `playing on a clone changed the original's encoding at element ${i}`);
    this.ok('clone');

    // Every legal action is accepted; illegal ones (a sample, plus out-of-range) are refused.
    for (const a of legal) {
      const c = g.clone(state);
      try {
        g.applyAction(c, a, rng.fork());
      } catch (err) {
        this.fail('mask-matches-apply', `action ${a} (${this.safeFormat(state, a)}) is marked legal but applyAction threw: ${errorText(err)} (state ${this.describe(state)})`);
      }
    }
    if (this.illegalSamples < illegal.length) rng.shuffle(illegal);
    const tried = [...illegal.slice(0, Math.min(illegal.length, this.illegalSamples)), -1, n];
    for (const a of tried) {
      const c = g.clone(state);
      let threw = false;
      try {
        g.applyAction(c, a, rng.fork());
      } catch {
        threw = true;
      }
      if (!threw) {
        this.fail(
          'mask-matches-apply',
          `action ${a} is ${a < 0 || a >= n ? 'out of range' : 'masked illegal'} but applyAction accepted it (it must throw) (state ${this.describe(state)})`,
        );
      }
    }
    if (g.hash(state) !== before) this.fail('mask-matches-apply', 'trying actions on clones changed the original state');
    this.ok('mask-matches-apply');

    if (this.options.notation !== false) this.checkNotation(state, legal);
    this.checkHidden(state, rng);
  }

  /** Plays `state` on at random to the end; `what` says what is being continued, for messages. */
  private playToEnd(state: S, rng: Rng, what: string): void {
    const g = this.game;
    const mask = new Uint8Array(g.masker.actionSize);
    for (let k = 0; !g.isTerminal(state); k++) {
      if (k > g.maxGameLength) this.fail('playout', `${what}, continued at random, is not over after maxGameLength = ${g.maxGameLength} more actions`);
      const a = randomLegalAction(g, state, rng, mask);
      try {
        g.applyAction(state, a, rng);
      } catch (err) {
        this.fail('mask-matches-apply', `${what}, continued at random, refused the legal action ${a}: ${errorText(err)}`);
      }
    }
  }

  private checkNotation(state: S, legal: readonly number[]): void {
    const g = this.game;
    for (const a of legal) {
      let text: string;
      try {
        text = g.formatAction(state, a);
      } catch (err) {
        this.fail('notation', `formatAction(${a}) threw: ${errorText(err)}`);
      }
      if (typeof text !== 'string' || text === '') this.fail('notation', `formatAction(${a}) gave ${JSON.stringify(text)}, not a non-empty string`);
      let parsed: ReturnType<Game<S>['parseAction']>;
      try {
        parsed = g.parseAction(state, text);
      } catch (err) {
        this.fail('notation', `parseAction(${JSON.stringify(text)}) threw (it should return { ok: false, error }): ${errorText(err)}`);
      }
      if (!parsed.ok) this.fail('notation', `parseAction(formatAction(${a}) = ${JSON.stringify(text)}) failed: ${parsed.error}`);
      if (parsed.action !== a) this.fail('notation', `parseAction(formatAction(${a}) = ${JSON.stringify(text)}) gave action ${parsed.action}`);
    }
    try {
      g.render(state);
      for (let seat = 0; seat < g.numPlayers; seat++) g.render(state, seat);
    } catch (err) {
      this.fail('notation', `render threw: ${errorText(err)}`);
    }
    this.ok('notation');
  }

  /** Imperfect information: what a seat sees must not depend on what it cannot see. */
  private checkHidden(state: S, rng: Rng): void {
    const g = this.game;
    if (g.traits.information !== 'imperfect' || this.samplers.length === 0) return;
    const before = g.hash(state);
    const mover = g.currentPlayer(state);
    const moverMask = new Uint8Array(g.masker.actionSize);
    g.masker.fillMask(state, moverMask, 0);
    for (const sampler of this.samplers) {
      for (let seat = 0; seat < g.numPlayers; seat++) {
        const enc = Float32Array.from(this.encodeFor(state, seat));
        const info = g.informationState ? stableText(g.informationState(state, seat)) : null;
        const view = g.view ? stableText(g.view(state, seat)) : null;
        for (let k = 0; k < this.hiddenSamples; k++) {
          let world: S;
          try {
            world = sampler.sample(state, seat, rng.fork());
          } catch (err) {
            this.fail('hidden-information', `${sampler.name} threw for seat ${seat}: ${errorText(err)}`);
          }
          if (world === state) this.fail('hidden-information', `${sampler.name} returned the state itself (it must return a new state)`);
          if (g.hash(state) !== before) this.fail('hidden-information', `${sampler.name} modified the state it sampled from`);
          const encWorld = this.encodeFor(world, seat);
          for (let i = 0; i < enc.length; i++) {
            if (!Object.is(encWorld[i], enc[i])) {
              this.fail(
                'hidden-information',
                `seat ${seat}'s encoding changed at element ${i} (${enc[i]} -> ${encWorld[i]}) when only hidden information changed (${sampler.name}): the encoder reads something seat ${seat} cannot see`,
              );
            }
          }
          if (info !== null && stableText(g.informationState!(world, seat)) !== info) {
            this.fail('hidden-information', `seat ${seat}'s informationState differs in a state sampled by ${sampler.name}: the sample is not consistent with what the seat knows`);
          }
          if (view !== null && stableText(g.view!(world, seat)) !== view) {
            this.fail('hidden-information', `seat ${seat}'s view changed when only hidden information changed (${sampler.name}): view shows something seat ${seat} cannot see`);
          }
          if (seat === mover) {
            if (g.currentPlayer(world) !== mover) this.fail('hidden-information', `the seat to act changed in a state sampled by ${sampler.name}`);
            g.masker.fillMask(world, this.scratchMask, 0);
            for (let a = 0; a < moverMask.length; a++) {
              if (this.scratchMask[a] !== moverMask[a]) {
                this.fail('hidden-information', `the mover's legal actions changed (action ${a}) in a state sampled by ${sampler.name}: the mask reads hidden information`);
              }
            }
          }
          if (k === 0 && seat === mover) this.playToEnd(world, rng, `a state sampled by ${sampler.name}`);
        }
      }
    }
    this.ok('hidden-information');
  }

  private async checkBots(): Promise<void> {
    const g = this.game;
    const bots = Object.entries(this.plugin.bots ?? {});
    const games = this.options.botGames ?? 2;
    if (games <= 0 || bots.length === 0) return;
    for (const [name, factory] of bots) {
      let bot: Agent<S>;
      try {
        bot = factory(g, this.baseSeed);
      } catch (err) {
        this.fail('bots', `bot '${name}' factory threw: ${errorText(err)}`);
      }
      // A batch of games played together, so batched `act` is exercised with several states.
      const chance = new Rng(this.baseSeed ^ 0x5bd1e995);
      const states = Array.from({ length: Math.max(2, games) }, () => g.initialState(chance));
      for (let step = 0; step <= g.maxGameLength; step++) {
        const live = states.filter((s) => !g.isTerminal(s));
        if (live.length === 0) break;
        if (step === g.maxGameLength) this.fail('bots', `bot '${name}' games are not over after maxGameLength = ${g.maxGameLength} actions`);
        let actions: Int32Array;
        try {
          actions = await bot.act(live);
        } catch (err) {
          this.fail('bots', `bot '${name}' act threw: ${errorText(err)}`);
        }
        if (actions.length !== live.length) this.fail('bots', `bot '${name}' answered ${actions.length} actions for ${live.length} states`);
        for (let i = 0; i < live.length; i++) {
          g.masker.fillMask(live[i], this.mask, 0);
          if (!this.mask[actions[i]]) this.fail('bots', `bot '${name}' chose the illegal action ${actions[i]} (state ${this.describe(live[i])})`);
          g.applyAction(live[i], actions[i], chance);
        }
      }
      this.ok('bots');
    }
  }
}

/** ' (plane p, row r, column c)' for an index into a [planes, rows, columns] encoding; '' for other shapes. */
function coordinates(shape: readonly number[], index: number): string {
  if (shape.length === 2) return ` (row ${Math.floor(index / shape[1])}, column ${index % shape[1]})`;
  if (shape.length !== 3) return '';
  const [, rows, cols] = shape;
  const plane = Math.floor(index / (rows * cols));
  const rest = index % (rows * cols);
  return ` (plane ${plane}, row ${Math.floor(rest / cols)}, column ${rest % cols})`;
}
