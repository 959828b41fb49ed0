/**
 * The settings `az train` uses when a flag is not given, for `az train --help`: the framework's
 * defaults, or with `--game` that game's (its training hints over the framework's), so nobody has to
 * read the source to learn which network or how many games a run gets.
 */
import { GAME_CONTRACT_VERSION, type GamePlugin, type NetworkSpec } from '@az/core';
import { resolveTrainOptions, type TrainOptions } from '@az/trainer-multigpu';

/** Each flag whose default is worth showing, with the setting it fills. */
const SHOWN: readonly (readonly [flag: string, setting: keyof TrainOptions])[] = [
  ['--iterations', 'iterations'],
  ['--games-per-iter', 'gamesPerIteration'],
  ['--parallel-games', 'parallelGames'],
  ['--sims', 'simulations'],
  ['--determinizations', 'determinizations'],
  ['--leaf-values', 'leafValues'],
  ['--root-selection', 'rootSelection'],
  ['--forced-playouts', 'forcedPlayouts'],
  ['--full-search-share', 'fullSearchShare'],
  ['--temperature-moves', 'temperatureMoves'],
  ['--dirichlet-alpha', 'dirichletAlpha'],
  ['--cpuct', 'cPuct'],
  ['--network', 'network'],
  ['--train-steps', 'trainingSteps'],
  ['--batch-size', 'batchSize'],
  ['--lr', 'learningRate'],
  ['--lr-schedule', 'learningRateSchedule'],
  ['--weight-decay', 'weightDecay'],
  ['--replay', 'replayCapacity'],
  ['--eval-games', 'evalGames'],
  ['--eval-sims', 'evalSimulations'],
  ['--keep', 'keepCheckpoints'],
  ['--seed', 'seed'],
];

/** `--network` notation of a spec: 'mlp:128,128', 'resnet:32x2' (with its head settings when a game set them). */
export function networkText(spec: NetworkSpec): string {
  const { kind, ...rest } = spec as NetworkSpec & Record<string, unknown>;
  if (kind === 'mlp') return `mlp:${(spec as { hidden: readonly number[] }).hidden.join(',')}`;
  if (kind === 'resnet') {
    const { filters, blocks, ...heads } = rest as { filters: number; blocks: number } & Record<string, unknown>;
    const extra = Object.entries(heads).map(([k, v]) => `${k} ${JSON.stringify(v)}`);
    return `resnet:${filters}x${blocks}${extra.length ? ` (${extra.join(', ')})` : ''}`;
  }
  return JSON.stringify(spec);
}

function valueText(value: TrainOptions[keyof TrainOptions]): string {
  if (typeof value === 'object' && value !== null && 'kind' in value) return networkText(value as NetworkSpec);
  return String(value);
}

/**
 * A game with no training hints, for the framework's defaults: only its longest game matters to them
 * (temperature moves), and that row is shown as its rule instead.
 */
const HINTLESS_GAME: GamePlugin = {
  contractVersion: GAME_CONTRACT_VERSION,
  traits: { id: 'any-game', name: 'any game', description: '', minPlayers: 2, maxPlayers: 2, information: 'imperfect', chance: false, rewards: 'zero-sum', maxGameLength: 100 },
  configSchema: {},
  create: () => {
    throw new Error('az train --help creates no game');
  },
};

/**
 * The defaults block of `az train --help`: with a game, its own (the hidden-information settings only for
 * hidden-information games); without one, the framework's.
 */
export function trainDefaultsText(plugin: GamePlugin | undefined): string {
  const resolved = resolveTrainOptions({ game: (plugin ?? HINTLESS_GAME).traits.id }, plugin ?? HINTLESS_GAME);
  const hiddenOnly = new Set(['--determinizations', '--leaf-values']);
  const rows = SHOWN.filter(([flag]) => !plugin || plugin.traits.information === 'imperfect' || !hiddenOnly.has(flag)).map(([flag, setting]) => {
    if (!plugin && setting === 'temperatureMoves') return [flag, "a quarter of the game's longest game, at most 30"] as const;
    return [flag, valueText(resolved[setting])] as const;
  });
  const width = Math.max(...rows.map(([flag]) => flag.length)) + 2;
  const head = plugin
    ? `Defaults for --game ${plugin.traits.id} (its training hints over the framework's; a flag overrides either):`
    : "Framework defaults (a game's training hints replace some: az train --game ID --help shows that game's; a flag overrides either):";
  return [head, ...rows.map(([flag, value]) => `  ${flag.padEnd(width)}${value}`)].join('\n');
}
