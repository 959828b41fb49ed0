import { describeSchema, listGames } from '@az/core';
import { helpText, parseFlags } from '../args.js';
import { formatProblem, lastDiscovery } from '../plugins.js';

export const gamesSpec = {
  name: 'games',
  summary: 'List the registered games, their traits and settings.',
  usage: 'az games [--json]',
  flags: {
    json: { type: 'boolean', description: 'print as JSON' },
  },
} as const;

export async function gamesCommand(argv: readonly string[]): Promise<number> {
  const { flags } = parseFlags(gamesSpec, argv);
  if (flags.help) {
    console.log(helpText(gamesSpec));
    return 0;
  }
  const games = listGames().sort((a, b) => a.traits.id.localeCompare(b.traits.id));
  // Plugins that were found but could not be loaded: listed with the reason, so a missing game is explained.
  const problems = lastDiscovery().problems.map(formatProblem);
  if (flags.json) {
    for (const p of problems) console.error(`az: warning: ${p}`);
    console.log(JSON.stringify(games.map((g) => ({ ...g.traits, config: g.configSchema, bots: Object.keys(g.bots ?? {}) })), null, 2));
    return 0;
  }
  if (games.length === 0) console.log('no games registered (install a game plugin: see docs/plugin-authoring.md)');
  for (const g of games) {
    const t = g.traits;
    const players = t.minPlayers === t.maxPlayers ? `${t.minPlayers} players` : `${t.minPlayers}-${t.maxPlayers} players`;
    console.log(`${t.id}  ${t.name}: ${players}, ${t.information} information, ${t.chance ? 'chance' : 'no chance'}, ${t.rewards}, at most ${t.maxGameLength} moves`);
    console.log(`    ${t.description}`);
    const bots = Object.keys(g.bots ?? {});
    console.log(`    agents: random, mcts${bots.length ? ', ' + bots.join(', ') : ''}`);
    for (const line of describeSchema(g.configSchema)) console.log(`    config ${line}`);
  }
  if (problems.length) {
    console.log(`\nnot loaded (${problems.length}):`);
    for (const p of problems) console.log(`  ${p}`);
  }
  return 0;
}
