import { resolveGame, type Agent, type Game } from '@az/core';
import { defaultPlaySimulations, playArena } from '@az/trainer-multigpu';
import { gameFor, makeAgent, type LoadedModel, loadModel } from '../agents.js';
import { helpText, parseFlags, UsageError } from '../args.js';
import { ProgressBar } from '../progress.js';
import { gameConfigFromFlags } from './play.js';

export const evalSpec = {
  name: 'eval',
  summary: 'Arena: agent A against agent B over many games, every seat played equally.',
  usage: 'az eval --game ID --a AGENT --b AGENT [options]',
  flags: {
    game: { type: 'string', description: 'game (see az games)', placeholder: 'ID' },
    a: { type: 'string', description: 'agent A: random, mcts, a game bot, or a model directory', placeholder: 'AGENT' },
    b: { type: 'string', description: 'agent B (fills every seat A does not hold)', placeholder: 'AGENT' },
    games: { type: 'int', min: 1, default: 100, description: 'games to play (seats rotate every game)' },
    sims: { type: 'int', min: 1, description: 'search simulations per move for search agents (default: game setting, at least 100)' },
    players: { type: 'int', min: 1, description: "number of players, for games with a 'players' setting" },
    config: { type: 'string', description: 'game settings, key=value[,key=value...]', placeholder: 'K=V,...' },
    seed: { type: 'int', min: 0, default: 0, description: 'random seed' },
    json: { type: 'boolean', description: 'print the result as JSON' },
  },
  examples: ['az eval --game tictactoe --a runs/tictactoe --b minimax', 'az eval --game blob --a heuristic --b random --games 1000'],
} as const;

interface MetricSummary {
  mean: number;
  ci95: number;
  n: number;
}

function summarize(values: number[]): MetricSummary {
  const n = values.length;
  const mean = values.reduce((s, v) => s + v, 0) / Math.max(1, n);
  const variance = n > 1 ? values.reduce((s, v) => s + (v - mean) ** 2, 0) / (n - 1) : 0;
  return { mean, ci95: 1.96 * Math.sqrt(variance / Math.max(1, n)), n };
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
  const rawConfig = gameConfigFromFlags(plugin, flags.config, { players: flags.players }, 'eval');
  const models = new Map<string, LoadedModel>();
  // A model fixes the game config it was trained with; the first model found decides it.
  let firstModel: LoadedModel | undefined;
  for (const spec of [flags.a, flags.b]) {
    if (!plugin.bots?.[spec] && spec !== 'random' && spec !== 'mcts') {
      const m = models.get(spec) ?? (await loadModelIfPath(plugin, spec));
      if (m) {
        models.set(spec, m);
        firstModel ??= m;
      }
    }
  }
  const game: Game<unknown> = gameFor(plugin, rawConfig, firstModel);
  const simulations = flags.sims ?? defaultPlaySimulations(plugin);
  const seed = flags.seed ?? 0;
  const agentA = await makeAgent(flags.a, plugin, game, { simulations, seed }, models);
  const agentB = await makeAgent(flags.b, plugin, game, { simulations, seed: seed + 1 }, models);
  // Lineup index 0 is A; every other seat is B (the arena rotates seats game by game).
  const lineup: Agent<unknown>[] = Array.from({ length: game.numPlayers }, (_, i) => (i === 0 ? agentA : agentB));
  const perAgentMetrics: Map<string, number[]>[] = [new Map(), new Map()];
  const games = flags.games ?? 100;
  const bar = flags.json ? null : new ProgressBar('eval', games, 'games');
  const result = await playArena(game, lineup, games, {
    seed,
    onProgress: (n) => bar?.update(n),
    onGameEnd: (finalState, seatAgent) => {
      if (!plugin.outcomeMetrics) return;
      for (let seat = 0; seat < game.numPlayers; seat++) {
        const who = seatAgent[seat] === 0 ? 0 : 1;
        for (const [k, v] of Object.entries(plugin.outcomeMetrics(game, finalState, seat))) {
          const list = perAgentMetrics[who].get(k) ?? [];
          list.push(v);
          perAgentMetrics[who].set(k, list);
        }
      }
    },
  });
  bar?.finish();
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
  const report = {
    game: game.traits.id,
    config: game.config,
    games,
    simulations,
    a: { agent: agentA.name, wins: result.wins[0], draws: result.draws[0], losses: result.losses[0], meanReturn: result.totalReturn[0] / games, metrics: Object.fromEntries([...perAgentMetrics[0]].map(([k, v]) => [k, summarize(v)])) },
    b: {
      agent: agentB.name,
      seatsPerGame: game.numPlayers - 1,
      wins: bWins,
      draws: bDraws,
      losses: bLosses,
      meanReturn: bReturn / (games * (game.numPlayers - 1)),
      metrics: Object.fromEntries([...perAgentMetrics[1]].map(([k, v]) => [k, summarize(v)])),
    },
  };
  for (const m of models.values()) m.dispose();
  if (flags.json) {
    console.log(JSON.stringify(report, null, 2));
    return 0;
  }
  console.log(`${games} games of ${game.traits.id} (${game.numPlayers} seats, rotating), ${simulations} simulations per search move`);
  for (const [label, r] of [['A', report.a], ['B', report.b]] as const) {
    const seats = label === 'B' && game.numPlayers > 2 ? ` (over ${game.numPlayers - 1} seats a game)` : '';
    console.log(`${label} ${r.agent}: ${r.wins} wins, ${r.draws} draws, ${r.losses} losses${seats}; mean return ${r.meanReturn.toFixed(3)}`);
    for (const [k, s] of Object.entries(r.metrics)) console.log(`    ${k}: ${s.mean.toFixed(3)} ± ${s.ci95.toFixed(3)} (95% CI, n=${s.n})`);
  }
  return 0;
}

async function loadModelIfPath(plugin: Parameters<typeof loadModel>[0], spec: string): Promise<LoadedModel | undefined> {
  const { existsSync } = await import('node:fs');
  if (!existsSync(spec)) return undefined;
  return loadModel(plugin, spec);
}
