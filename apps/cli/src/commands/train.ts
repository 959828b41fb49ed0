import { resolveGame, resolveGameConfig, type GamePlugin } from '@az/core';
import { BACKEND_CHOICES } from '@az/nn';
import {
  DeviceSpecError,
  RunDirectoryError,
  checkMultiProcessOptions,
  recordedGame,
  resolveResume,
  parseDeviceSpec,
  parseGpuList,
  runMultiProcessTraining,
  runTraining,
  type IterationMetrics,
  type MultiProcessOptions,
  type RecordsInput,
  type TrainOptionsInput,
  type TrainPhase,
  type TrainSummary,
  RedisUrlError,
  checkRunName,
  parseRedisUrl,
  withTlsCa,
  formatDuration,
  readRunKey,
  RunKeyError,
  RUN_KEY_ENV,
  RUN_KEY_FILE,
} from '@az/trainer-multigpu';
import { helpText, parseFlags, UsageError } from '../args.js';
import { trainDefaultsText } from '../train-defaults.js';
import { trainInputFrom, type TrainFlags } from '../train-flags.js';
import { checkOutputDirectory } from '../output-paths.js';
import { defaultPlaySimulations } from '@az/mcts';
import { TrainingRater } from '../training-ratings.js';
import { lastDiscovery } from '../plugins.js';
import { ProgressBar, formatSeconds } from '../progress.js';
import { startServer, type RunningServer } from '../serve/server.js';
import { existsSync, mkdirSync } from 'node:fs';
import { recordFiles } from '../records.js';
import { availableParallelism } from 'node:os';
import { basename, dirname, resolve } from 'node:path';
import { defaultSelfPlayProcesses, workerCountWarning } from '../worker-count.js';

export const trainSpec = {
  name: 'train',
  summary: 'Train an AlphaZero agent by self-play.',
  usage: 'az train --game ID [options] [--records FILE [FILE...]]',
  // More record files after --records FILE.
  positionals: Number.MAX_SAFE_INTEGER,
  flags: {
    game: { type: 'string', description: "game to train (see az games); with --resume, the run's own game when left out", placeholder: 'ID' },
    config: { type: 'string', description: 'game settings, key=value[,key=value...]', placeholder: 'K=V,...' },
    iterations: { type: 'int', min: 0, description: 'training iterations (self-play + training + eval each); with --resume, the total to reach; 0 (with --records): pretrain on the records only' },
    'time-limit': {
      type: 'string',
      description:
        "wall-clock budget of this session, e.g. 60m, 1h30m, 90s: no iteration starts that would end after it (judged by the last iteration's time), so the run ends on a finished checkpoint; without --iterations, iterations run until the budget is spent (the game's own iterations hint is not used)",
      placeholder: 'DURATION',
    },
    'games-per-iter': { type: 'int', min: 1, description: 'self-play games per iteration' },
    'parallel-games': { type: 'int', min: 1, description: 'games played at once, batched into each network call' },
    sims: { type: 'int', min: 1, description: 'MCTS simulations per move in self-play' },
    determinizations: { type: 'int', min: 1, description: "hidden-information games: worlds sampled per move, each searched with --sims simulations (default: the game's setting, else 3)" },
    'leaf-values': {
      type: 'enum',
      values: ['playouts', 'world', 'policy-playouts'],
      description: "hidden-information games: leaf values of the search, random playouts of each sampled world, the network reading the world's full state, or policy-playouts (every seat playing the network's top move from its own view), in self-play; evaluation games use the game's play setting (default: the game's setting, else playouts)",
    },
    'self-play-search': {
      type: 'enum',
      values: ['determinized', 'information-set'],
      description:
        "hidden-information games: the search self-play trains with, determinized (D trees of --sims each) or, for experiments, information-set MCTS (one tree, D x --sims simulations, a world per simulation; with Gumbel one root per information set; not with --forced-playouts); evaluation games use the game's play setting (default: the game's setting, else determinized)",
    },
    leaves: { type: 'int', min: 1, description: 'leaves per tree per network call (virtual loss)' },
    'temperature-moves': { type: 'int', min: 0, description: 'moves per game sampled from the visit counts before playing the most visited' },
    'value-shaping': {
      type: 'number',
      min: 0,
      max: 0.99,
      description: "weight of the game's own position estimate (chess: material) in value targets, blended with game results (default: the game's setting, else 0)",
    },
    'root-value-weight': { type: 'number', min: 0, max: 1, description: "weight of the root search value in value targets, blended with game results (default: the game's setting, else 0)" },
    'child-values': { type: 'int', min: 0, description: "value-only training rows for the root's searched children in the first N worlds of each recorded move (perfect information: the one tree), each child's target its mean search value; hidden information needs world values (default: the game's setting, else 0 = off)" },
    'self-play-solve': { type: 'boolean', description: "prove results in the self-play search tree (default: the game's setting, else off)" },
    'full-search-share': { type: 'number', min: 0.01, max: 1, description: "playout cap randomization: share of moves searched with --sims and recorded; the rest use --reduced-sims (default: the game's setting, else 1 = off)" },
    'eval-cache': { type: 'int', min: 0, description: "positions the self-play network-evaluation cache holds, keyed by the game's hash (default: the game's setting, else 0 = off)" },
    'reduced-sims': { type: 'int', min: 1, description: 'playout cap randomization: simulations of the unrecorded moves (default: --sims / 8)' },
    'root-selection': {
      type: 'enum',
      values: ['puct', 'gumbel'],
      description:
        "self-play root search: puct (Dirichlet noise, visit-count policy targets) or gumbel (Gumbel-top-m actions, sequential halving, completed-Q improved-policy targets; good with few --sims) (default: the game's setting, else puct)",
    },
    'gumbel-actions': { type: 'int', min: 1, description: 'gumbel: root actions sampled and searched by sequential halving (default 16)' },
    'gumbel-c-visit': { type: 'number', min: 0, description: 'gumbel: c_visit of sigma(q) = (c_visit + max visits) * c_scale * q (default 50)' },
    'gumbel-c-scale': { type: 'number', min: 0.0001, description: 'gumbel: c_scale of sigma(q); lower trusts the search less and the Gumbel sample more (default 1)' },
    'forced-playouts': {
      type: 'number',
      min: 0,
      description: "puct self-play: k of KataGo's forced playouts, every visited root move gets sqrt(k * prior * visits), pruned from the policy target afterwards (default: the game's setting, else 0 = off; KataGo uses 2)",
    },
    'dirichlet-alpha': { type: 'number', min: 0, description: 'root Dirichlet noise concentration' },
    'dirichlet-epsilon': { type: 'number', min: 0, max: 1, description: 'root Dirichlet noise weight (0 = no noise)' },
    cpuct: { type: 'number', positive: true, description: 'PUCT exploration constant' },
    'train-steps': { type: 'int', min: 1, description: 'training minibatches per iteration' },
    'batch-size': { type: 'int', min: 1, description: 'training minibatch size' },
    lr: { type: 'number', positive: true, description: "Adam learning rate (under --lr-schedule cosine, the first iteration's)" },
    'lr-schedule': {
      type: 'enum',
      values: ['constant', 'cosine'],
      description: "learning rate over the run: constant, or cosine from --lr down to --lr-final at the last iteration (default: the game's setting, else constant)",
    },
    'lr-final': { type: 'number', positive: true, description: 'cosine schedule: learning rate of the last iteration (default: --lr / 10)' },
    'weight-decay': { type: 'number', min: 0, description: 'L2 weight decay' },
    'weights-average': {
      type: 'number',
      min: 0,
      max: 1,
      description: "decay per iteration of the moving average of weights that evaluation, checkpoints and play use, in [0, 1): 0 plays the trained weights, 0.75 averages about the last 4 iterations (default: the game's setting, else 0); self-play always uses the trained weights",
    },
    replay: { type: 'int', min: 1, description: 'replay buffer capacity (positions)' },
    'eval-games': { type: 'int', min: 0, description: 'arena games per opponent after each iteration (0 = skip)' },
    'eval-sims': { type: 'int', min: 1, description: 'simulations per move in evaluation (default: --sims)' },
    network: { type: 'string', description: "architecture: 'mlp:128,128' or 'resnet:FILTERSxBLOCKS' (e.g. resnet:64x4; over a game's resnet, its head settings are kept)", placeholder: 'SPEC' },
    backend: {
      type: 'enum',
      values: BACKEND_CHOICES,
      default: 'auto',
      description: 'auto: tfjs trains, onnxruntime runs the search if it loads (else tfjs); onnx, onnx-cuda: onnxruntime search on CPU / CUDA 12 or fail; cpu, wasm, node, gpu: tfjs only, on that backend',
    },
    threads: { type: 'int', min: 1, description: 'onnxruntime threads per network call in self-play and evaluation (default: the cores available)' },
    out: { type: 'string', description: 'run directory: checkpoint, replay buffer, metrics.jsonl (default runs/<game>)', placeholder: 'DIR' },
    resume: { type: 'string', description: 'continue a run from its directory or one of its checkpoint folders (weights, optimizer, replay buffer, iteration)', placeholder: 'DIR' },
    force: { type: 'boolean', description: 'start a new run even if --out holds one: the old run is moved to <out>.archived-<time>, not deleted (never while another az train is training it)' },
    keep: { type: 'int', min: 1, description: 'iterations whose checkpoints are kept in the run directory, newest included (default 5)' },
    seed: { type: 'int', min: 0, description: 'random seed (runs are reproducible from it)' },
    gpus: { type: 'string', description: 'self-play in one process per listed GPU (e.g. 0,1,2,3), training on the first; needs @tensorflow/tfjs-node-gpu', placeholder: 'LIST' },
    devices: { type: 'string', description: "self-play in N CPU processes (wasm backend), training in this one: cpu:N (default: the game's selfPlayProcesses where the machine has a core to spare, else none)", placeholder: 'cpu:N' },
    'single-process': { type: 'boolean', description: "self-play and training take turns in this process, even for a game whose default runs self-play beside the trainer" },
    'workers-per-device': { type: 'int', min: 1, description: 'self-play processes per device (with --gpus/--devices; default 1): more when game logic, not the network, is the bottleneck' },
    'max-game-age': { type: 'int', min: 0, description: 'with --gpus/--devices: drop games played by weights more than this many versions old (default 2)' },
    'heartbeat-timeout': { type: 'number', min: 1, description: 'with --gpus/--devices: seconds of silence after which a self-play process is killed and restarted (default 60)' },
    'rate-every': { type: 'int', min: 1, description: 'every K iterations, rate the new checkpoint (Elo against random, the game\'s bots and earlier rated checkpoints; two-player games): kept in <out>/rated/, Elo in metrics.jsonl and <out>/ratings.json', placeholder: 'K' },
    'rate-games': { type: 'int', min: 2, default: 20, description: 'with --rate-every: games per pairing' },
    'rate-sims': { type: 'int', min: 1, description: "with --rate-every: simulations per move of the rated checkpoints (default: the game's play setting)" },
    'rate-previous': { type: 'int', min: 0, default: 2, description: 'with --rate-every: how many of the most recent rated checkpoints each new one plays' },
    'rate-anchor': { type: 'string', description: 'with --rate-every: one more fixed opponent, e.g. uci:stockfish,depth=1 for chess', placeholder: 'AGENT' },
    transport: {
      type: 'string',
      description: 'also accept self-play games from workers on other machines through Redis (az worker --connect URL --run NAME); with --gpus/--devices the local workers play through it too',
      placeholder: 'redis[s]://[user:pass@]host:port/db',
    },
    'tls-ca': { type: 'string', description: 'with --transport rediss://: also trust the CA certificate(s) in this PEM file (default: $AZ_REDIS_CA)', placeholder: 'FILE' },
    'run-id': { type: 'string', description: "with --transport: the run's name, which workers join by (default: the run directory's name)", placeholder: 'NAME' },
    'run-key-file': {
      type: 'string',
      description: `with --transport: the run key that signs the weights and setup workers play and that workers sign their games with (default: $${RUN_KEY_ENV}, else <out>/${RUN_KEY_FILE}, made on the first start, readable by you only); give workers the same key`,
      placeholder: 'FILE',
    },
    records: {
      type: 'string',
      description:
        'learn from game records (JSON lines, as az eval --games-out writes; more files may follow it: --records a.jsonl b.jsonl) before and during self-play; read as a stream into a buffer of --replay positions (the newest kept); records of another game or config and bad lines are skipped and counted with file:line',
      placeholder: 'FILE...',
    },
    'records-steps': { type: 'int', min: 0, description: 'with --records: training steps on the records alone before the first self-play, in a run at iteration 0 (default: --train-steps)' },
    'records-share': { type: 'number', min: 0, max: 1, description: "with --records: share of each minibatch drawn from the records in the run's first iteration (default 0: pretraining only)" },
    'records-share-final': { type: 'number', min: 0, max: 1, description: "with --records: the share in the run's last iteration, linear from --records-share (default: --records-share); needs --iterations" },
    'records-label-smoothing': { type: 'number', min: 0, max: 0.99, description: "with --records: policy target mass spread evenly over the legal moves, the rest on the move played (default 0: one-hot)" },
    quiet: { type: 'boolean', short: 'q', description: 'no progress bars, only the iteration lines and the summary' },
    dashboard: { type: 'boolean', description: 'serve the live training dashboard (az serve --run) while training, and print its URL' },
    'dashboard-port': { type: 'int', min: 0, max: 65535, default: 8080, description: 'port for --dashboard (0: any free port)' },
  },
  examples: [
    'az train --game tictactoe',
    'az train --game chess --iterations 20 --sims 100 --out runs/chess',
    'az train --game tictactoe --resume runs/tictactoe --iterations 20',
    'az train --game chess --devices cpu:1 --time-limit 60m --out runs/chess-hour',
    'az train --game chess --gpus 0,1,2,3 --games-per-iter 800 --out runs/chess',
    'az train --game tictactoe --devices cpu:2',
    'az train --game tictactoe --rate-every 1 --out runs/ttt',
    'az train --game connect4 --records games.jsonl --records-steps 400 --iterations 0 --out runs/c4-pre',
    'az train --game chess --gpus 0 --transport redis://learner.lan:6379/0 --run-id chess-1',
  ],
} as const;

/** The game a `--resume` path's run was trained for (its options.json), or undefined when that cannot be read. */
function resumedGame(path: string): string | undefined {
  try {
    return recordedGame(resolveResume(path).runDir);
  } catch {
    return undefined; // not a run's path: the caller asks for --game
  }
}

export async function trainCommand(argv: readonly string[]): Promise<number> {
  const { flags, positionals } = parseFlags(trainSpec, argv);
  if (positionals.length && flags.records === undefined) throw new UsageError(`az train: unexpected argument '${positionals[0]}'`);
  if (flags.help) {
    const plugin = flags.game ? resolveGame(flags.game) : undefined;
    console.log(`${helpText(trainSpec)}\n\n${trainDefaultsText(plugin)}`);
    return 0;
  }
  // A resume names its run, which records its game: --game may be left out there.
  const gameId = flags.game ?? (flags.resume ? resumedGame(flags.resume) : undefined);
  if (!gameId && flags.resume) throw new UsageError(`az train: cannot tell which game the run at --resume ${flags.resume} is (no readable options.json in its run directory); give --game`);
  if (!gameId) throw new UsageError('az train: --game is required (see az games)');
  const plugin = resolveGame(gameId);
  const input = trainInputFrom(flags, plugin.traits.id);
  if (flags.force && flags.resume) throw new UsageError('az train: --force starts a new run and --resume continues one; give one of them');
  // A new run's directory is created with its parents: one under a file is refused before anything starts.
  if (!flags.resume) checkOutputDirectory('train', flags.out ? '--out' : 'the run directory', flags.out ?? `runs/${plugin.traits.id}`);
  const records = recordsInput(flags, positionals, input);
  // Checked before anything starts: a bad device list exits 2 naming the flag.
  // Records are learned from in the single-process loop: a game's default of self-play processes beside the trainer gives way.
  const multi = multiProcessOptions(records ? { ...flags, 'single-process': true } : flags, plugin, input.backend);

  // The run directory the trainer will use (its own default), so the dashboard can follow it from the start.
  const runDir = resolve(input.out ?? input.resume ?? `runs/${plugin.traits.id}`);
  let dashboard: RunningServer | undefined;
  if (flags.dashboard) {
    mkdirSync(runDir, { recursive: true });
    dashboard = await startServer({ run: runDir, port: flags['dashboard-port'] ?? 8080 }).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'EADDRINUSE') throw new UsageError(`az train: --dashboard-port ${flags['dashboard-port']} is in use; pick another (0: any free port)`);
      throw err;
    });
    console.error(`az train: dashboard at ${dashboard.url}/dashboard`);
  }

  const controller = new AbortController();
  const onSignal = (): void => {
    if (controller.signal.aborted) process.exit(130); // second Ctrl-C: leave at once
    process.stderr.write('\nstopping: finishing the current step and writing a checkpoint (Ctrl-C again to quit at once)\n');
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  const rateCompanions = (['rate-sims', 'rate-anchor'] as const).filter((f) => flags[f] !== undefined);
  if (flags['rate-every'] === undefined && rateCompanions.length) throw new UsageError(`az train: --${rateCompanions[0]} only applies with --rate-every`);
  let rater: TrainingRater | null = null;
  if (flags['rate-every'] !== undefined) {
    const seats = plugin.create(resolveGameConfig(plugin, {})).numPlayers;
    if (seats !== 2) throw new UsageError(`az train: --rate-every rates two-player games; ${plugin.traits.id} has ${seats} seats`);
    rater = new TrainingRater(plugin, flags.resume ?? flags.out ?? `runs/${plugin.traits.id}`, {
      every: flags['rate-every'],
      games: flags['rate-games'] ?? 20,
      simulations: flags['rate-sims'] ?? defaultPlaySimulations(plugin),
      previous: flags['rate-previous'] ?? 2,
      seed: flags.seed ?? 0,
      backend: flags.backend ?? 'auto',
      threads: flags.threads,
      anchors: flags['rate-anchor'] ? [flags['rate-anchor']] : [],
    });
  }

  let bar: ProgressBar | null = null;
  let readingRecords = false;
  const units: Record<TrainPhase, string> = { records: 'positions', pretrain: 'steps', 'self-play': 'games', train: 'steps', eval: 'games', assess: 'positions' };
  const quiet = flags.quiet === true;
  const deps: Parameters<typeof runTraining>[1] = {
    signal: controller.signal,
    // Recorded in the run's lock: who holds the run, for a second az train on it.
    command: ['az', 'train', ...argv],
    events: {
      log: (m) => {
        // Reading records ends with its summary line: the bar ends there, its rate that of the reading.
        if (readingRecords) {
          bar?.finish();
          bar = null;
        }
        console.error(m);
      },
      phase: (phase, total, iteration) => {
        readingRecords = phase === 'records';
        bar?.finish();
        bar = null;
        if (phase === 'assess') console.error(`assessing the final model with the game's own reference...`);
        // Records are read and pretrained on before iteration 1: their bars carry no iteration.
        else if (!quiet) bar = new ProgressBar(phase === 'records' || phase === 'pretrain' ? phase.padEnd(14) : `iter ${iteration} ${phase.padEnd(9)}`, total, units[phase]);
      },
      progress: (done) => bar?.update(done),
      ...(rater ? { rate: (iteration: number, dir: string) => (rater as TrainingRater).rate(iteration, dir) } : {}),
      iteration: (m) => {
        bar?.finish();
        bar = null;
        // With a time limit, how much of it is spent, so a long run's end can be foreseen.
        const budget = input.timeLimitSeconds ? ` (${formatDuration(Math.round(m.sessionSeconds))} of ${formatDuration(input.timeLimitSeconds)})` : '';
        console.log(iterationLine(m) + budget);
      },
    },
  };
  // Without --gpus/--devices, today's single-process loop: nothing is forked.
  const running: Promise<TrainSummary> = multi ? runMultiProcessTraining(input, multi, deps) : runTraining(input, { ...deps, ...(records ? { records } : {}) });
  const summary = await running
    .catch((err: unknown) => {
      // Where the run directory is the problem, the message says what to do instead: a usage error.
      if (err instanceof RunDirectoryError) throw new UsageError(`az train: ${err.message}`);
      throw err;
    })
    .finally(async () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      await dashboard?.close();
      await rater?.close();
    });
  (bar as ProgressBar | null)?.finish();
  const parts = [
    `az train: ${summary.game}, ${summary.iterations} iterations${summary.timeLimitReached !== undefined ? ` (time limit ${formatDuration(summary.timeLimitReached)} reached)` : ''}, ${summary.gamesPlayed} self-play games in ${formatSeconds(summary.seconds)} on ${summary.backend}`,
  ];
  if ('workers' in summary) {
    const w = (summary as Awaited<ReturnType<typeof runMultiProcessTraining>>).workers;
    const devices = Object.keys(w.devices).length;
    parts.push(`${w.gamesAccepted} games from ${devices} device${devices > 1 ? 's' : ''}, ${w.staleGamesDropped} stale dropped, ${w.surplusGamesDropped} surplus dropped, ${w.restarts} worker restarts`);
    if (w.invalidRecords || w.duplicateGames) parts.push(`${w.invalidRecords} invalid records and ${w.duplicateGames} duplicate games dropped`);
    if (w.forgedHeartbeats) parts.push(`${w.forgedHeartbeats} forged heartbeats refused`);
  }
  if (summary.assessment) parts.push(summary.assessment.summary);
  const last = summary.lastMetrics;
  if (last) for (const [name, r] of Object.entries(last.eval)) parts.push(`vs ${name} ${r.wins}W/${r.draws}D/${r.losses}L`);
  parts.push(`model: ${summary.runDir}${summary.interrupted ? ` (interrupted; continue with --resume ${summary.runDir})` : ''}`);
  console.log(parts.join('; '));
  // Interrupted (Ctrl-C, SIGTERM): the checkpoint is written; exit as an interrupted program does.
  return summary.interrupted ? 130 : 0;
}

function iterationLine(m: IterationMetrics): string {
  const evals = Object.entries(m.eval)
    .map(([name, r]) => `vs ${name} ${r.wins}/${r.draws}/${r.losses}`)
    .join(' ');
  // Multi-process runs: games per device, then faults only when there were any.
  const w = m.workers;
  const workers = w
    ? `${Object.entries(w.devices)
        .map(([label, d]) => `${label} ${d.games}`)
        .join(' ')}${w.restarts ? `, ${w.restarts} restarted` : ''}${w.staleGamesDropped ? `, ${w.staleGamesDropped} stale dropped` : ''}${w.surplusGamesDropped ? `, ${w.surplusGamesDropped} surplus dropped` : ''}; weights v${m.weightsVersion}; `
    : '';
  // --eval-cache: the share of leaf evaluations the NN cache answered (in-process or summed over the workers).
  const cache = m.selfPlay.cacheHitRate !== undefined ? `, cache hits ${(m.selfPlay.cacheHitRate * 100).toFixed(1)}%` : '';
  return (
    `iter ${m.iteration}: ${m.selfPlay.games} games ${m.selfPlay.gamesPerSecond.toFixed(1)}/s, ${Math.round(m.selfPlay.evalsPerSecond)} evals/s, batch ${m.selfPlay.averageBatch.toFixed(0)}${cache}; ` +
    workers +
    `loss policy ${m.train.policyLoss.toFixed(3)} value ${m.train.valueLoss.toFixed(3)}; ${evals ? `${evals} (W/D/L); ` : ''}${eloText(m)}${formatSeconds(m.seconds.total)}`
  );
}

function eloText(m: IterationMetrics): string {
  const r = m.rating as { elo?: number | null; low?: number | null; high?: number | null } | undefined;
  if (!r || r.elo === null || r.elo === undefined) return '';
  return `Elo ${r.elo} [${r.low}, ${r.high}] (random = 0); `;
}


/** --records and its companions, checked before anything starts; undefined without --records. */
function recordsInput(flags: TrainFlags, moreFiles: readonly string[], input: TrainOptionsInput): RecordsInput | undefined {
  const companions = (['records-steps', 'records-share', 'records-share-final', 'records-label-smoothing'] as const).filter((f) => flags[f] !== undefined);
  if (flags.records === undefined) {
    if (companions.length) throw new UsageError(`az train: --${companions[0]} only applies with --records`);
    if (flags.iterations === 0) throw new UsageError('az train: --iterations 0 trains nothing without --records (it pretrains on records only)');
    return undefined;
  }
  if (flags.gpus !== undefined || flags.devices !== undefined || flags.transport !== undefined) {
    throw new UsageError('az train: --records trains in one process for now: leave out --gpus, --devices and --transport');
  }
  const files = [flags.records, ...moreFiles];
  for (const file of files) if (!existsSync(file)) throw new UsageError(`az train: --records ${file}: no such file`);
  const share = flags['records-share'] ?? 0;
  const finalShare = flags['records-share-final'] ?? share;
  if (finalShare !== share && input.iterations === undefined) {
    throw new UsageError('az train: --records-share-final needs --iterations: the share falls over the iteration count');
  }
  return {
    source: recordFiles(files),
    labelSmoothing: flags['records-label-smoothing'] ?? 0,
    ...(flags['records-steps'] !== undefined ? { pretrainSteps: flags['records-steps'] } : {}),
    share,
    finalShare,
  };
}

/**
 * The multi-process settings from --gpus / --devices and their companion flags, or null for the
 * single-process loop. Every problem is a UsageError naming the flag, raised before anything starts.
 */
function multiProcessOptions(flags: TrainFlags, plugin: GamePlugin, backend: TrainOptionsInput['backend']): MultiProcessOptions | null {
  const gameId = plugin.traits.id;
  // Workers are separate programs: they import the game from the module plugin discovery loaded it from.
  const source = lastDiscovery().loaded.find((l) => l.gameId === gameId);
  const companions = (['workers-per-device', 'max-game-age', 'heartbeat-timeout'] as const).filter((f) => flags[f] !== undefined);
  if (flags['run-id'] !== undefined && flags.transport === undefined) throw new UsageError('az train: --run-id only applies with --transport');
  if (flags['tls-ca'] !== undefined && flags.transport === undefined) throw new UsageError('az train: --tls-ca only applies with --transport rediss://...');
  if (flags['run-key-file'] !== undefined && flags.transport === undefined) throw new UsageError('az train: --run-key-file only applies with --transport');
  // No device flags: the game's own default, self-play processes beside the trainer, when there is a core to spare.
  let besideDefault = 0;
  if (flags.gpus === undefined && flags.devices === undefined && flags.transport === undefined) {
    if (companions.length) throw new UsageError(`az train: --${companions[0]} only applies with --gpus or --devices`);
    const cores = availableParallelism();
    besideDefault = flags['single-process'] ? 0 : defaultSelfPlayProcesses(plugin.training?.selfPlayProcesses ?? 0, cores);
    if (besideDefault === 0 || !source) return null;
    console.error(`self-play: ${besideDefault} worker process${besideDefault > 1 ? 'es' : ''} beside the trainer (the game's default on ${cores} cores; --single-process to train and self-play in turns in one)`);
  } else if (flags['single-process']) {
    throw new UsageError('az train: --single-process cannot be combined with --gpus, --devices or --transport');
  }
  if (flags.gpus !== undefined && flags.devices !== undefined) throw new UsageError('az train: give --gpus or --devices, not both');
  try {
    const devices =
      flags.gpus !== undefined ? parseGpuList(flags.gpus) : flags.devices !== undefined ? parseDeviceSpec(flags.devices) : besideDefault > 0 ? parseDeviceSpec(`cpu:${besideDefault}`) : [];
    if (!source) throw new Error(`game '${gameId}' was not loaded from a plugin package, so self-play worker processes cannot import it; train it without --gpus/--devices`);
    const multi: MultiProcessOptions = {
      devices,
      workersPerDevice: flags['workers-per-device'],
      maxGameAge: flags['max-game-age'],
      heartbeatTimeoutMs: flags['heartbeat-timeout'] === undefined ? undefined : flags['heartbeat-timeout'] * 1000,
      plugin: { moduleUrl: source.moduleUrl, exportName: source.exportName },
      redis: flags.transport === undefined ? undefined : redisRunOptions(flags, gameId, source),
    };
    checkMultiProcessOptions(multi, backend);
    const warning = workerCountWarning(devices.length * (multi.workersPerDevice ?? 1));
    if (warning) console.error(`az train: warning: ${warning}`);
    return multi;
  } catch (err) {
    if (err instanceof DeviceSpecError) throw new UsageError(`az train: ${err.message}`);
    if (err instanceof RedisUrlError) throw new UsageError(`az train: --transport/--run-id/--tls-ca: ${err.message}`);
    if (err instanceof RunKeyError) throw new UsageError(`az train: ${err.message}`);
    throw err;
  }
}

/** --transport and --run-id: where the run's Redis is, what workers call the run, which package they need. */
function redisRunOptions(flags: TrainFlags, gameId: string, source: { packageName: string; version: string; exportName: string }): NonNullable<MultiProcessOptions['redis']> {
  const endpoint = withTlsCa(parseRedisUrl(flags.transport ?? ''), flags['tls-ca']);
  // Default: the run directory's name (runs/chess -> chess), so a resumed run keeps its stream.
  const dir = flags.resume ?? flags.out;
  const named = dir ? basename(resolve(dir)) : gameId;
  const run = checkRunName(flags['run-id'] ?? named);
  // No key given: the learner makes one in the run directory once it is open (and says how to hand it over).
  const runKey = readRunKey(flags['run-key-file']);
  return { endpoint, run, runKey, plugin: { packageName: source.packageName, version: source.version, exportName: source.exportName } };
}

/** `--time-limit` in seconds, or a usage error naming the accepted forms. */
