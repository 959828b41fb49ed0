/**
 * The multi-process AlphaZero loop: self-play in worker processes (one or more per device), training,
 * evaluation and checkpoints in this process.
 *
 * Workers play without pause and send each game the moment it ends; the trainer adds it to the replay
 * buffer on arrival (unless it is too old). One iteration:
 *   1. wait until `gamesPerIteration` games have been accepted since the previous training phase began
 *      (games that arrived while the trainer was training or evaluating count);
 *   2. training phase: `trainingSteps` minibatches; then the weights version goes up by one and the new
 *      weights are published to every worker, which switches between moves;
 *   3. evaluation, checkpoint (weights, optimizer, version, iteration, replay buffer), metrics line.
 * So one weights version = one iteration's training phase, as in the single-process loop: `weightsVersion`
 * equals the iteration count, and a checkpoint from either loop resumes in the other.
 */
import { type GameRegistry } from '@az/core';
import { BackendUnavailableError, initBackend, serializeWeights, type BackendName } from '@az/nn';
import { checkDevices, DeviceSpecError, type Device } from './devices.js';
import { decodeGameRecord } from './game-record.js';
import { OutcomeTally } from './outcome-tally.js';
import { LocalIpcTransport } from './ipc-transport.js';
import type { TrainOptionsInput } from './options.js';
import {
  closeRun,
  disposeRun,
  evalPhase,
  openRun,
  recordIteration,
  trainPhase,
  type DeviceIterationMetrics,
  type IterationMetrics,
  type TrainerEvents,
  type TrainSummary,
  type WorkerIterationMetrics,
} from './train-loop.js';
import type { PluginModuleRef, PublishedWeights, SelfPlayTransport, WorkerEvent, WorkerSetup, WorkerSlot } from './transport.js';

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
  /** Replaces the local IPC transport (another transport, or a test double). */
  readonly transport?: SelfPlayTransport;
}

export const MULTIPROCESS_DEFAULTS = {
  workersPerDevice: 1,
  maxGameAge: 2,
  heartbeatTimeoutMs: 60_000,
} as const;

/** Per-device totals of a multi-process run (this session, not earlier sessions of a resumed run). */
export interface DeviceTotals {
  readonly workers: number;
  readonly gamesReceived: number;
  readonly gamesAccepted: number;
  readonly positionsAccepted: number;
  readonly staleGamesDropped: number;
  readonly restarts: number;
  /** The newest weights version among games accepted from this device (-1: none): shows workers took up new weights. */
  readonly newestGameVersion: number;
}

export interface MultiProcessSummary {
  readonly devices: Readonly<Record<string, DeviceTotals>>;
  /** Every game that arrived = accepted + stale + corrupt. */
  readonly gamesReceived: number;
  readonly gamesAccepted: number;
  /** Positions added to the replay buffer from accepted games. */
  readonly positionsAccepted: number;
  readonly staleGamesDropped: number;
  /** Games whose bytes did not decode (never expected; counted so none vanish silently). */
  readonly corruptGames: number;
  readonly restarts: number;
  readonly crashes: number;
  readonly hangs: number;
  /** Sequence gaps seen: games a worker sent that never arrived (never expected over local IPC). */
  readonly sequenceGaps: number;
  readonly finalWeightsVersion: number;
}

export interface MultiProcessTrainSummary extends TrainSummary {
  readonly workers: MultiProcessSummary;
}

interface DeviceCounters {
  workers: number;
  received: number;
  accepted: number;
  positions: number;
  stale: number;
  restarts: number;
  newestVersion: number;
}

/** Rejects multi-process settings that cannot work, naming the flag; nothing has started yet. */
export function checkMultiProcessOptions(multi: MultiProcessOptions, backend: BackendName | undefined): void {
  checkDevices(multi.devices, multi.workersPerDevice ?? MULTIPROCESS_DEFAULTS.workersPerDevice);
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
 */
export async function runMultiProcessTraining(
  input: TrainOptionsInput,
  multi: MultiProcessOptions,
  deps: { registry?: GameRegistry; events?: TrainerEvents; signal?: AbortSignal } = {},
): Promise<MultiProcessTrainSummary> {
  checkMultiProcessOptions(multi, input.backend);
  const devices = multi.devices;
  const gpu = devices[0].kind === 'gpu';
  const workersPerDevice = multi.workersPerDevice ?? MULTIPROCESS_DEFAULTS.workersPerDevice;
  const maxGameAge = multi.maxGameAge ?? MULTIPROCESS_DEFAULTS.maxGameAge;
  const heartbeatTimeoutMs = multi.heartbeatTimeoutMs ?? MULTIPROCESS_DEFAULTS.heartbeatTimeoutMs;
  const events = deps.events ?? {};
  const log = (m: string): void => events.log?.(m);

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
  // CPU workers run tfjs's wasm backend unless told otherwise: one thread per process, parallelism from processes.
  const workerBackend: BackendName = gpu ? 'gpu' : input.backend === undefined || input.backend === 'auto' ? 'wasm' : input.backend;

  const run = await openRun(trainerInput, deps);
  const { options, replay, state, game } = run;
  const slots: WorkerSlot[] = [];
  for (const device of devices) for (let w = 0; w < workersPerDevice; w++) slots.push({ id: slots.length, device });
  const inFlight = slots.length * options.parallelGames;
  log(
    `self-play: ${slots.length} worker process${slots.length > 1 ? 'es' : ''} (${devices.map((d) => d.label).join(', ')}${workersPerDevice > 1 ? `, ${workersPerDevice} per device` : ''}), ${options.parallelGames} games each; training on ${gpu ? devices[0].label : run.backend.name}`,
  );
  if (inFlight > options.gamesPerIteration * Math.max(1, maxGameAge)) {
    log(
      `warning: ${inFlight} games are in flight at once but an iteration takes ${options.gamesPerIteration}; most games will span more than ${maxGameAge} weights versions and be dropped as stale. Raise --games-per-iter or --max-game-age, or lower --parallel-games.`,
    );
  }

  let transport: SelfPlayTransport;
  try {
    transport =
      multi.transport ??
      new LocalIpcTransport({
        slots,
        backendFor: () => workerBackend,
        heartbeatTimeoutMs,
        startupTimeoutMs: multi.startupTimeoutMs,
        // A resumed run's workers must not replay the first session's games.
        seed: options.seed + state.iteration * 31,
        execArgv: multi.workerExecArgv,
        log,
      });
  } catch (err) {
    disposeRun(run);
    throw err;
  }

  // ---- Bookkeeping of games and workers (totals for the session; iteration windows as deltas).
  const perDevice = new Map<string, DeviceCounters>();
  for (const d of devices) perDevice.set(d.label, { workers: workersPerDevice, received: 0, accepted: 0, positions: 0, stale: 0, restarts: 0, newestVersion: -1 });
  const totals = { received: 0, accepted: 0, positions: 0, stale: 0, corrupt: 0, restarts: 0, crashes: 0, hangs: 0, gaps: 0, ageSum: 0 };
  let fatal: Error | null = null;
  const waiters = new Set<() => void>();
  const notify = (): void => {
    for (const w of waiters) w();
    waiters.clear();
  };
  let gamesThisWindow = 0;
  let inSelfPlayPhase = false;

  // How the accepted games ended, taken (and reset) with each iteration's metrics.
  const outcomes = new OutcomeTally(game.numPlayers);
  transport.onGame((incoming) => {
    const device = perDevice.get(incoming.device);
    totals.received++;
    if (device) device.received++;
    // Staleness is judged on arrival, against the version the trainer holds now.
    if (incoming.weightsVersion < state.weightsVersion - maxGameAge) {
      totals.stale++;
      if (device) device.stale++;
      return;
    }
    let record;
    try {
      record = decodeGameRecord(incoming.bytes);
      replay.addGame(record);
    } catch (err) {
      // Runs inside an IPC event: a throw here would take the trainer down. Count it and go on.
      totals.corrupt++;
      log(`dropped an unreadable game from worker ${incoming.workerId} (${incoming.device}): ${err instanceof Error ? err.message : String(err)}`);
      return;
    }
    totals.accepted++;
    outcomes.add(record);
    totals.positions += record.length;
    totals.ageSum += state.weightsVersion - record.weightsVersion;
    if (device) {
      device.accepted++;
      device.positions += record.length;
      device.newestVersion = Math.max(device.newestVersion, record.weightsVersion);
    }
    state.gamesPlayed++;
    gamesThisWindow++;
    if (inSelfPlayPhase) events.progress?.(Math.min(gamesThisWindow, options.gamesPerIteration));
    if (gamesThisWindow >= options.gamesPerIteration) {
      notify();
      // The next iteration's games are in while the trainer is still busy: hold the workers until it
      // wants more, so the ratio of training steps to games stays what the options say.
      if (!inSelfPlayPhase) transport.setPaused(true);
    }
  });
  transport.onWorkerEvent((e) => onWorkerEvent(e));
  function onWorkerEvent(e: WorkerEvent): void {
    events.worker?.(e);
    switch (e.kind) {
      case 'ready':
        log(`worker ${e.workerId} (${e.device}) ready: pid ${e.pid}, search on ${e.backend}, weights v${e.weightsVersion}${e.incarnation > 0 ? `, restart ${e.incarnation}` : ''}`);
        return;
      case 'exited': {
        if (e.reason === 'stopped') return;
        if (e.reason === 'hung') totals.hangs++;
        else totals.crashes++;
        const how = e.reason === 'hung' ? 'hung and was killed' : `crashed (${e.signal ? `signal ${e.signal}` : `exit code ${e.code}`})`;
        log(`worker ${e.workerId} (${e.device}) pid ${e.pid} ${how} after sending ${e.gamesSent} games; they are kept${e.detail ? `\n${e.detail}` : ''}`);
        return;
      }
      case 'restarting': {
        totals.restarts++;
        const device = perDevice.get(e.device);
        if (device) device.restarts++;
        log(`worker ${e.workerId} (${e.device}): restarting${e.delayMs ? ` in ${(e.delayMs / 1000).toFixed(1)}s` : ''} (restart ${e.incarnation})`);
        return;
      }
      case 'gap':
        totals.gaps++;
        log(`worker ${e.workerId} (${e.device}): game ${e.expected} never arrived (next was ${e.got})`);
        return;
      case 'fatal':
        fatal = new Error(`self-play worker failed: ${e.message}`);
        notify();
        return;
    }
  }
  const onAbort = (): void => notify();
  deps.signal?.addEventListener('abort', onAbort);

  /** Resolves when `done()` holds, re-checking whenever a game, an abort or a fatal error arrives. */
  const waitUntil = async (done: () => boolean): Promise<void> => {
    while (!done()) await new Promise<void>((resolve) => waiters.add(resolve));
  };
  const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
  const weightsMessage = (): PublishedWeights => {
    const w = serializeWeights(run.model);
    return { version: state.weightsVersion, data: new Uint8Array(w.data) };
  };
  const extraForCheckpoint = (): Readonly<Record<string, unknown>> => ({ multiProcess: { devices: devices.map((d) => d.label), workersPerDevice, maxGameAge } });

  let lastMetrics: IterationMetrics | undefined;
  let interrupted = false;
  let transportStarted = false;
  // Games accepted while the workers are still starting count for the first iteration.
  let window = snapshot();
  let windowStart = performance.now();
  try {
    if (state.iteration < options.iterations && !run.stopped()) {
      const initial = serializeWeights(run.model);
      const setup: WorkerSetup = {
        plugin: multi.plugin,
        gameId: game.traits.id,
        gameConfig: run.gameConfig,
        encoderVersion: game.encoder.version,
        network: run.networkConfig,
        weightSpecs: initial.specs,
        options,
      };
      transportStarted = true;
      const started = transport.start(setup, { version: state.weightsVersion, data: new Uint8Array(initial.data) });
      started.catch(() => undefined); // a rejection after Ctrl-C is not an error
      await Promise.race([started, waitUntil(() => run.stopped() || fatal !== null)]);
      if (fatal) throw fatal;
    }

    while (state.iteration < options.iterations && !run.stopped()) {
      const iteration = state.iteration + 1;
      const t0 = performance.now();
      inSelfPlayPhase = true;
      transport.setPaused(false);
      events.phase?.('self-play', options.gamesPerIteration, iteration);
      if (gamesThisWindow > 0) events.progress?.(Math.min(gamesThisWindow, options.gamesPerIteration));
      await waitUntil(() => gamesThisWindow >= options.gamesPerIteration || run.stopped() || fatal !== null);
      inSelfPlayPhase = false;
      if (fatal) throw fatal;
      if (run.stopped()) {
        interrupted = true;
        break;
      }
      // The iteration's games are those accepted since the last window closed; later arrivals count for the next.
      const closing = snapshot();
      const windowSeconds = (performance.now() - windowStart) / 1000;
      const delta = diff(closing, window);
      window = closing;
      windowStart = performance.now();
      gamesThisWindow = 0;
      const t1 = performance.now();

      // Serve the workers' messages between steps, so games keep landing in the buffer and heartbeats are read.
      const train = await trainPhase(run, iteration, yieldToEventLoop);
      state.weightsVersion++;
      state.iteration = iteration;
      transport.publishWeights(weightsMessage());
      const t2 = performance.now();

      const evalResults = await evalPhase(run, iteration);
      const t3 = performance.now();
      await run.saveAll(extraForCheckpoint());
      const t4 = performance.now();

      const workerStats = transport.workers();
      const evaluations = delta.evaluations;
      const metrics: IterationMetrics = {
        iteration,
        weightsVersion: state.weightsVersion,
        time: new Date().toISOString(),
        seconds: { selfPlay: (t1 - t0) / 1000, train: (t2 - t1) / 1000, eval: (t3 - t2) / 1000, total: (t4 - t0) / 1000 },
        selfPlay: {
          games: delta.accepted,
          positions: delta.positions,
          evaluations,
          gamesPerSecond: delta.accepted / Math.max(1e-9, windowSeconds),
          evalsPerSecond: evaluations / Math.max(1e-9, windowSeconds),
          averageBatch: delta.evaluatorCalls ? evaluations / delta.evaluatorCalls : 0,
          outcomes: outcomes.take(),
        },
        train,
        replay: { size: replay.size, totalAdded: replay.totalAdded },
        eval: evalResults,
        workers: {
          devices: delta.devices,
          live: workerStats.filter((w) => w.state === 'running').length,
          restarts: delta.restarts,
          staleGamesDropped: delta.stale,
          gamesReceived: delta.received,
          minAcceptedVersion: Math.max(0, state.weightsVersion - maxGameAge),
          meanGameAge: delta.accepted ? delta.ageSum / delta.accepted : 0,
          totalRestarts: totals.restarts,
          totalStaleGamesDropped: totals.stale,
        } satisfies WorkerIterationMetrics,
      };
      recordIteration(run, metrics);
      lastMetrics = metrics;
    }
    if (run.stopped()) interrupted = true;

    // Stop the workers and take in every game they finished before the final checkpoint.
    if (transportStarted) {
      events.log?.(`stopping ${slots.length} self-play worker${slots.length > 1 ? 's' : ''}...`);
      await transport.stop();
    }
    deps.signal?.removeEventListener('abort', onAbort);
    // Interrupted: closeRun writes the checkpoint. Finished: the last iteration's checkpoint lacks the games
    // that arrived since, so write it again.
    if (!interrupted && transportStarted) await run.saveAll(extraForCheckpoint());
    const summary = await closeRun(run, interrupted, lastMetrics, extraForCheckpoint);
    return { ...summary, workers: summarize() };
  } catch (err) {
    deps.signal?.removeEventListener('abort', onAbort);
    if (transport instanceof LocalIpcTransport) transport.kill();
    else await transport.stop().catch(() => undefined);
    disposeRun(run);
    throw err;
  }

  function snapshot(): Snapshot {
    const stats = transport.workers().reduce((s, w) => ({ evaluations: s.evaluations + w.stats.evaluations, evaluatorCalls: s.evaluatorCalls + w.stats.evaluatorCalls }), { evaluations: 0, evaluatorCalls: 0 });
    const devicesCopy = new Map<string, DeviceCounters>();
    for (const [label, c] of perDevice) devicesCopy.set(label, { ...c });
    return { ...totals, ...stats, devices: devicesCopy };
  }

  function summarize(): MultiProcessSummary {
    const devicesOut: Record<string, DeviceTotals> = {};
    for (const [label, c] of perDevice) {
      devicesOut[label] = { workers: c.workers, gamesReceived: c.received, gamesAccepted: c.accepted, positionsAccepted: c.positions, staleGamesDropped: c.stale, restarts: c.restarts, newestGameVersion: c.newestVersion };
    }
    return {
      devices: devicesOut,
      gamesReceived: totals.received,
      gamesAccepted: totals.accepted,
      positionsAccepted: totals.positions,
      staleGamesDropped: totals.stale,
      corruptGames: totals.corrupt,
      restarts: totals.restarts,
      crashes: totals.crashes,
      hangs: totals.hangs,
      sequenceGaps: totals.gaps,
      finalWeightsVersion: state.weightsVersion,
    };
  }
}

interface Snapshot {
  received: number;
  accepted: number;
  positions: number;
  stale: number;
  restarts: number;
  ageSum: number;
  evaluations: number;
  evaluatorCalls: number;
  devices: Map<string, DeviceCounters>;
}

function diff(now: Snapshot, before: Snapshot): Omit<Snapshot, 'devices'> & { devices: Record<string, DeviceIterationMetrics> } {
  const devices: Record<string, DeviceIterationMetrics> = {};
  for (const [label, c] of now.devices) {
    const b = before.devices.get(label);
    devices[label] = {
      games: c.accepted - (b?.accepted ?? 0),
      positions: c.positions - (b?.positions ?? 0),
      restarts: c.restarts - (b?.restarts ?? 0),
      staleGamesDropped: c.stale - (b?.stale ?? 0),
    };
  }
  return {
    received: now.received - before.received,
    accepted: now.accepted - before.accepted,
    positions: now.positions - before.positions,
    stale: now.stale - before.stale,
    restarts: now.restarts - before.restarts,
    ageSum: now.ageSum - before.ageSum,
    // Worker stats drop when a process dies (its last report is folded in late); never report negative work.
    evaluations: Math.max(0, now.evaluations - before.evaluations),
    evaluatorCalls: Math.max(0, now.evaluatorCalls - before.evaluatorCalls),
    devices,
  };
}

