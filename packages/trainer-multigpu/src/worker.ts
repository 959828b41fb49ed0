/**
 * Entry module of a self-play worker process (forked by LocalIpcTransport; not part of the package's
 * API). It waits for an 'init' message, builds the game, the network and the batched search, then plays
 * without end: the games finished in each search step go to the trainer right after it, as bytes
 * (encodeGameRecord) in one message; heartbeats go out on a timer and after network calls, and new
 * weights are loaded between moves.
 *
 * CUDA_VISIBLE_DEVICES was set by the trainer before this process started, so a GPU worker sees exactly
 * one GPU and tfjs-node-gpu uses it as device 0.
 */
import {
  GameRegistry,
  resolveGameConfig,
  type GamePlugin,
} from '@az/core';
import {
  openInferenceEngine,
  buildModel,
  initBackend,
  loadWeightsInto,
  type BackendName,
  type LayersModel,
} from '@az/nn';
import { NetworkEvaluator, type Evaluator, type LeafBatch } from '@az/mcts';
import { encodeGameRecord } from './game-record.js';
import { selfPlaySettings } from './options.js';
import { SelfPlay } from './self-play.js';
import { createSelfPlayEngine, selfPlayEvaluationCache, selfPlayWorkload } from './search-settings.js';
import type { FinishedGameMessage, FromWorkerMessage, ToWorkerMessage, WorkerPlayStats, WorkerSetup } from './transport.js';

type InitMessage = Extract<ToWorkerMessage, { t: 'init' }>;

/** A problem that restarting cannot fix; reported as 'fatal' so the trainer stops instead of looping. */
class FatalWorkerError extends Error {}

function send(message: FromWorkerMessage): Promise<void> {
  return new Promise((resolve) => {
    if (!process.connected || !process.send) return resolve();
    // The callback fires once the message is handed to the OS (or the channel failed): either way, move on.
    process.send(message, undefined, undefined, () => resolve());
  });
}

/** A standalone ArrayBuffer with exactly these bytes (IPC buffers may be views into a larger one). */
function exactBuffer(bytes: Uint8Array): ArrayBuffer {
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}

async function loadPlugin(setup: WorkerSetup): Promise<GamePlugin> {
  let mod: Record<string, unknown>;
  try {
    mod = (await import(setup.plugin.moduleUrl)) as Record<string, unknown>;
  } catch (err) {
    throw new FatalWorkerError(`cannot import the game module ${setup.plugin.moduleUrl}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const plugin = mod[setup.plugin.exportName];
  const registry = new GameRegistry();
  try {
    // Registering checks the contract version and traits, as the trainer's registry did.
    registry.register(plugin as GamePlugin);
  } catch (err) {
    throw new FatalWorkerError(`${setup.plugin.moduleUrl} export '${setup.plugin.exportName}' is not a usable game plugin: ${err instanceof Error ? err.message : String(err)}`);
  }
  const resolved = registry.resolve((plugin as GamePlugin).traits.id);
  if (resolved.traits.id !== setup.gameId) {
    throw new FatalWorkerError(`${setup.plugin.moduleUrl} export '${setup.plugin.exportName}' is game '${resolved.traits.id}', not '${setup.gameId}'`);
  }
  return resolved;
}

let stopping = false;
let paused = false;
/** Games this worker may still send before it pauses itself ('pause-after'), or null: no limit. */
let gamesBeforePause: number | null = null;
let pendingWeights: { version: number; data: Uint8Array } | null = null;
let initStarted = false;
/** Wakes a paused worker (resume or stop). */
let wakeUp: (() => void) | null = null;
function wake(): void {
  const w = wakeUp;
  wakeUp = null;
  w?.();
}

async function run(init: InitMessage): Promise<void> {
  const { setup } = init;
  await initBackend(init.backend as BackendName);
  const plugin = await loadPlugin(setup);
  const game = plugin.create(resolveGameConfig(plugin, setup.gameConfig));
  if (game.encoder.version !== setup.encoderVersion) {
    throw new FatalWorkerError(`the worker's game encodes positions as version '${game.encoder.version}' but the trainer's as '${setup.encoderVersion}' (different builds of the game?)`);
  }
  const model: LayersModel = buildModel(setup.network);
  const specs = setup.weightSpecs;
  // Newer versions may have been published while this process was starting: begin with the newest.
  const first = pendingWeights && pendingWeights.version > init.weights.version ? pendingWeights : init.weights;
  pendingWeights = null;
  loadWeightsInto(model, { specs, data: exactBuffer(first.data) });
  // Search runs on the registry's engine (onnxruntime when it loads), one thread per worker since the
  // workers already fill the cores; tfjs (this model) otherwise.
  const inference = await openInferenceEngine(model, setup.network, {
    engine: setup.settings.inferenceBackend,
    threads: setup.settings.inferenceThreads ?? 1,
    workload: selfPlayWorkload(game, setup.settings),
    weightsVersion: first.version,
    log: (m) => process.stderr.write(`${m}\n`),
  });
  const network = new NetworkEvaluator(inference);

  let lastBeat = 0;
  let gamesSent = 0;
  let positionsSent = 0;
  const options = setup.settings;
  const leafEvaluator = heartbeatingEvaluator(network, () => beatIfDue());
  // The cache empties whenever new weights arrive; its counters keep counting.
  const cache = selfPlayEvaluationCache(game, leafEvaluator, options, inference);
  const engine = createSelfPlayEngine(game, { evaluator: cache ?? leafEvaluator, network }, options, options.parallelGames, init.seed);
  const selfPlay = new SelfPlay(game, engine, { ...selfPlaySettings(options, game.traits.information), seed: (init.seed ^ 0x5bd1e995) >>> 0, weightsVersion: first.version });

  // Cumulative for this process; the trainer takes differences per iteration.
  const playStats = (): WorkerPlayStats => ({
    games: gamesSent,
    positions: positionsSent,
    evaluations: engine.stats.evaluations,
    evaluatorCalls: engine.stats.evaluatorCalls,
    ...(cache ? { cacheLookups: cache.stats.lookups, cacheHits: cache.stats.hits } : {}),
  });
  const beat = (): Promise<void> => {
    lastBeat = Date.now();
    return send({ t: 'beat', weightsVersion: selfPlay.weightsVersion, ...playStats() });
  };
  function beatIfDue(): void {
    // Not awaited: a heartbeat must never wait on the trainer.
    if (Date.now() - lastBeat >= init.heartbeatMs) void beat();
  }
  // The timer covers idle stretches; during play, beats go out between moves and after network calls,
  // because a long synchronous search would delay the timer.
  const timer = setInterval(() => void beat(), init.heartbeatMs);
  timer.unref();

  // The engine the search really runs on (onnxruntime, or tfjs when it does not load), not the tfjs backend the model was built on.
  await send({ t: 'ready', backend: inference.backendName, weightsVersion: selfPlay.weightsVersion });
  void beat();

  let seq = 0;
  // Games finished in the current search step; sent as one message before the next step.
  let finished: FinishedGameMessage[] = [];
  const flushGames = (): void => {
    if (finished.length === 0) return;
    void send({ t: 'games', firstSeq: seq, games: finished, stats: playStats() });
    seq += finished.length;
    finished = [];
  };
  const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
  await selfPlay.play(
    Infinity,
    (record) => {
      finished.push({ weightsVersion: record.weightsVersion, bytes: encodeGameRecord(record) });
      gamesSent++;
      if (gamesBeforePause !== null) gamesBeforePause--;
      positionsSent += record.length;
    },
    undefined,
    () => stopping,
    async () => {
      flushGames();
      beatIfDue();
      // Messages (new weights, pause, stop) are only delivered when the event loop turns: let it, once per move.
      await yieldToEventLoop();
      // Its share of the next iteration's games sent: hold until the trainer wants more.
      if (gamesBeforePause !== null && gamesBeforePause <= 0) {
        paused = true;
        gamesBeforePause = null;
      }
      // Paused: wait here, between moves, with games in progress kept; heartbeats go on from the timer.
      while (paused && !stopping) await new Promise<void>((resolve) => (wakeUp = resolve));
      const next = pendingWeights;
      if (next && next.version !== selfPlay.weightsVersion) {
        pendingWeights = null;
        loadWeightsInto(model, { specs, data: exactBuffer(next.data) });
        await inference.refresh(next.version);
        selfPlay.weightsVersion = next.version;
        void beat();
      }
    },
  );
  flushGames();
  clearInterval(timer);
  inference.dispose();
  // IPC messages are written in order: once this last one is out, every game before it is too, and the
  // process may exit without losing one.
  await beat();
}

/** Sends a heartbeat (when due) after each network call: one search step can take seconds on a CPU. */
function heartbeatingEvaluator<S>(inner: Evaluator<S>, afterCall: () => void): Evaluator<S> {
  return {
    needsInputs: inner.needsInputs,
    needsMasks: inner.needsMasks,
    // A getter: the inner network's model, and so whether it writes compact rows, changes with new weights.
    get legalLogits(): boolean | undefined {
      return inner.legalLogits;
    },
    async evaluate(batch: LeafBatch<S>): Promise<void> {
      await inner.evaluate(batch);
      afterCall();
    },
  };
}

async function fail(err: unknown): Promise<never> {
  const message = err instanceof Error ? (err instanceof FatalWorkerError ? err.message : (err.stack ?? err.message)) : String(err);
  process.stderr.write(`${message}\n`);
  await send(err instanceof FatalWorkerError ? { t: 'fatal', message } : { t: 'error', message });
  process.exit(1);
}

function onMessage(message: ToWorkerMessage): void {
  switch (message.t) {
    case 'init':
      if (initStarted) return;
      initStarted = true;
      paused = message.paused;
      run(message).then(
        () => process.exit(0),
        (err: unknown) => fail(err),
      );
      return;
    case 'weights':
      // Only the newest matters; it is loaded at the next move boundary.
      if (!pendingWeights || message.version > pendingWeights.version) pendingWeights = { version: message.version, data: message.data };
      return;
    case 'pause':
      paused = true;
      return;
    case 'pause-after':
      gamesBeforePause = message.games;
      return;
    case 'resume':
      paused = false;
      gamesBeforePause = null;
      wake();
      return;
    case 'stop':
      stopping = true;
      wake();
      if (!initStarted) process.exit(0);
      return;
  }
}

if (!process.send) {
  process.stderr.write('this module is a self-play worker: the trainer starts it with child_process.fork\n');
  process.exit(2);
}
// Ctrl-C in a terminal signals the whole process group; the trainer decides when workers stop.
process.on('SIGINT', () => undefined);
// The trainer is gone (exited or killed): nobody is left to send games to.
process.on('disconnect', () => process.exit(0));
process.on('message', (m) => onMessage(m as ToWorkerMessage));
process.on('uncaughtException', (err) => void fail(err));
process.on('unhandledRejection', (err) => void fail(err));
