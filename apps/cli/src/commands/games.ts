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
  const discovery = lastDiscovery();
  // Plugins that were found but could not be loaded: listed with the reason, so a missing game is explained.
  const problems = discovery.problems.map(formatProblem);
  const origin = new Map(discovery.loaded.map((l) => [l.gameId, l]));
  if (flags.json) {
    for (const p of problems) console.error(`az: warning: ${p}`);
    const plugin = (id: string): { package: string; version: string; source: string; dir: string } | null => {
      const l = origin.get(id);
      return l ? { package: l.packageName, version: l.version, source: l.source, dir: l.dir } : null;
    };
    console.log(JSON.stringify(games.map((g) => ({ ...g.traits, config: g.configSchema, bots: Object.keys(g.bots ?? {}), plugin: plugin(g.traits.id) })), null, 2));
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
    const from = origin.get(t.id);
    if (from) console.log(`    from ${from.packageName}${from.version ? `@${from.version}` : ''} (${from.source}, ${from.dir})`);
    for (const line of describeSchema(g.configSchema)) console.log(`    config ${line}`);
  }
  if (problems.length) {
    console.log(`\nnot loaded (${problems.length}):`);
    for (const p of problems) console.log(`  ${p}`);
  }
  // Where discovery looked, so a game that is missing can be found (docs/plugin-authoring.md, "Discovery").
  console.log('\nlooked for game plugins in:');
  for (const place of discovery.searched) console.log(`  ${place}`);
  return 0;
}
