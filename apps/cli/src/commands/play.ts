import { createInterface } from 'node:readline';
import { parseConfigAssignments, resolveGame, Rng, validateConfig, type Agent, type Game, type GamePlugin } from '@az/core';
import { BACKEND_CHOICES } from '@az/nn';
import { defaultPlaySimulations } from '@az/mcts';
import { agentNames, gameFor, loadModel, makeAgent, readModelManifest, type LoadedModel } from '../agents.js';
import { findModel } from '../model-finder.js';
import { helpText, parseFlags, UsageError } from '../args.js';
import { checkRecordSeats, gameOfRecord, readGameRecords, replayRecord, type ReadGameRecord } from '../records.js';

export const playSpec = {
  name: 'play',
  summary: 'Play a game in the terminal against trained agents (or search/bots when there is no model).',
  usage: 'az play --game ID [--model DIR] [--seat N] [options]  |  az play --replay FILE [--index N]',
  flags: {
    game: { type: 'string', description: 'game to play (see az games)', placeholder: 'ID' },
    model: { type: 'string', description: 'trained model (run or checkpoint directory) for the other seats (default: the newest run in --models trained for this game and config)', placeholder: 'DIR' },
    models: { type: 'string', default: 'runs', description: 'where to look for a trained model when --model is not given: run directories one level down, e.g. runs/blob-5p', placeholder: 'DIR' },
    opponent: { type: 'string', description: "agent for the other seats when there is no model: random, mcts, or a game bot (default: the game's first bot for hidden-information games, else mcts)", placeholder: 'NAME' },
    seat: { type: 'int', min: 0, description: 'your seat (0 moves first; default 0)' },
    color: { type: 'enum', values: ['white', 'black'], description: 'chess: your colour (white = seat 0)' },
    players: { type: 'int', min: 1, description: "number of players, for games that have a 'players' setting" },
    fen: { type: 'string', description: "start position, for games that have a 'fen' setting (chess)", placeholder: 'FEN' },
    config: { type: 'string', description: 'game settings, key=value[,key=value...]', placeholder: 'K=V,...' },
    sims: { type: 'int', min: 1, description: "search simulations per move for the computer (default: the game's play setting, else its training setting, at least 100)" },
    seed: { type: 'int', min: 0, default: 0, description: 'random seed for deals and agents' },
    backend: { type: 'enum', values: BACKEND_CHOICES, default: 'auto', description: 'network engine for models: auto (onnxruntime if it loads, else tfjs), onnx, onnx-cuda (CUDA 12), or tfjs on cpu, wasm, node, gpu' },
    threads: { type: 'int', min: 1, description: 'onnxruntime threads per network call (default: the cores available)' },
    replay: { type: 'string', description: 'replay recorded games (az eval --games-out FILE): every move, the final position and the result', placeholder: 'FILE' },
    index: { type: 'int', min: 0, description: 'with --replay: only the game with this index (default: every game in the file)' },
  },
  examples: ['az play --game tictactoe', 'az play --game tictactoe --model runs/tictactoe --seat 1', 'az play --game blob --players 4', 'az play --game chess --color black --model runs/chess', 'az play --replay games.jsonl --index 3'],
} as const;

/**
 * The game config of `--config` and the flags that are sugar for one of its fields (`--players N` for
 * `players=N`): a flag is refused for games without that field, and a flag and a --config field that
 * set the same setting to different values are refused naming both (the same value twice is fine).
 */
export function gameConfigFromFlags(plugin: GamePlugin, configText: string | undefined, sugar: Record<string, string | number | undefined>, command: string): Record<string, unknown> {
  const raw: Record<string, unknown> = configText ? parseConfigAssignments(configText) : {};
  for (const [field, value] of Object.entries(sugar)) {
    if (value === undefined) continue;
    if (!Object.hasOwn(plugin.configSchema, field)) throw new UsageError(`az ${command}: --${field} does not apply to ${plugin.traits.id} (it has no '${field}' setting)`);
    if (Object.hasOwn(raw, field) && settingValue(plugin, field, raw[field]) !== settingValue(plugin, field, value)) {
      throw new UsageError(`az ${command}: --${field} ${String(value)} and --config ${field}=${String(raw[field])} set ${field} to different values; give one of them`);
    }
    raw[field] = value;
  }
  return raw;
}

/** `value` as the game's schema reads `field` ('05' and 5 are the same number of players), else as given. */
function settingValue(plugin: GamePlugin, field: string, value: unknown): unknown {
  try {
    return validateConfig({ [field]: plugin.configSchema[field] }, { [field]: value })[field];
  } catch {
    return value;
  }
}


/** Lines from stdin one at a time (works for a TTY and for piped input); null at end of input. */
class LineReader {
  private readonly rl = createInterface({ input: process.stdin, terminal: false });
  private readonly lines = this.rl[Symbol.asyncIterator]();

  async ask(prompt: string): Promise<string | null> {
    process.stdout.write(prompt);
    const next = await this.lines.next();
    if (next.done) {
      process.stdout.write('\n');
      return null;
    }
    return next.value;
  }

  close(): void {
    this.rl.close();
  }
}

function legalMoves<S>(game: Game<S>, state: S): string[] {
  const mask = new Uint8Array(game.masker.actionSize);
  game.masker.fillMask(state, mask, 0);
  const out: string[] = [];
  for (let a = 0; a < mask.length; a++) if (mask[a]) out.push(game.formatAction(state, a));
  return out;
}

/** How a play session talks to its human: one prompt and answer at a time, and lines printed. */
export interface PlayIo {
  ask(prompt: string): Promise<string | null>;
  print(text: string): void;
}

/** A typed array as a plain array, so an information state prints as readable JSON. */
function plainJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (ArrayBuffer.isView(v) && !(v instanceof DataView) ? Array.from(v as unknown as ArrayLike<number>) : v));
}

/**
 * What `position` prints for `seat`. Perfect information: the game's notation (chess: FEN), else its
 * hash. Hidden information: only what the seat knows (its information state; else the board from its
 * perspective), never the full state, whose hash says who holds every card.
 */
export function positionFor<S>(game: Game<S>, state: S, seat: number): string {
  if (game.traits.information === 'imperfect') {
    return game.informationState ? plainJson(game.informationState(state, seat)) : game.render(state, seat);
  }
  return game.positionText ? game.positionText(state) : game.hash(state);
}

/**
 * Plays one game between a human at `humanSeat` and `opponent` in every other seat. Everything printed
 * is what that seat may see: boards are rendered from its perspective and `position` is its view.
 * Undo is refused in hidden-information games: taking back a move after the other seats answered
 * would let the human replay knowing cards they showed.
 */
export async function runPlaySession<S>(game: Game<S>, initial: S, rng: Rng, humanSeat: number, opponent: Agent<S>, io: PlayIo): Promise<void> {
  let state = initial;
  const history: S[] = [];
  const hidden = game.traits.information === 'imperfect';
  while (!game.isTerminal(state)) {
    const seat = game.currentPlayer(state);
    if (seat !== humanSeat) {
      const [action] = await opponent.act([state]);
      const text = game.formatAction(state, action);
      game.applyAction(state, action, rng);
      io.print(`seat ${seat} (${opponent.name}) plays ${text}`);
      continue;
    }
    io.print('\n' + game.render(state, humanSeat));
    const line = await io.ask(`your move (seat ${humanSeat}): `);
    if (line === null) {
      io.print('end of input: game abandoned.');
      return;
    }
    const input = line.trim();
    const lower = input.toLowerCase();
    if (input === '') continue;
    if (lower === 'quit' || lower === 'exit' || lower === 'resign') {
      io.print('you resigned.');
      return;
    }
    if (lower === 'help' || lower === '?') {
      io.print(
        `Type a move in the notation the board shows. Commands: moves, ${hidden ? '' : 'undo, '}position (${hidden ? 'what you know, as JSON' : 'the position as text, e.g. FEN'}), quit/resign.`,
      );
      continue;
    }
    if (lower === 'moves') {
      io.print(`legal moves: ${legalMoves(game, state).join(' ')}`);
      continue;
    }
    if (lower === 'position' || lower === 'fen') {
      io.print(positionFor(game, state, humanSeat));
      continue;
    }
    if (lower === 'undo') {
      if (hidden) {
        io.print('undo is not available in hidden-information games (the other seats have already answered).');
        continue;
      }
      const previous = history.pop();
      if (previous === undefined) io.print('nothing to undo.');
      else state = previous;
      continue;
    }
    const parsed = game.parseAction(state, input);
    if (!parsed.ok) {
      // Some games' errors already list the legal moves (chess): do not print them twice.
      io.print(/legal moves:/.test(parsed.error) ? parsed.error : `${parsed.error}\nlegal moves: ${legalMoves(game, state).join(' ')}`);
      continue;
    }
    if (!hidden) history.push(game.clone(state));
    game.applyAction(state, parsed.action, rng);
  }
  io.print('\n' + game.render(state, humanSeat));
  const returns = game.returns(state);
  const mine = returns[humanSeat];
  const best = Math.max(...Array.from(returns));
  const verdict = mine === best && Array.from(returns).filter((r) => r === best).length === 1 ? 'you win' : mine === best ? 'a draw' : 'you lose';
  io.print(`game over: ${verdict} (returns by seat: ${Array.from(returns).map((r) => r.toFixed(2)).join(', ')})`);
}

export async function playCommand(argv: readonly string[]): Promise<number> {
  const { flags } = parseFlags(playSpec, argv);
  if (flags.help) {
    console.log(helpText(playSpec));
    return 0;
  }
  if (flags.replay) return replayGames(flags.replay, flags.index, flags.game);
  if (flags.index !== undefined) throw new UsageError('az play: --index goes with --replay FILE');
  if (!flags.game) throw new UsageError('az play: --game is required (see az games)');
  const plugin = resolveGame(flags.game);
  const rawConfig = gameConfigFromFlags(plugin, flags.config, { players: flags.players, fen: flags.fen }, 'play');
  const models = new Map<string, LoadedModel>();
  const network = { backend: flags.backend ?? 'auto', threads: flags.threads };
  let modelPath = flags.model;
  // What the search for a model found, said once the request is known to be playable.
  const found: string[] = [];
  if (!modelPath && !flags.opponent) {
    // No model named: the newest run trained for exactly this game and config, else bots as before.
    const modelsDir = flags.models ?? 'runs';
    const search = await findModel(plugin, rawConfig, modelsDir);
    modelPath = search.found;
    if (modelPath) found.push(`using the model in ${modelPath} (the newest run in ${modelsDir}/ trained for this ${plugin.traits.id} config; --model DIR or --opponent NAME to choose)`);
    else if (search.candidates.length > 0) {
      found.push(`no model in ${modelsDir}/ was trained for this ${plugin.traits.id} config: ${search.candidates.map((c) => `${c.dir} has ${c.mismatch}`).join('; ')}`);
      found.push(`train one with: az train --game ${plugin.traits.id}${search.trainConfig ? ` --config ${search.trainConfig}` : ''} --out ${modelsDir}/<name>`);
    }
  }
  // The game, and so the seats there are, is known from the model's manifest (a model fixes the settings
  // its network was trained with, the number of players among them): the seat is checked before the
  // model is announced or loaded.
  const game = gameFor(plugin, rawConfig, modelPath ? await readModelManifest(plugin, modelPath) : undefined);
  let humanSeat = flags.seat ?? 0;
  if (flags.color) {
    const colorSeat = flags.color === 'white' ? 0 : 1;
    // Both given: one of them would be ignored.
    if (flags.seat !== undefined && flags.seat !== colorSeat) throw new UsageError(`az play: --seat ${flags.seat} and --color ${flags.color} (seat ${colorSeat}) name different seats; give one of them`);
    humanSeat = colorSeat;
  }
  if (humanSeat >= game.numPlayers) throw new UsageError(`az play: --seat must be below ${game.numPlayers} for this ${game.traits.id} game`);
  for (const line of found) console.log(line);
  let model: LoadedModel | undefined;
  if (modelPath) {
    model = await loadModel(plugin, modelPath, network);
    models.set(modelPath, model);
  }

  const opponentSpec = modelPath ?? flags.opponent ?? (game.traits.information === 'imperfect' ? Object.keys(plugin.bots ?? {})[0] ?? 'random' : 'mcts');
  if (flags.model && flags.opponent) throw new UsageError('az play: give --model or --opponent, not both');
  if (!flags.model && flags.opponent && !agentNames(plugin).includes(flags.opponent)) {
    throw new UsageError(`az play: unknown opponent '${flags.opponent}': use ${agentNames(plugin).join(', ')}, or --model DIR`);
  }
  const simulations = flags.sims ?? defaultPlaySimulations(plugin);
  const seed = flags.seed ?? 0;
  const opponent: Agent<unknown> = await makeAgent(opponentSpec, plugin, game, { simulations, seed, batchTrees: 1, network }, models);

  const rng = new Rng(seed);
  const reader = new LineReader();
  console.log(`${plugin.traits.name}: you are seat ${humanSeat}; the other seats are ${opponent.name}${model ? ` (iteration ${model.manifest.iteration})` : ''}.`);
  console.log(`Type a move, or: moves (list legal moves), ${game.traits.information === 'imperfect' ? '' : 'undo, '}position, help, quit.`);
  try {
    await runPlaySession(game, game.initialState(rng), rng, humanSeat, opponent, { ask: (prompt) => reader.ask(prompt), print: (text) => console.log(text) });
    return 0;
  } finally {
    reader.close();
    for (const m of models.values()) m.dispose();
  }
}

/**
 * Replays recorded games move by move from their seeds and actions, and checks that the replay ends as
 * recorded (the same returns); a record that does not replay is an error naming the game.
 */
function replayGames(file: string, index: number | undefined, gameId: string | undefined): number {
  const records = readGameRecords(file, 'play').filter(({ record }) => index === undefined || record.index === index);
  if (records.length === 0) throw new UsageError(`az play: ${file} has no game${index === undefined ? 's' : ` with index ${index}`}`);
  for (const read of records) {
    const r = read.record;
    if (gameId && r.game !== gameId) throw new UsageError(`az play: game ${r.index} in ${file} is ${r.game}, not ${gameId}`);
    replayOne(read);
  }
  return 0;
}

function replayOne(read: ReadGameRecord): void {
  const r = read.record;
  const { game } = gameOfRecord(read);
  checkRecordSeats(game, read);
  console.log(`game ${r.index}${r.match ? ` of ${r.match}` : ''}: ${r.players.map((p, seat) => `seat ${seat} ${p}`).join(', ')}`);
  const moves: string[] = [];
  const state = replayRecord(game, r, (position, action) => moves.push(`${game.currentPlayer(position)}:${game.formatAction(position, action)}`));
  console.log(`moves (seat:move): ${moves.join(' ')}`);
  console.log(game.render(state));
  if (r.aborted) {
    console.log(`abandoned: ${r.aborted}`);
    return;
  }
  const returns = Array.from(game.returns(state));
  console.log(`result: returns by seat ${returns.map((v) => v.toFixed(2)).join(', ')}${r.termination ? ` (${r.termination})` : ''}`);
}
