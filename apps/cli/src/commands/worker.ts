import { resolveGame } from '@az/core';
import {
  DeviceSpecError,
  IncompatibleRunError,
  RedisUrlError,
  RedisWorkerAgent,
  checkDevices,
  checkRunName,
  parseDeviceSpec,
  parseGpuList,
  parseRedisUrl,
  RedisConnectError,
  withTlsCa,
  readRunKey,
  RunKeyError,
  RUN_KEY_ENV,
  RUN_KEY_FILE,
  type Device,
  type LocalPlugin,
} from '@az/trainer-multigpu';
import { helpText, parseFlags, UsageError } from '../args.js';
import { lastDiscovery } from '../plugins.js';

export const workerSpec = {
  name: 'worker',
  summary: "Self-play for a run on another machine: joins it through Redis, streams games, follows its weights.",
  usage: 'az worker --connect redis://host:6379/0 --run NAME (--gpus LIST | --devices cpu:N) [options]',
  flags: {
    connect: { type: 'string', description: "the learner's Redis (what it was given as --transport)", placeholder: 'redis[s]://[user:pass@]host:port/db' },
    'tls-ca': { type: 'string', description: 'with rediss://: also trust the CA certificate(s) in this PEM file (default: $AZ_REDIS_CA)', placeholder: 'FILE' },
    run: { type: 'string', description: "the run to join (the learner's --run-id)", placeholder: 'NAME' },
    'run-key-file': {
      type: 'string',
      description: `the learner's run key (required, or $${RUN_KEY_ENV}): a copy of its --run-key-file, or of the ${RUN_KEY_FILE} it made in its run directory; weights and setup it did not sign are never played`,
      placeholder: 'FILE',
    },
    gpus: { type: 'string', description: 'one self-play process per listed GPU (e.g. 0,1,2,3); needs @tensorflow/tfjs-node-gpu', placeholder: 'LIST' },
    devices: { type: 'string', description: 'N CPU self-play processes (wasm backend)', placeholder: 'cpu:N' },
    'workers-per-device': { type: 'int', min: 1, description: 'self-play processes per device (default 1)' },
    'parallel-games': { type: 'int', min: 1, description: "games in lock-step per process (default: the run's setting)" },
    name: { type: 'string', description: 'this machine as the learner reports it (default: the host name)', placeholder: 'NAME' },
    'max-backlog': { type: 'int', min: 1, description: 'pause while the games stream holds more than this many entries (the learner is down or behind; default 10000)' },
    seed: { type: 'int', min: 0, description: 'random seed of the self-play processes (mixed with a per-agent number)' },
  },
  examples: [
    'az worker --connect redis://learner.lan:6379/0 --run chess-1 --run-key-file chess-1.key --gpus 0,1,2,3',
    'az worker --connect rediss://worker:secret@redis.example.com:6380/0 --tls-ca ca.pem --run ttt --run-key-file ttt.key --devices cpu:8',
  ],
} as const;

export async function workerCommand(argv: readonly string[]): Promise<number> {
  const { flags } = parseFlags(workerSpec, argv);
  if (flags.help) {
    console.log(helpText(workerSpec));
    return 0;
  }
  if (!flags.connect) throw new UsageError('az worker: --connect is required (the learner\'s Redis URL)');
  if (!flags.run) throw new UsageError("az worker: --run is required (the learner's --run-id)");
  if ((flags.gpus === undefined) === (flags.devices === undefined)) throw new UsageError('az worker: give --gpus LIST or --devices cpu:N (one of them)');
  let devices: Device[];
  let endpoint;
  let run: string;
  let runKey;
  try {
    devices = flags.gpus !== undefined ? parseGpuList(flags.gpus) : parseDeviceSpec(flags.devices ?? '');
    checkDevices(devices, flags['workers-per-device'] ?? 1);
    endpoint = withTlsCa(parseRedisUrl(flags.connect), flags['tls-ca']);
    run = checkRunName(flags.run);
    runKey = readRunKey(flags['run-key-file']);
  } catch (err) {
    if (err instanceof DeviceSpecError || err instanceof RedisUrlError || err instanceof RunKeyError) throw new UsageError(`az worker: ${err.message}`);
    throw err;
  }
  if (!runKey) {
    throw new UsageError(
      `az worker: no run key: give the learner's with --run-key-file FILE or ${RUN_KEY_ENV} (a learner given none made one in its run directory, <out>/${RUN_KEY_FILE}, and printed where); a worker plays only weights signed with it`,
    );
  }
  // The run names its game; this install's plugin discovery says where that game's package is.
  const resolvePlugin = (gameId: string): LocalPlugin | undefined => {
    try {
      resolveGame(gameId);
    } catch {
      return undefined;
    }
    const found = lastDiscovery().loaded.find((l) => l.gameId === gameId);
    return found ? { packageName: found.packageName, version: found.version, exportName: found.exportName, moduleUrl: found.moduleUrl } : undefined;
  };
  const agent = new RedisWorkerAgent({
    endpoint,
    run,
    devices,
    workersPerDevice: flags['workers-per-device'],
    parallelGames: flags['parallel-games'],
    machine: flags.name,
    resolvePlugin,
    runKey,
    maxBacklog: flags['max-backlog'],
    seed: flags.seed,
    log: (line) => console.error(line),
  });
  const controller = new AbortController();
  const onSignal = (): void => {
    if (controller.signal.aborted) process.exit(130);
    console.error('stopping: finishing the current moves and sending the finished games (Ctrl-C again to quit at once)');
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  console.error(`az worker: joining run '${run}' on ${endpoint.display} with ${devices.map((d) => d.label).join(', ')}`);
  try {
    await agent.run(controller.signal);
  } catch (err) {
    if (err instanceof IncompatibleRunError) {
      console.error(`az worker: cannot play run '${run}': ${err.message}`);
      return 1;
    }
    if (err instanceof RedisConnectError) {
      console.error(`az worker: cannot connect: ${err.message}`);
      return 1;
    }
    throw err;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  console.error(`az worker: stopped after sending ${agent.gamesSent} games`);
  return 0;
}
