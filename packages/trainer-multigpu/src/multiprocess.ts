/**
 * The multi-process AlphaZero loop: self-play in worker processes (one or more per device), training,
 * evaluation and checkpoints in this process.
 *
 * Workers play without pause and send each game the moment it ends; the trainer adds it to the replay
 * buffer on arrival (unless it is too old). One iteration:
 *   1. wait until `gamesPerIteration` games have been accepted since the previous training phase began
 *      (games that arrived while the trainer was training or evaluating count, up to `gamesPerIteration`;
 *      later ones, and any after the last iteration's games, are dropped as surplus);
 *   2. training phase: `trainingSteps` minibatches; then the weights version goes up by one and the new
 *      weights are published to every worker, which switches between moves;
 *   3. evaluation, checkpoint (weights, optimizer, version, iteration, replay buffer), metrics line.
 * So one weights version = one iteration's training phase, as in the single-process loop: `weightsVersion`
 * equals the iteration count, and a checkpoint from either loop resumes in the other.
 */
import { BackendUnavailableError, initBackend, serializeWeights, type BackendName } from '@az/nn';
import { checkDevices, DeviceSpecError, type Device } from './devices.js';
import { GameIntake, intakeDelta, type IntakeSnapshot, type MultiProcessSummary } from './game-intake.js';
import { LocalIpcTransport } from './ipc-transport.js';
import { RedisTransport, readRedisCheckpointState, type RedisRunOptions } from './redis-transport.js';
import { finishIteration } from './iteration.js';
import { cacheHitRateField, type IterationMetrics, type TrainSummary, type WorkerIterationMetrics } from './metrics.js';
import { workerSettings, type TrainOptionsInput } from './options.js';
import { RUN_KEY_ENV, runDirectoryKey, type RunKey } from './run-key.js';
import { openRun, type RunDeps } from './run-open.js';
import { anotherIteration, closeRun, disposeRun, endRun, saveRun, type RunSession } from './run-session.js';
import type { PluginModuleRef, PublishedWeights, SelfPlayTransport, WorkerSetup, WorkerSlot } from './transport.js';

export type { DeviceTotals, MultiProcessSummary } from './game-intake.js';

export interface MultiProcessOptions {
  /** Devices hosting self-play workers (from parseGpuList / parseDeviceSpec). Training runs on the first. */
  readonly devices: readonly Device[];
  /** Worker processes per device (default 1); more than one keeps a GPU busy when game logic is CPU-bound. */
  readonly workersPerDevice?: number;
  /** Games whose weights version is more than this many versions behind the trainer's are dropped on arrival (default 2). */
  readonly maxGameAge?: number;
  /** A worker silent for this long is killed and restarted (default 60 s). */
  readonly heartbeatTimeoutMs?: number;
  /** Allowance for a worker to start (load tfjs, the game, the network) before its first message. */
  readonly startupTimeoutMs?: number;
  /** Where workers import the game plugin from (the CLI knows it from plugin discovery). */
  readonly plugin: PluginModuleRef;
  /** Node flags for the worker processes (default: this process's, minus --inspect). */
  readonly workerExecArgv?: readonly string[];
  /**
   * Serve the run over Redis (RedisTransport): workers on other machines join with `az worker`; the
   * devices above, if any, play through the same Redis stream. Without it, the local IPC transport.
   */
  readonly redis?: RedisRunOptions;
  /** Replaces the local IPC transport (another transport, or a test double). */
  readonly transport?: SelfPlayTransport;
}

export const MULTIPROCESS_DEFAULTS = {
  workersPerDevice: 1,
  maxGameAge: 2,
  heartbeatTimeoutMs: 60_000,
} as const;

export interface MultiProcessTrainSummary extends TrainSummary {
  readonly workers: MultiProcessSummary;
}

/** Rejects multi-process settings that cannot work, naming the flag; nothing has started yet. */
export function checkMultiProcessOptions(multi: MultiProcessOptions, backend: BackendName | undefined): void {
  // Over Redis the learner may have no self-play devices of its own: remote workers play.
  if (!(multi.redis && multi.devices.length === 0)) checkDevices(multi.devices, multi.workersPerDevice ?? MULTIPROCESS_DEFAULTS.workersPerDevice);
  const maxAge = multi.maxGameAge ?? MULTIPROCESS_DEFAULTS.maxGameAge;
  if (!Number.isInteger(maxAge) || maxAge < 0) throw new DeviceSpecError('--max-game-age', `--max-game-age must be a non-negative integer (got ${maxAge})`);
  const hb = multi.heartbeatTimeoutMs ?? MULTIPROCESS_DEFAULTS.heartbeatTimeoutMs;
  if (!(hb > 0) || !Number.isFinite(hb)) throw new DeviceSpecError('--heartbeat-timeout', `--heartbeat-timeout must be a positive number of seconds (got ${hb / 1000})`);
  if (multi.devices[0]?.kind === 'gpu' && backend !== undefined && backend !== 'auto' && backend !== 'gpu') {
    throw new DeviceSpecError('--backend', `--gpus runs every process on the gpu backend; --backend ${backend} contradicts it (leave --backend out or use --backend gpu)`);
  }
}

/**
 * Trains with self-play in worker processes. Throws before starting anything when the devices are
 * unusable (bad list; GPUs without @tensorflow/tfjs-node-gpu). Ctrl-C (`signal`) stops the workers,
 * keeps every game they finished, writes a checkpoint with the replay buffer and returns `interrupted`.
 * The run directory is locked as in `runTraining`, until the workers' games are acknowledged and
 * summary.json is written.
 */
export async function runMultiProcessTraining(
  input: TrainOptionsInput,
  multi: MultiProcessOptions,
  deps: RunDeps = {},
): Promise<MultiProcessTrainSummary> {
  checkMultiProcessOptions(multi, input.backend);
  const devices = multi.devices;
  const gpu = devices[0]?.kind === 'gpu';
  let trainerInput = input;
  if (gpu) {
    // Training runs on the first listed GPU. CUDA reads CUDA_VISIBLE_DEVICES when libtensorflow loads, so it
    // is set before initBackend imports tfjs-node-gpu; a missing package fails here, before any worker starts.
    process.env.CUDA_VISIBLE_DEVICES = String(devices[0].index);
    try {
      await initBackend('gpu');
    } catch (err) {
      if (!(err instanceof BackendUnavailableError)) throw err;
      // The backend's own advice ends with "use --backend wasm", which --gpus rules out: point at the CPU path instead.
      const advice = err.message.replace(/,? or use --backend wasm\.?$/, '');
      throw new BackendUnavailableError('gpu', `--gpus: ${advice}; without a usable GPU, --devices cpu:N runs the same multi-process training on CPU processes`, err.packageName);
    }
    trainerInput = { ...input, backend: 'gpu' };
  }
  const run = await openRun(trainerInput, deps);
  let loop: MultiProcessLoop;
  try {
    loop = new MultiProcessLoop(run, multi, input.backend, deps.signal);
  } catch (err) {
    disposeRun(run);
    throw err;
  }
  return loop.run();
}

/**
 * The run key of a Redis run given none (no --run-key-file, no AZ_RUN_KEY): the run directory's, made on its
 * first start. Workers cannot play without it, so the learner says where it is and how to hand it over.
 */
function learnerRunKey(runDir: string, log: (line: string) => void): RunKey {
  const { key, created } = runDirectoryKey(runDir);
  log(
    created
      ? `redis: made this run's key in ${key.file} (readable by you only); workers need it: copy it to each worker machine and start them with az worker --run-key-file FILE (or ${RUN_KEY_ENV} set to its contents)`
      : `redis: this run's key is in ${key.file}`,
  );
  return key;
}

/**
 * One multi-process run: the transport to the workers, the game intake, and the iterations. Made by
 * `runMultiProcessTraining` once the run is open.
 */
class MultiProcessLoop {
  private readonly slots: WorkerSlot[] = [];
  private readonly transport: SelfPlayTransport;
  private readonly intake: GameIntake;
  private readonly maxGameAge: number;
  private readonly workersPerDevice: number;
  private transportStarted = false;
  // Games accepted while the workers are still starting count for the first iteration.
  private window: IntakeSnapshot;
  private windowStart = performance.now();

  constructor(
    private readonly session: RunSession,
    private readonly multi: MultiProcessOptions,
    requestedBackend: BackendName | undefined,
    private readonly signal: AbortSignal | undefined,
  ) {
    const { options, state, game } = session;
    const devices = multi.devices;
    const gpu = devices[0]?.kind === 'gpu';
    this.workersPerDevice = multi.workersPerDevice ?? MULTIPROCESS_DEFAULTS.workersPerDevice;
    this.maxGameAge = multi.maxGameAge ?? MULTIPROCESS_DEFAULTS.maxGameAge;
    const heartbeatTimeoutMs = multi.heartbeatTimeoutMs ?? MULTIPROCESS_DEFAULTS.heartbeatTimeoutMs;
    // CPU workers run tfjs's wasm backend unless told otherwise: one thread per process, parallelism from processes.
    const workerBackend: BackendName = gpu ? 'gpu' : requestedBackend === undefined || requestedBackend === 'auto' ? 'wasm' : requestedBackend;
    for (const device of devices) for (let w = 0; w < this.workersPerDevice; w++) this.slots.push({ id: this.slots.length, device });
    const log = session.log;
    const inFlight = this.slots.length * options.parallelGames;
    if (multi.redis) log(`self-play over Redis: remote workers${this.slots.length ? ` and ${this.slots.length} local` : ' only'}; training on ${gpu ? devices[0].label : session.backend.name}`);
    else log(
      `self-play: ${this.slots.length} worker process${this.slots.length > 1 ? 'es' : ''} (${devices.map((d) => d.label).join(', ')}${this.workersPerDevice > 1 ? `, ${this.workersPerDevice} per device` : ''}), ${options.parallelGames} games each; training on ${gpu ? devices[0].label : session.backend.name}`,
    );
    if (inFlight > options.gamesPerIteration * Math.max(1, this.maxGameAge)) {
      log(
        `warning: ${inFlight} games are in flight at once but an iteration takes ${options.gamesPerIteration}; most games will span more than ${this.maxGameAge} weights versions and be dropped as stale. Raise --games-per-iter or --max-game-age, or lower --parallel-games.`,
      );
    }
    this.transport =
      multi.transport ??
      (multi.redis
        ? new RedisTransport({
            ...multi.redis,
            runKey: multi.redis.runKey ?? learnerRunKey(session.paths.dir, log),
            heartbeatTimeoutMs,
            localDevices: devices,
            workersPerDevice: this.workersPerDevice,
            backendFor: () => workerBackend,
            seed: options.seed + state.iteration * 31,
            workerExecArgv: multi.workerExecArgv,
            resume: session.options.resume ? readRedisCheckpointState(session.options.resume, multi.redis.run) : undefined,
            log,
          })
        : undefined) ??
      new LocalIpcTransport({
        slots: this.slots,
        backendFor: () => workerBackend,
        heartbeatTimeoutMs,
        startupTimeoutMs: multi.startupTimeoutMs,
        // A resumed run's workers must not replay the first session's games.
        seed: options.seed + state.iteration * 31,
        execArgv: multi.workerExecArgv,
        log,
      });
    this.intake = new GameIntake({
      replay: session.replay,
      state,
      // Over Redis, devices are labelled by machine ('host/cpu:0') as their games arrive.
      devices: multi.redis ? [] : devices,
      labelsOnArrival: multi.redis !== undefined,
      // Over Redis every game sent must reach a checkpoint (its exactly-once guarantee): nothing is dropped as surplus.
      exactWindows: multi.redis === undefined,
      workersPerDevice: this.workersPerDevice,
      gamesPerIteration: options.gamesPerIteration,
      maxGameAge: this.maxGameAge,
      numPlayers: game.numPlayers,
      log,
      progress: (n) => session.events.progress?.(n),
      setPaused: (p) => this.transport.setPaused(p),
    });
    this.transport.onGame((g) => this.intake.accept(g));
    this.transport.onWorkerEvent((e) => {
      session.events.worker?.(e);
      this.intake.workerEvent(e);
    });
    this.window = this.intake.snapshot([]);
  }

  async run(): Promise<MultiProcessTrainSummary> {
    const { session: run, intake, transport, signal } = this;
    const { options, state } = run;
    const onAbort = (): void => intake.notify();
    signal?.addEventListener('abort', onAbort);
    let lastMetrics: IterationMetrics | undefined;
    let interrupted = false;
    try {
      if (state.iteration < options.iterations && !run.stopped()) await this.startWorkers();
      while (anotherIteration(run)) {
        const metrics = await this.iteration(state.iteration + 1);
        if (!metrics) break;
        lastMetrics = metrics;
      }
      if (run.stopped()) interrupted = true;
      // Stop the workers and take in every game they finished before the final checkpoint.
      if (this.transportStarted) {
        if (this.multi.redis) run.log('stopping: local self-play workers, then the remaining games in the stream...');
        else run.log(`stopping ${this.slots.length} self-play worker${this.slots.length > 1 ? 's' : ''}...`);
        await transport.stop();
      }
      signal?.removeEventListener('abort', onAbort);
      // Interrupted: closeRun writes the checkpoint. Finished over Redis: the last iteration's checkpoint
      // lacks the games that arrived since (every game sent must reach one), so write it again (iter-N-2).
      // Over local IPC no game is taken in after the last window closes, so there is nothing to add.
      if (!interrupted && this.transportStarted && this.multi.redis) {
        await saveRun(run, this.checkpointExtra());
        await transport.checkpointed?.();
      }
      const summary = await closeRun(run, interrupted, lastMetrics, () => this.checkpointExtra());
      if (interrupted) await transport.checkpointed?.();
      await transport.close?.();
      return endRun(run, { ...summary, workers: intake.summarize(state.weightsVersion) });
    } catch (err) {
      signal?.removeEventListener('abort', onAbort);
      if (transport instanceof LocalIpcTransport) transport.kill();
      else await transport.stop().catch(() => undefined);
      const used: SelfPlayTransport = transport;
      await used.close?.().catch(() => undefined);
      disposeRun(run);
      throw err;
    }
  }

  private async startWorkers(): Promise<void> {
    const { session: run, intake } = this;
    const initial = serializeWeights(run.networks.model);
    const setup: WorkerSetup = {
      plugin: this.multi.plugin,
      gameId: run.game.traits.id,
      gameConfig: run.gameConfig,
      encoderVersion: run.game.encoder.version,
      network: run.networks.config,
      weightSpecs: initial.specs,
      settings: workerSettings(run.options),
    };
    this.transportStarted = true;
    const started = this.transport.start(setup, { version: run.state.weightsVersion, data: new Uint8Array(initial.data) });
    started.catch(() => undefined); // a rejection after Ctrl-C is not an error
    await Promise.race([started, intake.waitUntil(() => run.stopped() || intake.fatal !== null)]);
    if (intake.fatal) throw intake.fatal;
  }

  /** Waits for the iteration's games, then finishes it; undefined when stopped first. */
  private async iteration(iteration: number): Promise<IterationMetrics | undefined> {
    const { session: run, intake, transport } = this;
    const { options, state } = run;
    const t0 = performance.now();
    intake.inSelfPlayPhase = true;
    transport.setPaused(false);
    run.events.phase?.('self-play', options.gamesPerIteration, iteration);
    if (intake.gamesThisWindow > 0) run.events.progress?.(Math.min(intake.gamesThisWindow, options.gamesPerIteration));
    await intake.waitUntil(() => intake.gamesThisWindow >= options.gamesPerIteration || run.stopped() || intake.fatal !== null);
    intake.inSelfPlayPhase = false;
    if (intake.fatal) throw intake.fatal;
    if (run.stopped()) return undefined;
    // The iteration's games are those accepted since the last window closed; later arrivals count for the
    // next iteration, or, after the last one, for none (the workers are paused and such games dropped).
    const closing = intake.snapshot(transport.workers());
    const windowSeconds = (performance.now() - this.windowStart) / 1000;
    const delta = intakeDelta(closing, this.window);
    this.window = closing;
    this.windowStart = performance.now();
    intake.closeWindow(iteration >= options.iterations);
    // While it trains the trainer cannot read games, so it cannot pause the workers once the next
    // iteration's games are in: each worker holds itself after its share of them instead.
    if (iteration < options.iterations) {
      const live = Math.max(1, transport.workers().filter((w) => w.state === 'running').length);
      transport.pauseAfter?.(Math.ceil(options.gamesPerIteration / live));
    }
    const t1 = performance.now();
    const metrics = await finishIteration(run, {
      iteration,
      startedAt: t0,
      selfPlayEndedAt: t1,
      selfPlay: {
        games: delta.accepted,
        positions: delta.positions,
        evaluations: delta.evaluations,
        gamesPerSecond: delta.accepted / Math.max(1e-9, windowSeconds),
        evalsPerSecond: delta.evaluations / Math.max(1e-9, windowSeconds),
        averageBatch: delta.evaluatorCalls ? delta.evaluations / delta.evaluatorCalls : 0,
        // The workers' cache counters over this window, summed over workers.
        ...cacheHitRateField(options.evalCacheSize > 0 ? { lookups: delta.cacheLookups, hits: delta.cacheHits } : undefined),
        outcomes: intake.outcomes.take(),
      },
      // Serve the workers' messages between steps, so games keep landing in the buffer and heartbeats are read.
      betweenSteps: () => new Promise((resolve) => setImmediate(resolve)),
      onNewWeights: () => transport.publishWeights(this.weightsMessage()),
      checkpointExtra: () => this.checkpointExtra(),
      workers: (): WorkerIterationMetrics => ({
        devices: delta.devices,
        live: transport.workers().filter((w) => w.state === 'running').length,
        restarts: delta.restarts,
        staleGamesDropped: delta.stale,
        surplusGamesDropped: delta.surplus,
        gamesReceived: delta.received,
        minAcceptedVersion: Math.max(0, state.weightsVersion - this.maxGameAge),
        meanGameAge: delta.accepted ? delta.ageSum / delta.accepted : 0,
        totalRestarts: intake.totalRestarts,
        totalStaleGamesDropped: intake.totalStale,
      }),
    });
    // The checkpoint holding this iteration's games is on disk: a transport that acknowledges games (Redis) may now.
    await transport.checkpointed?.();
    return metrics;
  }

  private weightsMessage(): PublishedWeights {
    const w = serializeWeights(this.session.networks.model);
    return { version: this.session.state.weightsVersion, data: new Uint8Array(w.data) };
  }

  /** A transport that acknowledges games (Redis) adds what the checkpoint holds, and holds further games until `checkpointed`. */
  private checkpointExtra(): Readonly<Record<string, unknown>> {
    return { multiProcess: { devices: this.multi.devices.map((d) => d.label), workersPerDevice: this.workersPerDevice, maxGameAge: this.maxGameAge }, ...this.transport.checkpointState?.() };
  }
}
