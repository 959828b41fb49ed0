/**
 * Finding the trained model for a game and config when the user names none (`az play --game blob
 * --players 5`): the run directories one level below a models folder (default `runs`, where `az
 * train` writes), each judged by its newest checkpoint's manifest. A run fits when it is of the same
 * game and was trained with exactly the config asked for (or, for a game whose models play parts of it,
 * the part's config: Blob's whole game is played by a model of `rounds=sampled`), on every setting the
 * network depends on (those not marked `modelIndependent`), except a setting of the network's input alone
 * (`inputOnly`: chess's `history`) that the user did not ask for, whose every value plays the same game;
 * among fitting runs the most recently written wins.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ownValue, resolveGameConfig, type GamePlugin } from '@az/core';
import { listCheckpoints, readCheckpointManifest } from '@az/nn';
import { modelBoundSettings, trainedConfigFor } from './agents.js';

export interface ModelCandidate {
  /** The run directory. */
  readonly dir: string;
  /** Why it does not fit (undefined when it does). */
  readonly mismatch?: string;
}

export interface ModelSearch {
  /** The fitting run, newest first, if any. */
  readonly found?: string;
  /** Every run of this game looked at (fitting or not), for the message when none fits. */
  readonly candidates: readonly ModelCandidate[];
  /**
   * The `--config` of an `az train` that makes a model for this config: the settings asked for and those
   * the game's training hints would otherwise change (Blob trains single rounds unless told otherwise).
   */
  readonly trainConfig: string;
}

function modelBound(plugin: GamePlugin, config: Readonly<Record<string, unknown>>): Record<string, string> {
  return Object.fromEntries(Object.entries(modelBoundSettings(plugin, config)).map(([key, value]) => [key, String(value)]));
}

export async function findModel(plugin: GamePlugin, rawConfig: Readonly<Record<string, unknown>>, modelsDir: string): Promise<ModelSearch> {
  // A model trained on parts of the game (Blob: single rounds for a whole game) plays the whole.
  const resolved = trainedConfigFor(plugin, resolveGameConfig(plugin, rawConfig));
  const wanted = modelBound(plugin, resolved);
  // The user's settings, and the hint's where the model needs another value than the hint would set
  // (settings the network does not depend on are left to the hint).
  // A model plays every value of a model-independent setting (chess's starting position), so those are
  // not part of what to train; nor is an input-only setting the user left to the model.
  const schema = plugin.configSchema;
  const leftToModel = (k: string): boolean => ownValue(schema, k)?.inputOnly === true && !Object.hasOwn(rawConfig, k);
  const hint = plugin.training?.gameConfig ?? {};
  const hintKeys = Object.keys(hint).filter((k) => !ownValue(schema, k)?.modelIndependent && !leftToModel(k) && String(hint[k]) !== String(resolved[k]));
  const trainKeys = [...new Set([...Object.keys(rawConfig), ...hintKeys])].filter((k) => Object.hasOwn(resolved, k) && !ownValue(schema, k)?.modelIndependent);
  const trainConfig = trainKeys.map((k) => `${k}=${String(resolved[k])}`).join(',');
  let names: string[];
  try {
    names = readdirSync(modelsDir);
  } catch {
    return { candidates: [], trainConfig };
  }
  const fitting: { dir: string; time: number }[] = [];
  const candidates: ModelCandidate[] = [];
  for (const name of names.sort()) {
    const dir = join(modelsDir, name);
    const newest = listCheckpoints(dir).at(-1);
    if (!newest) continue;
    let trained: Record<string, string>;
    try {
      const manifest = await readCheckpointManifest(newest.dir, { gameId: plugin.traits.id });
      trained = modelBound(plugin, manifest.gameConfig);
    } catch {
      continue; // another game's run, or a damaged one: az play --model DIR names the problem
    }
    const keys = [...new Set([...Object.keys(wanted), ...Object.keys(trained)])].sort();
    const differing = keys.filter((k) => wanted[k] !== trained[k] && !leftToModel(k));
    if (differing.length === 0) {
      fitting.push({ dir, time: statSync(newest.dir).mtimeMs });
      candidates.push({ dir });
    } else {
      candidates.push({ dir, mismatch: differing.map((k) => `${k}=${trained[k] ?? '(unset)'} where ${wanted[k] ?? '(unset)'} is asked`).join(', ') });
    }
  }
  fitting.sort((a, b) => b.time - a.time);
  return { found: fitting[0]?.dir, candidates, trainConfig };
}
