#!/usr/bin/env node
// The `az` command: train, play, eval and list games. Each command has --help; bad flags and values
// exit with status 2 and a message naming them, other failures with status 1.
import { readFileSync } from 'node:fs';
import { ConfigError, PluginError, defaultRegistry, ownValue } from '@az/core';
import { BackendUnavailableError, CheckpointError, ModelFolderError } from '@az/nn';
import { UsageError } from './args.js';
import { onOutputClosed } from './closed-output.js';
import { discoverGamePlugins, formatProblem } from './plugins.js';
type Command = (argv: readonly string[]) => Promise<number>;

// Each command's module is loaded only when it runs: `az play` and `az eval` never load the trainer.
const commands: Record<string, { load: () => Promise<Command>; summary: string }> = {
  train: { load: async () => (await import('./commands/train.js')).trainCommand, summary: 'train an agent by self-play (az train --game tictactoe)' },
  play: { load: async () => (await import('./commands/play.js')).playCommand, summary: 'play in the terminal against a model or a bot' },
  worker: { load: async () => (await import('./commands/worker.js')).workerCommand, summary: 'self-play for a run on another machine, through Redis (az worker --connect URL --run NAME)' },
  eval: { load: async () => (await import('./commands/eval.js')).evalCommand, summary: 'arena between two agents (models, bots, random, mcts)' },
  compare: { load: async () => (await import('./commands/compare.js')).compareCommand, summary: 'two arenas on the same deals, game by game: what changed for agent A (az eval --games-out records)' },
  assess: { load: async () => (await import('./commands/assess.js')).assessCommand, summary: "the game's own verdict on a model (solved positions, an exact oracle)" },
  serve: { load: async () => (await import('./commands/serve.js')).serveCommand, summary: 'play in the browser and watch training live (az serve --run runs/tictactoe)' },
  report: { load: async () => (await import('./commands/report.js')).reportCommand, summary: 'write a self-contained HTML report of a training run' },
  rate: { load: async () => (await import('./commands/rate.js')).rateCommand, summary: 'Elo ratings from a round robin or gauntlet (models, bots, UCI engines)' },
  uci: { load: async () => (await import('./commands/uci.js')).uciCommand, summary: 'a trained chess model as a UCI engine (az uci --model runs/chess)' },
  games: { load: async () => (await import('./commands/games.js')).gamesCommand, summary: 'list the installed games' },
  'new-game': { load: async () => (await import('./commands/new-game.js')).newGameCommand, summary: 'scaffold a game plugin package (az new-game <name>)' },
};

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

function usage(): string {
  const lines = ['az: AlphaZero for any game.', '', 'Usage: az <command> [options]', '', 'Commands:'];
  for (const [name, c] of Object.entries(commands)) lines.push(`  ${name.padEnd(10)}${c.summary}`);
  lines.push('', "Run 'az <command> --help' for a command's options.");
  return lines.join('\n');
}

export async function main(argv: readonly string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    console.log(usage());
    return name === undefined ? 2 : 0;
  }
  if (name === '--version' || name === '-v') {
    console.log(version());
    return 0;
  }
  const command = ownValue(commands, name);
  if (!command) {
    console.error(`az: unknown command '${name}'\n\n${usage()}`);
    return 2;
  }
  // A closed stdout (piped to `head`): training goes on (its results are in the run directory), any
  // other command has nobody left to tell and stops quietly. A closed stderr only drops messages.
  onOutputClosed(process.stdout, () => {
    if (name !== 'train') process.exit(0);
  });
  onOutputClosed(process.stderr, () => undefined);
  // Scaffolding and --help need no games (so they import no plugin code), but for `az train --game ID
  // --help`, which shows that game's defaults; `az games` lists plugin problems itself, the others warn
  // on stderr.
  const wantsHelp = rest.includes('--help') || rest.includes('-h');
  const namesGame = rest.some((a) => a === '--game' || a.startsWith('--game='));
  if (name !== 'new-game' && (!wantsHelp || (name === 'train' && namesGame))) {
    const discovery = await discoverGamePlugins(defaultRegistry);
    if (name !== 'games') for (const p of discovery.problems) console.error(`az: warning: ${formatProblem(p)}`);
  }
  try {
    const run = await command.load();
    return await run(rest);
  } catch (err) {
    if (err instanceof UsageError || err instanceof ConfigError) {
      console.error(`${err.message}\n(see az ${name} --help)`);
      return 2;
    }
    // A model folder that breaks the rules of what one may hold is bad input, like a bad flag.
    if (err instanceof ModelFolderError) {
      console.error(`az ${name}: ${err.message}`);
      return 2;
    }
    if (err instanceof PluginError || err instanceof CheckpointError || err instanceof BackendUnavailableError) {
      console.error(`az ${name}: ${err.message}`);
      return 1;
    }
    if (err instanceof RangeError && /must be/.test(err.message)) {
      console.error(`az ${name}: ${err.message}`);
      return 2;
    }
    console.error(`az ${name}: ${err instanceof Error ? err.message : String(err)}`);
    if (process.env.AZ_DEBUG && err instanceof Error) console.error(err.stack);
    return 1;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  },
);
