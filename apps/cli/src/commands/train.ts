import { BACKEND_NAMES, parseConfigAssignments, resolveGame, type NetworkSpec } from '@az/core';
import { runTraining, type IterationMetrics, type TrainOptionsInput, type TrainPhase } from '@az/trainer-multigpu';
import { helpText, parseFlags, UsageError } from '../args.js';
import { ProgressBar, formatSeconds } from '../progress.js';

export const trainSpec = {
  name: 'train',
  summary: 'Train an AlphaZero agent by self-play.',
  usage: 'az train --game ID [options]',
  flags: {
    game: { type: 'string', description: 'game to train (see az games)', placeholder: 'ID' },
    config: { type: 'string', description: 'game settings, key=value[,key=value...]', placeholder: 'K=V,...' },
    iterations: { type: 'int', min: 1, description: 'training iterations (self-play + training + eval each); with --resume, the total to reach' },
    'games-per-iter': { type: 'int', min: 1, description: 'self-play games per iteration' },
    'parallel-games': { type: 'int', min: 1, description: 'games played at once, batched into each network call' },
    sims: { type: 'int', min: 1, description: 'MCTS simulations per move in self-play' },
    determinizations: { type: 'int', min: 1, description: "hidden-information games: worlds sampled per move, each searched with --sims simulations (default: the game's setting, else 3)" },
    leaves: { type: 'int', min: 1, description: 'leaves per tree per network call (virtual loss)' },
    'temperature-moves': { type: 'int', min: 0, description: 'moves per game sampled from the visit counts before playing the most visited' },
    'dirichlet-alpha': { type: 'number', min: 0, description: 'root Dirichlet noise concentration' },
    'dirichlet-epsilon': { type: 'number', min: 0, max: 1, description: 'root Dirichlet noise weight (0 = no noise)' },
    cpuct: { type: 'number', min: 0, description: 'PUCT exploration constant' },
    'train-steps': { type: 'int', min: 1, description: 'training minibatches per iteration' },
    'batch-size': { type: 'int', min: 1, description: 'training minibatch size' },
    lr: { type: 'number', min: 0, description: 'Adam learning rate' },
    'weight-decay': { type: 'number', min: 0, description: 'L2 weight decay' },
    replay: { type: 'int', min: 1, description: 'replay buffer capacity (positions)' },
    'eval-games': { type: 'int', min: 0, description: 'arena games per opponent after each iteration (0 = skip)' },
    'eval-sims': { type: 'int', min: 1, description: 'simulations per move in evaluation (default: --sims)' },
    network: { type: 'string', description: "architecture: 'mlp:128,128' or 'resnet:FILTERSxBLOCKS' (e.g. resnet:64x4)", placeholder: 'SPEC' },
    backend: { type: 'enum', values: BACKEND_NAMES, default: 'auto', description: 'network backend (auto picks the fastest that loads)' },
    out: { type: 'string', description: 'run directory: checkpoint, replay buffer, metrics.jsonl (default runs/<game>)', placeholder: 'DIR' },
    resume: { type: 'string', description: 'continue a run from its directory (weights, optimizer, replay buffer, iteration)', placeholder: 'DIR' },
    seed: { type: 'int', min: 0, description: 'random seed (runs are reproducible from it)' },
    quiet: { type: 'boolean', short: 'q', description: 'no progress bars, only the iteration lines and the summary' },
  },
  examples: ['az train --game tictactoe', 'az train --game chess --iterations 20 --sims 100 --out runs/chess', 'az train --game tictactoe --resume runs/tictactoe --iterations 20'],
} as const;

/** `mlp:64,64` or `resnet:64x4`. */
export function parseNetworkSpec(text: string): NetworkSpec {
  const [kind, rest = ''] = text.split(':');
  if (kind === 'mlp') {
    const hidden = rest.split(',').filter(Boolean).map(Number);
    if (hidden.length === 0 || hidden.some((h) => !Number.isInteger(h) || h < 1)) throw new UsageError(`az train: --network mlp needs layer widths, e.g. mlp:128,128 (got '${text}')`);
    return { kind: 'mlp', hidden };
  }
  if (kind === 'resnet') {
    const m = /^(\d+)x(\d+)$/.exec(rest);
    if (!m || Number(m[1]) < 1 || Number(m[2]) < 0) throw new UsageError(`az train: --network resnet needs FILTERSxBLOCKS, e.g. resnet:64x4 (got '${text}')`);
    return { kind: 'resnet', filters: Number(m[1]), blocks: Number(m[2]) };
  }
  throw new UsageError(`az train: --network must start with mlp: or resnet: (got '${text}')`);
}

export async function trainCommand(argv: readonly string[]): Promise<number> {
  const { flags } = parseFlags(trainSpec, argv);
  if (flags.help) {
    console.log(helpText(trainSpec));
    return 0;
  }
  if (!flags.game) throw new UsageError('az train: --game is required (see az games)');
  const plugin = resolveGame(flags.game);
  const input: TrainOptionsInput = {
    game: plugin.traits.id,
    gameConfig: flags.config ? parseConfigAssignments(flags.config) : undefined,
    iterations: flags.iterations,
    gamesPerIteration: flags['games-per-iter'],
    parallelGames: flags['parallel-games'],
    simulations: flags.sims,
    determinizations: flags.determinizations,
    leavesPerTree: flags.leaves,
    temperatureMoves: flags['temperature-moves'],
    dirichletAlpha: flags['dirichlet-alpha'],
    dirichletEpsilon: flags['dirichlet-epsilon'],
    cPuct: flags.cpuct,
    trainingSteps: flags['train-steps'],
    batchSize: flags['batch-size'],
    learningRate: flags.lr,
    weightDecay: flags['weight-decay'],
    replayCapacity: flags.replay,
    evalGames: flags['eval-games'],
    evalSimulations: flags['eval-sims'],
    network: flags.network ? parseNetworkSpec(flags.network) : undefined,
    backend: flags.backend as TrainOptionsInput['backend'],
    out: flags.out,
    resume: flags.resume,
    seed: flags.seed,
  };
  for (const key of Object.keys(input) as (keyof TrainOptionsInput)[]) if (input[key] === undefined) delete input[key];

  const controller = new AbortController();
  const onSignal = (): void => {
    if (controller.signal.aborted) process.exit(130); // second Ctrl-C: leave at once
    process.stderr.write('\nstopping: finishing the current step and writing a checkpoint (Ctrl-C again to quit at once)\n');
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  let bar: ProgressBar | null = null;
  const units: Record<TrainPhase, string> = { 'self-play': 'games', train: 'steps', eval: 'games', assess: 'positions' };
  const quiet = flags.quiet === true;
  const summary = await runTraining(input, {
    signal: controller.signal,
    events: {
      log: (m) => console.error(m),
      phase: (phase, total, iteration) => {
        bar?.finish();
        bar = null;
        if (phase === 'assess') console.error(`assessing the final model with the game's own reference...`);
        else if (!quiet) bar = new ProgressBar(`iter ${iteration} ${phase.padEnd(9)}`, total, units[phase]);
      },
      progress: (done) => bar?.update(done),
      iteration: (m) => {
        bar?.finish();
        bar = null;
        console.log(iterationLine(m));
      },
    },
  }).finally(() => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  });
  (bar as ProgressBar | null)?.finish();
  const parts = [
    `az train: ${summary.game}, ${summary.iterations} iterations, ${summary.gamesPlayed} self-play games in ${formatSeconds(summary.seconds)} on ${summary.backend}`,
  ];
  if (summary.assessment) parts.push(summary.assessment.summary);
  const last = summary.lastMetrics;
  if (last) for (const [name, r] of Object.entries(last.eval)) parts.push(`vs ${name} ${r.wins}W/${r.draws}D/${r.losses}L`);
  parts.push(`model: ${summary.checkpointDir}${summary.interrupted ? ' (interrupted; resume with --resume)' : ''}`);
  console.log(parts.join('; '));
  return 0;
}

function iterationLine(m: IterationMetrics): string {
  const evals = Object.entries(m.eval)
    .map(([name, r]) => `vs ${name} ${r.wins}/${r.draws}/${r.losses}`)
    .join(' ');
  return (
    `iter ${m.iteration}: ${m.selfPlay.games} games ${m.selfPlay.gamesPerSecond.toFixed(1)}/s, ${Math.round(m.selfPlay.evalsPerSecond)} evals/s, batch ${m.selfPlay.averageBatch.toFixed(0)}; ` +
    `loss policy ${m.train.policyLoss.toFixed(3)} value ${m.train.valueLoss.toFixed(3)}; ${evals ? `${evals} (W/D/L); ` : ''}${formatSeconds(m.seconds.total)}`
  );
}
