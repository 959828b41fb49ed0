import { parseConfigAssignments, resolveGame } from '@az/core';
import { BACKEND_CHOICES } from '@az/nn';
import { loadModel, type LoadedModel } from '../agents.js';
import { helpText, parseFlags, UsageError } from '../args.js';
import { checkRunDir } from '../serve/run-data.js';
import { MAX_SESSION_SIMULATIONS, startServer, type RunningServer, type ServeOptions } from '../serve/server.js';

export const serveSpec = {
  name: 'serve',
  summary: 'Play any installed game in the browser, and watch a training run live.',
  usage: 'az serve [--game ID] [--model DIR] [--run DIR] [--port N] [--host ADDRESS]',
  flags: {
    game: { type: 'string', description: 'the game the model plays (every installed game is playable)', placeholder: 'ID' },
    model: { type: 'string', description: 'trained model (run or checkpoint directory) to play against; needs --game', placeholder: 'DIR' },
    run: { type: 'string', description: 'training run directory for the dashboard (metrics.jsonl)', placeholder: 'DIR' },
    config: { type: 'string', description: 'settings for --game, key=value[,key=value...]', placeholder: 'K=V,...' },
    sims: { type: 'int', min: 1, max: MAX_SESSION_SIMULATIONS, description: "search simulations per computer move (default: the game's play setting)" },
    'max-searches': { type: 'int', min: 1, description: 'most computer moves searched at once, over all games; beyond it a request is answered 503 with Retry-After (default: one per core)' },
    seed: { type: 'int', min: 0, description: 'random seed for deals and agents, the same for every game (default: a fresh seed per game)' },
    port: { type: 'int', min: 0, max: 65535, default: 8080, description: 'port to listen on (0: any free port)' },
    host: { type: 'string', default: '127.0.0.1', description: 'address to listen on; anything but loopback exposes the server to the network', placeholder: 'ADDRESS' },
    backend: { type: 'enum', values: BACKEND_CHOICES, default: 'auto', description: 'network engine for the model (as in az play)' },
    threads: { type: 'int', min: 1, description: 'onnxruntime threads per network call (default: the cores available)' },
  },
  examples: ['az serve', 'az serve --game chess --model runs/chess', 'az serve --run runs/tictactoe', 'az serve --game blob --port 9000'],
} as const;

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

/** Prints the warning `--host` calls for when the address is not loopback. */
export function exposureWarning(host: string): string | undefined {
  if (LOOPBACK.has(host)) return undefined;
  return `az serve: warning: listening on ${host}, not only this machine: anyone who can reach it can play and read the run's metrics (there is no login)`;
}

/** Starts the server and stays up until Ctrl-C. */
export async function serveCommand(argv: readonly string[]): Promise<number> {
  const { flags } = parseFlags(serveSpec, argv);
  if (flags.help) {
    console.log(helpText(serveSpec));
    return 0;
  }
  if (flags.model && !flags.game) throw new UsageError('az serve: --model needs --game (the game the model plays)');
  if (flags.config && !flags.game) throw new UsageError('az serve: --config needs --game');
  const plugin = flags.game ? resolveGame(flags.game) : undefined;
  const run = flags.run ? checkRunDir(flags.run) : undefined;
  let model: LoadedModel | undefined;
  if (plugin && flags.model) model = await loadModel(plugin, flags.model, { backend: flags.backend ?? 'auto', threads: flags.threads });
  const host = flags.host ?? '127.0.0.1';
  const warning = exposureWarning(host);
  if (warning) console.error(warning);
  const options: ServeOptions = {
    game: plugin?.traits.id,
    model,
    gameConfig: flags.config ? parseConfigAssignments(flags.config) : undefined,
    run,
    simulations: flags.sims,
    seed: flags.seed,
    warn: (message) => console.error(`az serve: warning: ${message}`),
    maxSearches: flags['max-searches'],
  };
  let server: RunningServer;
  try {
    server = await startServer({ ...options, port: flags.port ?? 8080, host });
  } catch (err) {
    model?.dispose();
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new UsageError(`az serve: port ${flags.port} is in use; pick another with --port (0: any free port)`);
    throw err;
  }
  console.log(`az serve: ${server.url}/${plugin ? `play/${plugin.traits.id}` : ''}${run ? `\n  dashboard: ${server.url}/dashboard` : ''}\n  (Ctrl-C to stop)`);
  await new Promise<void>((resolveStop) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolveStop();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  await server.close();
  model?.dispose();
  return 0;
}
