/**
 * The settings `az train` uses when a flag is not given, for `az train --help`: the framework's
 * defaults, or with `--game` that game's (its training hints over the framework's), so nobody has to
 * read the source to learn which network or how many games a run gets.
 */
import { GAME_CONTRACT_VERSION, type GamePlugin, type NetworkSpec } from '@az/core';
import { resolveTrainOptions, type TrainOptions } from '@az/trainer-multigpu';
import { settingOf, TRAIN_SETTING_FLAGS, type SettingFlag, type TrainSection } from './train-flags.js';

/** The headings of the sections in the defaults block. */
const SECTION_TITLES: Readonly<Record<TrainSection, string>> = {
  run: 'Run',
  selfPlay: 'Self-play search and recording',
  evaluation: 'Evaluation',
  training: 'Training',
  network: 'Network',
  inference: 'Inference',
};

/** Flags that mean something only under hidden information, left out of a perfect-information game's defaults. */
const HIDDEN_INFORMATION_ONLY = new Set(['determinizations', 'leaf-values', 'self-play-search']);

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

function valueText(value: unknown): string {
  if (typeof value === 'object' && value !== null && 'kind' in value) return networkText(value as NetworkSpec);
  if (typeof value === 'object' && value !== null) return Object.keys(value).length ? JSON.stringify(value) : "the game's";
  return String(value);
}

/** What a setting is when its flag is left out, in words where its value alone would mislead. */
function defaultText(row: SettingFlag, resolved: TrainOptions, plugin: GamePlugin | undefined): string {
  const setting = settingOf(row.path) as keyof TrainOptions;
  switch (row.flag) {
    case 'temperature-moves':
      if (!plugin) return "a quarter of the game's longest game, at most 30";
      break;
    case 'out':
      return plugin ? resolved.out : 'runs/<game>';
    case 'resume':
      return 'none (a new run)';
    case 'force':
      return 'off';
    case 'time-limit':
      return 'none';
    case 'threads':
      return 'the cores available';
    case 'reduced-sims':
      if (!plugin) return '--sims / 8';
      break;
    case 'eval-sims':
      if (!plugin) return '--sims';
      break;
    case 'lr-final':
      return '--lr / 10';
  }
  return valueText(resolved[setting]);
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
  // --backend fills two settings from one value: it is shown once, as given.
  const shown = TRAIN_SETTING_FLAGS.filter((row) => row.path !== 'inference.inferenceBackend' && (!plugin || plugin.traits.information === 'imperfect' || !HIDDEN_INFORMATION_ONLY.has(row.flag)));
  const width = Math.max(...shown.map((row) => row.flag.length)) + 4;
  const lines: string[] = [
    plugin
      ? `Defaults for --game ${plugin.traits.id} (its training hints over the framework's; a flag overrides either):`
      : "Framework defaults (a game's training hints replace some: az train --game ID --help shows that game's; a flag overrides either):",
  ];
  for (const section of Object.keys(SECTION_TITLES) as TrainSection[]) {
    const rows = shown.filter((row) => row.path.startsWith(`${section}.`));
    if (rows.length === 0) continue;
    lines.push(` ${SECTION_TITLES[section]}:`);
    for (const row of rows) {
      const value = row.flag === 'backend' ? 'auto' : defaultText(row, resolved, plugin);
      lines.push(`  ${`--${row.flag}`.padEnd(width)}${value}`);
    }
  }
  return lines.join('\n');
}
