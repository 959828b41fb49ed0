import { readFileSync, writeFileSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import { fitElo, resolveGame, resolveGameConfig, type Agent, type EloFit, type GamePlugin, type PairResult } from '@az/core';
import { defaultPlaySimulations } from '@az/mcts';
import { closeAgent, gameFor, isNamedAgent, isUciSpec, loadModel, makeAgent, modelPathOf, type LoadedModel } from '../agents.js';
import { helpText, parseFlags, UsageError } from '../args.js';
import { expandPlayers, formatRatings, playLadder, schedule, type LadderPlayer } from '../ladder.js';
import { ProgressBar } from '../progress.js';
import { GameRecorder, checkRecordSinks, isJsonObject } from '../records.js';
import { checkOutputFile } from '../output-paths.js';
import { gameConfigFromFlags } from './play.js';
import { arenaAgentFlags } from './arena-flags.js';

export const rateSpec = {
  name: 'rate',
  summary: 'Elo ratings: play a round robin (or a gauntlet) among models and fixed agents, fit Elo by maximum likelihood.',
  usage: 'az rate --game ID PLAYER PLAYER... [options]   |   az rate --game ID --include FILE,FILE... (fit only)',
  positionals: 1000,
  flags: {
    game: { type: 'string', description: 'game (see az games); two-player games only', placeholder: 'ID' },
    games: { type: 'int', min: 1, default: 20, description: 'games per pair (seats alternate)' },
    gauntlet: { type: 'int', min: 1, description: 'only the first K players play everyone (the others play only them); default: every pair plays' },
    anchor: { type: 'string', description: "fix one player's rating, NAME=ELO (default: random=0 when random plays, else the first player at 0)", placeholder: 'NAME=ELO' },
    sprt: { type: 'string', description: 'two players only: stop early once a sequential test decides between Elo difference elo0 and elo1 (alpha = beta = 0.05)', placeholder: 'ELO0,ELO1' },
    include: {
      type: 'string',
      description:
        "add the pair records of earlier ratings.json files (comma-separated) to the fit, not replayed: e.g. rate a new model against an anchor pool rated before, or join matches played in parallel; with no players named, only fit them",
      placeholder: 'FILE,...',
    },
    'prior-draws': { type: 'number', min: 0, default: 1, description: 'virtual draws added to every pair that played, so that a perfect score has a finite rating' },
    ...arenaAgentFlags,
    out: { type: 'string', default: 'ratings.json', description: 'where to write the ratings and every pair\'s record', placeholder: 'FILE' },
    'games-out': { type: 'string', description: 'write every game as a JSON line to FILE (az play --replay FILE)', placeholder: 'FILE' },
    json: { type: 'boolean', description: 'print the ratings as JSON' },
  },
  examples: [
    'az rate --game tictactoe runs/ttt/rated random minimax --gauntlet 5',
    "az rate --game chess runs/chess random greedy 'uci:stockfish,depth=1' 'uci:stockfish,Skill Level=0,movetime=50' --gauntlet 1 --games 20",
    'az rate --game chess runs/a runs/b --sprt 0,50 --games 400',
    'az rate --game chess runs/chess random --include anchors.json --games 10',
    "az rate --game chess --include pool.json,vs-depth1.json,vs-skill0.json --anchor 'uci:stockfish,depth=1=959'",
  ],
} as const;

/** Parses `NAME=ELO` (the name may contain '='; the number is after the last one). */
function parseAnchor(text: string): { name: string; elo: number } {
  const at = text.lastIndexOf('=');
  const elo = Number(text.slice(at + 1));
  if (at <= 0 || !Number.isFinite(elo)) throw new UsageError(`az rate: --anchor must be NAME=ELO, e.g. random=0 (got '${text}')`);
  return { name: text.slice(0, at), elo };
}

/**
 * A pair's record in a ratings.json. `from` lists the files it was included through (innermost first),
 * absent for the pairs that file's own run played: a report that included another holds that one's
 * records too, and joining both must count them once.
 */
type RecordedPair = PairResult & { readonly from?: readonly string[] };

/** An included ratings.json's records, and the game settings its games were played with when it says. */
interface IncludedRatings {
  readonly file: string;
  readonly pairs: RecordedPair[];
  readonly config?: Readonly<Record<string, unknown>>;
}

/**
 * The pair records of earlier `az rate` runs of `game` (their ratings.json files, comma-separated), each
 * marked with the file it came from. A record that came into one listed file through another listed file
 * is skipped (counted once, from the file that played it), as is a file listed twice. A file of another
 * game is refused (its settings are checked against the rating's by `checkIncludedSettings`).
 */
function readIncludedFiles(files: string, game: string): IncludedRatings[] {
  const listed = [...new Set(files.split(',').map((f) => f.trim()).filter((f) => f !== '').map((f) => resolvePath(f)))];
  return listed.map((file) => {
    const ratings = readRatingsFile(file, game);
    const pairs = ratings.pairs
      .filter((p) => !(p.from ?? []).some((via) => via !== file && listed.includes(via)))
      .map((p) => ({ ...p, from: [...(p.from ?? []), file] }));
    return { ...ratings, pairs };
  });
}

function readRatingsFile(file: string, game: string): IncludedRatings {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new UsageError(`az rate: --include ${file}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const notRatings = (why: string): UsageError => new UsageError(`az rate: --include ${file} is not a ratings.json of az rate (${why})`);
  if (!isJsonObject(parsed)) throw notRatings(`it holds ${parsed === null ? 'null' : Array.isArray(parsed) ? 'an array' : `a ${typeof parsed}`}, not an object`);
  // Records of another game's players would be fitted as ratings of this one.
  if (typeof parsed.game !== 'string') throw notRatings('it names no game');
  if (parsed.game !== game) throw new UsageError(`az rate: --include ${file} is a rating of ${parsed.game}, not ${game}: include ratings of the game rated`);
  const { pairs, config } = parsed;
  const ok = (p: unknown): p is RecordedPair => {
    const r = p as Partial<RecordedPair>;
    return (
      typeof r.a === 'string' &&
      typeof r.b === 'string' &&
      [r.wins, r.draws, r.losses].every((n) => Number.isInteger(n) && (n as number) >= 0) &&
      (r.from === undefined || (Array.isArray(r.from) && r.from.every((f) => typeof f === 'string')))
    );
  };
  if (!Array.isArray(pairs) || !pairs.every(ok)) throw notRatings("no valid 'pairs'");
  if (config !== undefined && !isJsonObject(config)) throw notRatings("its 'config' is not an object");
  return { file, pairs, ...(config ? { config } : {}) };
}

/**
 * Refuses an included file whose games were played with other game settings than `config` (what
 * `against` names), as az compare refuses arenas of other settings; a file that records none (a
 * fit-only rating written before ratings recorded them) is taken as it is.
 */
function checkIncludedSettings(plugin: GamePlugin, included: readonly IncludedRatings[], config: Readonly<Record<string, unknown>>, against: string): void {
  // Both resolved, so that a setting added to the game since a file was written compares as its default.
  const resolved = (c: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> => {
    try {
      return resolveGameConfig(plugin, c);
    } catch {
      return c; // settings the game no longer takes: compared as written
    }
  };
  const ours = resolved(config);
  for (const { file, config: written } of included) {
    if (!written) continue;
    const theirs = resolved(written);
    const keys = [...new Set([...Object.keys(theirs), ...Object.keys(ours)])];
    const differing = keys.filter((k) => JSON.stringify(theirs[k]) !== JSON.stringify(ours[k])).map((k) => `${k}=${String(theirs[k])} against ${String(ours[k])}`);
    if (differing.length) throw new UsageError(`az rate: --include ${file} was played with other ${plugin.traits.id} settings than ${against} (${differing.join(', ')}): games at other settings do not join in one rating`);
  }
}

function parseSprt(text: string): [number, number] {
  const parts = text.split(',').map((t) => Number(t.trim()));
  if (parts.length !== 2 || parts.some((x) => !Number.isFinite(x)) || parts[0] >= parts[1]) throw new UsageError(`az rate: --sprt must be elo0,elo1 with elo0 < elo1, e.g. 0,50 (got '${text}')`);
  return [parts[0], parts[1]];
}

export async function rateCommand(argv: readonly string[]): Promise<number> {
  const { flags, positionals } = parseFlags(rateSpec, argv);
  if (flags.help) {
    console.log(helpText(rateSpec));
    return 0;
  }
  if (!flags.game) throw new UsageError('az rate: --game is required (see az games)');
  const plugin = resolveGame(flags.game);
  const specs = expandPlayers(positionals);
  if (specs.length === 0 && flags.include) return fitIncluded(flags, plugin);
  if (specs.length < 2) throw new UsageError('az rate: name at least two players (model directories, run directories, random, a game bot, mcts, or uci:... for chess)');
  if (new Set(specs).size !== specs.length) throw new UsageError('az rate: a player is named twice');
  const sprtBounds = flags.sprt ? parseSprt(flags.sprt) : undefined;
  if (sprtBounds && specs.length !== 2) throw new UsageError(`az rate: --sprt is a head-to-head test; name exactly two players (got ${specs.length})`);
  // The results are written after the last game: a path that cannot take them must not cost the games.
  if (flags.out) checkOutputFile('rate', '--out', flags.out);
  checkRecordSinks('rate', { gamesOut: flags['games-out'], pgn: flags.pgn });
  const includedFiles = flags.include ? readIncludedFiles(flags.include, plugin.traits.id) : [];
  const included = includedFiles.flatMap((f) => f.pairs);
  const known = new Set([...specs, ...included.flatMap((p) => [p.a, p.b])]);
  const anchor = flags.anchor ? parseAnchor(flags.anchor) : known.has('random') ? { name: 'random', elo: 0 } : { name: specs[0], elo: 0 };
  if (!known.has(anchor.name)) throw new UsageError(`az rate: the anchor '${anchor.name}' is not among the players (${specs.join(', ')})`);

  const rawConfig = gameConfigFromFlags(plugin, flags.config, {}, 'rate');
  const network = { backend: flags.backend ?? 'auto', threads: flags.threads };
  const models = new Map<string, LoadedModel>();
  const agents: Agent<unknown>[] = [];
  try {
    let firstModel: LoadedModel | undefined;
    for (const spec of specs) {
      if (isUciSpec(spec) || isNamedAgent(plugin, spec)) continue;
      const path = modelPathOf(spec);
      if (models.has(path)) continue;
      const m = await loadModel(plugin, path, network).catch((err: unknown) => {
        throw new UsageError(`az rate: '${spec}' is not a player: not random, mcts, a ${plugin.traits.id} bot or uci:..., and not a model (${err instanceof Error ? err.message : String(err)})`);
      });
      models.set(path, m);
      firstModel ??= m;
    }
    const game = gameFor(plugin, rawConfig, firstModel);
    if (game.numPlayers !== 2) throw new UsageError(`az rate: Elo ratings need a two-player game; ${game.traits.id} is played by ${game.numPlayers}`);
    checkIncludedSettings(plugin, includedFiles, game.config, "this run's games");
    const simulations = flags.sims ?? defaultPlaySimulations(plugin);
    const seed = flags.seed ?? 0;
    const players: LadderPlayer[] = [];
    for (const [i, spec] of specs.entries()) {
      const agent = await makeAgent(spec, plugin, game, { simulations, seed: seed + i, network }, models);
      agents.push(agent);
      players.push({ name: spec, agent });
    }
    const recorder = new GameRecorder({ gamesOut: flags['games-out'], pgn: flags.pgn }, plugin);
    const pairs = schedule(players.length, flags.gauntlet ?? players.length);
    const games = flags.games ?? 20;
    if (!flags.json) {
      // Run directories expand to their checkpoints: say who plays before a long schedule starts.
      console.error(`az rate: ${players.length} players, ${pairs.length} pair${pairs.length === 1 ? '' : 's'} x ${games} games = ${pairs.length * games} games${flags.gauntlet ? ` (gauntlet of the first ${flags.gauntlet})` : ''}:`);
      for (const [i, p] of players.entries()) console.error(`  ${i + 1}. ${p.name}`);
    }
    const bar = flags.json ? null : new ProgressBar('rate', pairs.length * games, 'games');
    const ladder = await playLadder(game, players, pairs, {
      games,
      seed,
      openingPlies: flags['opening-plies'] ?? 0,
      sprt: sprtBounds,
      onGame: (g, names, record, match) => recorder.record(g, names, record, match),
      onProgress: (n) => bar?.update(n),
    });
    bar?.finish();
    const allPairs = [...included, ...ladder.pairs];
    const played = allPairs.filter((p) => p.wins + p.draws + p.losses > 0);
    if (played.length === 0) throw new Error(`no games were completed${ladder.stopped ? `: ${ladder.stopped}` : ''}`);
    const fit = fitElo(played, { anchor: anchor.name, anchorElo: anchor.elo, priorDraws: flags['prior-draws'] ?? 1 });
    const report = {
      game: game.traits.id,
      config: game.config,
      simulations,
      gamesPerPair: games,
      anchor: { name: anchor.name, elo: anchor.elo },
      priorDraws: fit.priorDraws,
      ratings: ratingsWithLos(fit),
      pairs: allPairs,
      ...(flags.include ? { included: flags.include } : {}),
      aborted: ladder.aborted,
      ...(ladder.stopped ? { stopped: ladder.stopped } : {}),
      ...(ladder.sprt ? { sprt: { elo0: sprtBounds?.[0], elo1: sprtBounds?.[1], ...ladder.sprt } } : {}),
    };
    if (flags.out) writeFileSync(flags.out, JSON.stringify(report, null, 2) + '\n');
    if (flags.json) {
      console.log(JSON.stringify(report, null, 2));
      return ladder.stopped ? 1 : 0;
    }
    console.log(`${game.traits.id}: ${ladder.pairs.length} pairings, up to ${games} games each, ${simulations} simulations per search move; Elo by maximum likelihood (draws half), ${anchor.name} fixed at ${anchor.elo}, ${fit.priorDraws} virtual draw(s) per pair`);
    for (const p of allPairs) console.log(`${pairLine(p)}${included.includes(p) ? ' (included)' : ''}`);
    if (ladder.aborted) console.log(`${ladder.aborted} game(s) abandoned (not counted): an agent failed to move in them`);
    if (ladder.sprt) console.log(`SPRT H0: ${sprtBounds?.[0]} vs H1: ${sprtBounds?.[1]} Elo: LLR ${ladder.sprt.llr.toFixed(2)} in [${ladder.sprt.lower.toFixed(2)}, ${ladder.sprt.upper.toFixed(2)}]: ${ladder.sprt.decision === 'continue' ? 'no decision within --games' : `accepted ${ladder.sprt.decision}`}`);
    console.log(formatRatings(fit));
    if (flags.out) console.log(`written to ${flags.out}`);
    if (ladder.stopped) {
      console.log(`stopped early: ${ladder.stopped}`);
      return 1;
    }
    return 0;
  } finally {
    for (const a of agents) await closeAgent(a);
    for (const m of models.values()) m.dispose();
  }
}

/** `az rate --include A,B,...` with no players: the Elo fit of the included records alone, no games. */
function fitIncluded(flags: ReturnType<typeof parseFlags<typeof rateSpec.flags>>['flags'], plugin: GamePlugin): number {
  const playOnly = (['sprt', 'gauntlet', 'sims', 'games-out', 'pgn'] as const).filter((f) => flags[f] !== undefined);
  if (playOnly.length) throw new UsageError(`az rate: --${playOnly[0]} is about playing games; with no players named, az rate only fits the --include records`);
  if (flags.out) checkOutputFile('rate', '--out', flags.out);
  const includedFiles = readIncludedFiles(flags.include ?? '', plugin.traits.id);
  // The records join at one game's settings: those asked for with --config, else the first file's that records them.
  const first = includedFiles.find((f) => f.config);
  const config = flags.config ? resolveGameConfig(plugin, gameConfigFromFlags(plugin, flags.config, {}, 'rate')) : first?.config;
  if (config) checkIncludedSettings(plugin, includedFiles, config, flags.config ? '--config asks for' : (first?.file ?? ''));
  const included = includedFiles.flatMap((f) => f.pairs);
  const played = included.filter((p) => p.wins + p.draws + p.losses > 0);
  if (played.length === 0) throw new UsageError(`az rate: --include ${flags.include} holds no games`);
  const known = new Set(played.flatMap((p) => [p.a, p.b]));
  const anchor = flags.anchor ? parseAnchor(flags.anchor) : known.has('random') ? { name: 'random', elo: 0 } : { name: played[0].a, elo: 0 };
  if (!known.has(anchor.name)) throw new UsageError(`az rate: the anchor '${anchor.name}' played none of the included games (players: ${[...known].join(', ')})`);
  const fit = fitElo(played, { anchor: anchor.name, anchorElo: anchor.elo, priorDraws: flags['prior-draws'] ?? 1 });
  const report = {
    game: flags.game,
    ...(config ? { config } : {}),
    anchor,
    priorDraws: fit.priorDraws,
    ratings: ratingsWithLos(fit),
    pairs: included,
    included: flags.include,
  };
  if (flags.out) writeFileSync(flags.out, JSON.stringify(report, null, 2) + '\n');
  if (flags.json) {
    console.log(JSON.stringify(report, null, 2));
    return 0;
  }
  console.log(`${flags.game}: the included records only (no games played); Elo by maximum likelihood (draws half), ${anchor.name} fixed at ${anchor.elo}, ${fit.priorDraws} virtual draw(s) per pair`);
  for (const p of included) console.log(pairLine(p));
  console.log(formatRatings(fit));
  if (flags.out) console.log(`written to ${flags.out}`);
  return 0;
}

/** The fit's players, each with its likelihood of superiority over the next (the ratings of a ratings.json). */
function ratingsWithLos(fit: EloFit): (EloFit['players'][number] & { losNext: number | null })[] {
  return fit.players.map((p, k) => ({ ...p, losNext: k + 1 < fit.players.length ? fit.los[k][k + 1] : null }));
}

/** One pair's record as the table above the ratings shows it. */
function pairLine(p: PairResult): string {
  return `  ${p.a} vs ${p.b}: +${p.wins} =${p.draws} -${p.losses}`;
}
