import { Z95, eloFromScore, playArena, resolveGame, wilsonInterval, type Agent, type ArenaResult, type Game, type LeafValues, type SearchMethod, type WorldSampling } from '@az/core';
import type { OtherSeatMoves, OtherSeatPriors, SearchChoices } from '@az/imperfect-info';
import { defaultPlaySimulations } from '@az/mcts';
import { POLICY_PREFIX, ROLLOUT_PREFIX, agentSearchSettings, closeAgent, gameFor, isNamedAgent, isUciSpec, makeAgent, modelPathOf, type LoadedModel, loadModel } from '../agents.js';
import { GameRecorder, checkRecordSinks } from '../records.js';
import { helpText, parseFlags, UsageError } from '../args.js';
import { ProgressBar } from '../progress.js';
import { formatSummary, summarize, type MetricSummary } from '../summaries.js';
import { gameConfigFromFlags } from './play.js';
import { arenaAgentFlags } from './arena-flags.js';

export const evalSpec = {
  name: 'eval',
  summary: 'Arena: agent A against agent B over many games, every seat played equally.',
  usage: 'az eval --game ID --a AGENT --b AGENT [options]',
  flags: {
    game: { type: 'string', description: 'game (see az games)', placeholder: 'ID' },
    a: { type: 'string', description: 'agent A: random, mcts, a game bot, a model directory, policy:<model directory> (its network alone, no search), rollout:<model directory> (hidden-information games: each legal move played out by the network policy in 64 sampled worlds), or (chess) uci:<engine command>[,depth=N|nodes=N|movetime=MS][,UCI option=value...]', placeholder: 'AGENT' },
    b: { type: 'string', description: 'agent B (fills every seat A does not hold)', placeholder: 'AGENT' },
    games: { type: 'int', min: 1, default: 100, description: 'games to play (seats rotate every game)' },
    ...arenaAgentFlags,
    determinizations: { type: 'int', min: 1, description: "hidden-information games: worlds sampled per search move, each searched with --sims simulations (default: the game's setting, else 3)" },
    search: {
      type: 'enum',
      values: ['determinized', 'information-set'],
      description: "hidden-information games: determinized search (D trees of --sims each) or information-set MCTS (one tree, D x --sims simulations, a world per simulation) (default: the game's play setting, else determinized)",
    },
    worlds: {
      type: 'enum',
      values: ['uniform', 'inferred'],
      description: "hidden-information games, information-set search with a model: worlds sampled uniformly from the mover's view, or inferred: each simulation's world drawn from a pool weighed by how likely the network makes the other seats' earlier decisions there (Blob: their bids) (default: the game's play setting, else uniform)",
    },
    'other-seat-priors': {
      type: 'enum',
      values: ['uniform', 'first-world'],
      description: "hidden-information games, information-set search: priors where another seat acts in the tree, uniform over its legal actions, or first-world: the network's policy for it in the first sampled world that reached the node (its hand in that world steering its play in every other) (default uniform)",
    },
    'other-seat-moves': {
      type: 'enum',
      values: ['search', 'policy'],
      description: "hidden-information games, information-set search with a model: how another seat chooses its move in the tree, by the search's statistics at its node (shared by every sampled world), or policy: drawn from the network's policy from that seat's own view in the simulation's world, so its play follows the cards it holds there (one more network evaluation per such node on a simulation's path) (default search)",
    },
    'leaf-values': {
      type: 'enum',
      values: ['playouts', 'world', 'policy-playouts'],
      description: "hidden-information games: leaf values of the search, random playouts of each sampled world, the network reading the world's full state, or policy-playouts: playouts of the world with every seat playing the network's top move from its own view (default: the game's play setting, else its training setting, else playouts)",
    },
    'playout-weight': {
      type: 'number',
      min: 0,
      max: 1,
      description: "hidden-information games with a model: share of one random playout of the sampled world in each leaf's value, (1 - w) x network + w x playout (default: the game's play setting with its play leaf values, else 0 with --leaf-values world, 1 with playouts)",
    },
    cpuct: { type: 'number', positive: true, description: 'search agents: the PUCT exploration constant (default 1.5, as in training)' },
    players: { type: 'int', min: 1, description: "number of players, for games with a 'players' setting" },
    json: { type: 'boolean', description: 'print the result as JSON' },
    'games-out': { type: 'string', description: 'write every game as a JSON line to FILE (replay with az play --replay FILE; two arenas with the same --seed, paired game by game: az compare X Y)', placeholder: 'FILE' },
  },
  examples: [
    'az eval --game tictactoe --a runs/tictactoe --b minimax',
    'az eval --game blob --a heuristic --b random --games 1000',
    'az eval --game chess --a runs/chess --b "uci:stockfish,Skill Level=0,movetime=50" --games 20 --pgn games.pgn',
  ],
} as const;

/** A's score (wins + draws/2) with its Wilson interval and the Elo difference it implies. */
function scoreSummary(wins: number, draws: number, losses: number): { score: number; low: number; high: number; elo: number; eloLow: number; eloHigh: number } {
  const n = wins + draws + losses;
  const score = n ? (wins + draws / 2) / n : 0.5;
  const { low, high } = wilsonInterval(wins + draws / 2, n, Z95);
  return { score, low, high, elo: eloFromScore(score), eloLow: eloFromScore(low), eloHigh: eloFromScore(high) };
}

function formatElo(x: number): string {
  return Number.isFinite(x) ? `${x >= 0 ? '+' : ''}${Math.round(x)}` : x > 0 ? '+inf' : '-inf';
}

export async function evalCommand(argv: readonly string[]): Promise<number> {
  const { flags } = parseFlags(evalSpec, argv);
  if (flags.help) {
    console.log(helpText(evalSpec));
    return 0;
  }
  if (!flags.game) throw new UsageError('az eval: --game is required (see az games)');
  if (!flags.a || !flags.b) throw new UsageError('az eval: both --a and --b are required (random, mcts, a game bot, or a model directory)');
  const plugin = resolveGame(flags.game);
  const sinks = { gamesOut: flags['games-out'], pgn: flags.pgn };
  checkRecordSinks('eval', sinks);
  const rawConfig = gameConfigFromFlags(plugin, flags.config, { players: flags.players }, 'eval');
  const models = new Map<string, LoadedModel>();
  const network = { backend: flags.backend ?? 'auto', threads: flags.threads };
  // A model fixes the game config it was trained with; the first model found decides it.
  let firstModel: LoadedModel | undefined;
  for (const spec of [flags.a, flags.b]) {
    if (!isNamedAgent(plugin, spec) && !isUciSpec(spec)) {
      const path = modelPathOf(spec);
      const m = models.get(path) ?? (await loadModelIfPath(plugin, path, network));
      if (m) {
        models.set(path, m);
        firstModel ??= m;
      }
    }
  }
  const game: Game<unknown> = gameFor(plugin, rawConfig, firstModel);
  const simulations = flags.sims ?? defaultPlaySimulations(plugin);
  const seed = flags.seed ?? 0;
  const recorder = new GameRecorder(sinks, plugin);
  const otherSeatPriors = flags['other-seat-priors'];
  const otherSeatMoves = flags['other-seat-moves'];
  const cPuct = flags.cpuct;
  const userSearch: SearchChoices = {
    tree: { cPuct },
    determinizations: flags.determinizations,
    method: flags.search as SearchMethod | undefined,
    leafValues: flags['leaf-values'] as LeafValues | undefined,
    playoutWeight: flags['playout-weight'],
    worldSampling: flags.worlds as WorldSampling | undefined,
    otherSeatPriors,
    otherSeatMoves,
  };
  // What search agents play with (the flags over the game's play settings), checked here once, before any agent is made.
  const search = agentSearchSettings(plugin, { simulations, seed, search: userSearch });
  const hidden = game.traits.information === 'imperfect' ? search.hidden : undefined;
  const searchUsed: SearchMethod | undefined = hidden?.method;
  // The players that search or play out with a model (`policy:` plays the network alone).
  const modelPlayers = [flags.a, flags.b].filter((spec) => !spec.startsWith(POLICY_PREFIX) && models.has(modelPathOf(spec)));
  // Inference weighs worlds with a network: only a model's search has one (`mcts` samples them uniformly).
  const searchesModel = modelPlayers.length > 0;
  const worldsUsed: WorldSampling | undefined = searchUsed === 'information-set' ? (searchesModel ? search.hidden.worldSampling : 'uniform') : undefined;
  const inferWorlds = worldsUsed === 'inferred';
  // Leaf values are a search's: a model's (not `policy:`, which does not search, nor `rollout:`, which plays
  // decisions out instead), else `mcts`'s, one random playout per leaf whatever the flags say; else none.
  const modelSearchesLeaves = modelPlayers.some((spec) => !spec.startsWith(ROLLOUT_PREFIX));
  // Only a model's search has a network for the other seats to move by (mcts's leaves are playouts, rollout: does not search).
  if (otherSeatMoves === 'policy' && !modelSearchesLeaves) throw new UsageError('--other-seat-moves policy needs a model agent that searches (a model directory): the network is the policy the other seats move by');
  const plainSearch = flags.a === 'mcts' || flags.b === 'mcts';
  // Whether one of the agents is our search (the search settings below apply to it only).
  const searches = modelSearchesLeaves || plainSearch;
  if (cPuct !== undefined && !searches) {
    throw new UsageError(`--cpuct sets the exploration of a search, and neither '${flags.a}' nor '${flags.b}' searches (mcts and model directories do; policy:, rollout:, bots and UCI engines do not)`);
  }
  // What a model's search values its leaves with; mcts plays one random playout per leaf (share 1).
  const leafValuesUsed = hidden === undefined ? undefined : modelSearchesLeaves ? hidden.leafValues : plainSearch ? ({ kind: 'playouts', playoutWeight: 1 } as const) : undefined;
  const otherSeatPriorsUsed: OtherSeatPriors | undefined = searchUsed === 'information-set' ? search.hidden.otherSeatPriors : undefined;
  const otherSeatMovesUsed: OtherSeatMoves | undefined = searchUsed === 'information-set' && modelSearchesLeaves ? search.hidden.otherSeatMoves : undefined;
  const agentSettings = { simulations, search: userSearch, network };
  const agentA = await makeAgent(flags.a, plugin, game, { ...agentSettings, seed }, models);
  let agentB: Agent<unknown>;
  try {
    agentB = await makeAgent(flags.b, plugin, game, { ...agentSettings, seed: seed + 1 }, models);
  } catch (err) {
    await closeAgent(agentA);
    throw err;
  }
  try {
    return await runEval();
  } finally {
    await closeAgent(agentA);
    await closeAgent(agentB);
    for (const m of models.values()) m.dispose();
  }

  async function runEval(): Promise<number> {
    // Lineup index 0 is A; every other seat is B (the arena rotates seats game by game).
    const P = game.numPlayers;
    const lineup: Agent<unknown>[] = Array.from({ length: P }, (_, i) => (i === 0 ? agentA : agentB));
    // Outcome metrics per agent, per agent and seat (seat order matters in many games: who deals, who
    // leads), and per game the paired difference A minus the mean of B's seats, whose spread is much
    // smaller than either agent's because both played the same deal.
    const perAgentMetrics: Map<string, number[]>[] = [new Map(), new Map()];
    const perSeatMetrics: Map<string, number[]>[][] = [0, 1].map(() => Array.from({ length: P }, () => new Map<string, number[]>()));
    const differences = new Map<string, number[]>();
    const push = (map: Map<string, number[]>, k: string, v: number): void => {
      const list = map.get(k) ?? [];
      list.push(v);
      map.set(k, list);
    };
    const games = flags.games ?? 100;
    const bar = flags.json ? null : new ProgressBar('eval', games, 'games');
    const names = lineup.map((a) => a.name);
    const result = await playArena(game, lineup, games, {
      seed,
      openingPlies: flags['opening-plies'] ?? 0,
      onProgress: (n) => bar?.update(n),
      onGameAborted: (record) => recorder.record(game, names, record),
      onGameEnd: (finalState, seatAgent, record) => {
        recorder.record(game, names, record);
        if (!plugin.outcomeMetrics) return;
        const aSum = new Map<string, number>();
        const bSum = new Map<string, number>();
        for (let seat = 0; seat < P; seat++) {
          const who = seatAgent[seat] === 0 ? 0 : 1;
          for (const [k, v] of Object.entries(plugin.outcomeMetrics(game, finalState, seat))) {
            push(perAgentMetrics[who], k, v);
            push(perSeatMetrics[who][seat], k, v);
            const sums = who === 0 ? aSum : bSum;
            sums.set(k, (sums.get(k) ?? 0) + v);
          }
        }
        if (P > 1) for (const [k, a] of aSum) push(differences, k, a - (bSum.get(k) ?? 0) / (P - 1));
      },
    });
    bar?.finish();
    // A metric is a share of games (Wilson intervals) when every value of it in the whole arena is 0 or 1:
    // judged per seat, a sample of points that happens to hold only 0s (a seat that never scored) would
    // get a proportion's interval.
    const shareMetrics = new Set<string>();
    for (const k of new Set([...perAgentMetrics[0].keys(), ...perAgentMetrics[1].keys()])) {
      const all = [...(perAgentMetrics[0].get(k) ?? []), ...(perAgentMetrics[1].get(k) ?? [])];
      if (all.every((v) => v === 0 || v === 1)) shareMetrics.add(k);
    }
    const summarizeAll = (m: Map<string, number[]>, shares = true): Record<string, MetricSummary> =>
      Object.fromEntries([...m].map(([k, v]) => [k, summarize(v, shares && shareMetrics.has(k))]));
    const perSeat = (who: 0 | 1): { seat: number; metrics: Record<string, MetricSummary> }[] =>
      perSeatMetrics[who].map((m, seat) => ({ seat, metrics: summarizeAll(m) })).filter((r) => Object.keys(r.metrics).length > 0);
    // B's numbers pool every seat B held.
    let bWins = 0;
    let bDraws = 0;
    let bLosses = 0;
    let bReturn = 0;
    for (let i = 1; i < game.numPlayers; i++) {
      bWins += result.wins[i];
      bDraws += result.draws[i];
      bLosses += result.losses[i];
      bReturn += result.totalReturn[i];
    }
    const played = result.games;
    const score = scoreSummary(result.wins[0], result.draws[0], result.losses[0]);
    const bySeat = seatResults(result, P);
    const report = {
      game: game.traits.id,
      config: game.config,
      games: played,
      requestedGames: games,
      aborted: result.aborted,
      ...(result.stopped ? { stopped: result.stopped } : {}),
      /** A's score (wins + draws / 2 per game) with its Wilson 95% interval, and the Elo difference it implies. */
      score,
      simulations,
      cPuct: searches ? search.tree.cPuct : undefined,
      determinizations: hidden?.determinizations,
      search: searchUsed,
      worlds: worldsUsed,
      otherSeatPriors: otherSeatPriorsUsed,
      otherSeatMoves: otherSeatMovesUsed,
      // What a model agent's search values its leaves with (hidden-information games), so a report says how it was played.
      leafValues: leafValuesUsed?.kind,
      playoutWeight: leafValuesUsed === undefined || leafValuesUsed.kind === 'policy-playouts' ? undefined : leafValuesUsed.playoutWeight,
      a: {
        agent: agentA.name,
        wins: result.wins[0],
        draws: result.draws[0],
        losses: result.losses[0],
        meanReturn: result.totalReturn[0] / Math.max(1, played),
        metrics: summarizeAll(perAgentMetrics[0]),
        perSeat: perSeat(0),
        /** A's wins, draws and losses by the seat it held (seat 0 moves first), with its score there. */
        bySeat: bySeat.a,
      },
      b: {
        agent: agentB.name,
        seatsPerGame: game.numPlayers - 1,
        wins: bWins,
        draws: bDraws,
        losses: bLosses,
        meanReturn: bReturn / Math.max(1, played * (game.numPlayers - 1)),
        metrics: summarizeAll(perAgentMetrics[1]),
        perSeat: perSeat(1),
        bySeat: bySeat.b,
      },
      /** Per game: A's metric minus the mean of B's seats (paired on the same deal). */
      difference: summarizeAll(differences, false),
    };
    const status = result.stopped ? 1 : 0;
    if (flags.json) {
      console.log(JSON.stringify(report, null, 2));
      return status;
    }
    const worlds = report.determinizations
      ? searchUsed === 'information-set'
        ? ` (${report.determinizations} x ${simulations} in one information-set tree, a world per simulation${inferWorlds ? ', weighed by the earlier decisions' : ''}${otherSeatPriorsUsed === 'first-world' ? ", other seats' priors from the first world" : ''}${otherSeatMovesUsed === 'policy' ? ", other seats moving by the network's policy" : ''})`
        : ` x ${report.determinizations} sampled worlds`
      : '';
    const exploration = cPuct !== undefined ? `, c_puct ${cPuct}` : '';
    // Bots, policy:, rollout: and UCI engines do not use our search settings.
    const searchSettings = searches ? `, ${simulations} simulations${worlds} per search move${exploration}` : '';
    console.log(`${played} games of ${game.traits.id} (${game.numPlayers} seats, rotating)${searchSettings}`);
    if (result.aborted > 0) console.log(`${result.aborted} game(s) abandoned (not counted): an agent failed to move in them`);
    if (result.stopped) console.log(`match stopped after ${played} of ${games} games: ${result.stopped}`);
    for (const [label, r] of [['A', report.a], ['B', report.b]] as const) {
      const seats = label === 'B' && game.numPlayers > 2 ? ` (over ${game.numPlayers - 1} seats a game)` : '';
      console.log(`${label} ${r.agent}: ${r.wins} wins, ${r.draws} draws, ${r.losses} losses${seats}; mean return ${r.meanReturn.toFixed(3)}`);
      for (const [k, s] of Object.entries(r.metrics)) console.log(`    ${k}: ${formatSummary(s)}`);
    }
    if (played > 0) {
      console.log(`by seat (seat 0 moves first; n = games in which the agent held that seat):`);
      for (let seat = 0; seat < P; seat++) {
        const cells = ([['A', report.a.bySeat[seat]], ['B', report.b.bySeat[seat]]] as const).map(
          ([label, r]) => `${label} ${r.wins}-${r.draws}-${r.losses}, score ${r.score.toFixed(3)} [${r.low.toFixed(3)}, ${r.high.toFixed(3)}] (n=${r.games})`,
        );
        console.log(`    seat ${seat}: ${cells.join('; ')}`);
      }
    }
    if (report.a.perSeat.length > 0) {
      console.log('per seat (n = games in which the agent held that seat):');
      for (let seat = 0; seat < P; seat++) {
        for (const [label, r] of [['A', report.a], ['B', report.b]] as const) {
          const row = r.perSeat.find((x) => x.seat === seat);
          if (!row) continue;
          const cells = Object.entries(row.metrics).map(([k, s]) => `${k} ${s.mean.toFixed(3)} [${s.low.toFixed(3)}, ${s.high.toFixed(3)}]`);
          console.log(`    seat ${seat} ${label}: ${cells.join(', ')} (n=${Object.values(row.metrics)[0]?.n ?? 0})`);
        }
      }
    }
    if (game.numPlayers === 2 && played > 0) {
      console.log(`A's score ${score.score.toFixed(3)} [${score.low.toFixed(3)}, ${score.high.toFixed(3)}] (Wilson 95%, n=${played}): Elo difference ${formatElo(score.elo)} [${formatElo(score.eloLow)}, ${formatElo(score.eloHigh)}]`);
    }
    if (Object.keys(report.difference).length > 0) {
      console.log('A minus B (per game, A against the mean of B\'s seats in the same game):');
      for (const [k, s] of Object.entries(report.difference)) console.log(`    ${k}: ${s.mean >= 0 ? '+' : ''}${formatSummary(s)}`);
    }
    return status;
  }
}

interface SeatResult {
  readonly seat: number;
  readonly games: number;
  readonly wins: number;
  readonly draws: number;
  readonly losses: number;
  /** Wins plus half the draws, per game, with its Wilson 95% interval. */
  readonly score: number;
  readonly low: number;
  readonly high: number;
}

/** A's results by seat, and B's pooled over the lineup entries it fills (every seat but A's). */
function seatResults(result: ArenaResult, seats: number): { a: SeatResult[]; b: SeatResult[] } {
  const row = (seat: number, entries: readonly number[]): SeatResult => {
    let wins = 0;
    let draws = 0;
    let losses = 0;
    for (const e of entries) {
      wins += result.bySeat[e].wins[seat];
      draws += result.bySeat[e].draws[seat];
      losses += result.bySeat[e].losses[seat];
    }
    const s = scoreSummary(wins, draws, losses);
    return { seat, games: wins + draws + losses, wins, draws, losses, score: s.score, low: s.low, high: s.high };
  };
  const bEntries = Array.from({ length: seats - 1 }, (_, i) => i + 1);
  return {
    a: Array.from({ length: seats }, (_, seat) => row(seat, [0])),
    b: Array.from({ length: seats }, (_, seat) => row(seat, bEntries)),
  };
}

async function loadModelIfPath(plugin: Parameters<typeof loadModel>[0], spec: string, network: Parameters<typeof loadModel>[2]): Promise<LoadedModel | undefined> {
  const { existsSync } = await import('node:fs');
  if (!existsSync(spec)) return undefined;
  return loadModel(plugin, spec, network);
}
