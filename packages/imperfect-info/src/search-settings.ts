import { DEFAULT_LEAF_VALUES, type GameTraits, type LeafValues, type SearchMethod, type TrainingHints, type WorldSampling } from '@az/core';
import { defaultSearchConfig, nodeCapacityFor, playSearchConfig, type SearchConfig } from '@az/mcts';
import { DEFAULT_OTHER_SEAT_MOVES, DEFAULT_OTHER_SEAT_PRIORS, type OtherSeatMoves, type OtherSeatPriors } from './ismcts.js';
import type { WorldPriors } from './world-evaluator.js';

/** The default number of worlds per slot when neither the user nor the game says otherwise. */
export const DEFAULT_DETERMINIZATIONS = 3;

/** The default share of a random playout in a leaf's value: values from playouts, priors from the network. */
export const DEFAULT_PLAYOUT_WEIGHT = 1;

/**
 * How a hidden-information search values its leaves when a network is at hand (without one, the
 * evaluator given is used as it is). `playoutWeight` is the share w of one random playout of the
 * sampled world in the value, `(1 - w) * network + w * playout`.
 * - 'playouts': the network's value from the mover's view, mixed with a playout (w = 1: playouts only).
 * - 'own-view': each seat's network value from its own view (`OwnViewNetworkEvaluator`, P rows a leaf).
 * - 'world': the network reading the sampled world's full state (`WorldNetworkEvaluator`).
 * - 'policy-playouts': one playout in which every seat plays the network's top move from its own view
 *   (`PolicyPlayoutEvaluator`); it replaces the random playout, so it has no share.
 */
export type LeafValueSource =
  | { readonly kind: 'playouts'; readonly playoutWeight: number }
  | { readonly kind: 'own-view'; readonly playoutWeight: number }
  | { readonly kind: 'world'; readonly playoutWeight: number; readonly priors: WorldPriors }
  | { readonly kind: 'policy-playouts' };

/** How an imperfect-information game is searched; perfect-information games ignore it. */
export interface HiddenInformationSearch {
  /** 'determinized': D trees per slot; 'information-set': one tree, D x simulations, a world each. */
  readonly method: SearchMethod;
  /** Worlds per slot (determinized), or the multiple of `simulations` an information-set tree runs. */
  readonly determinizations: number;
  readonly leafValues: LeafValueSource;
  /** Information-set search with a network: 'inferred' weighs worlds by the other seats' past decisions. */
  readonly worldSampling: WorldSampling;
  /** Information-set search: priors at the other seats' nodes. */
  readonly otherSeatPriors: OtherSeatPriors;
  /** Information-set search: how the other seats move in the tree ('policy' needs a network). */
  readonly otherSeatMoves: OtherSeatMoves;
}

/** One search, fully resolved: what `createSearchEngine` builds from. */
export interface SearchSettings {
  /** The tree search's settings, every field set (`nodeCapacity` by `nodeCapacityFor` unless given). */
  readonly tree: SearchConfig;
  readonly hidden: HiddenInformationSearch;
}

/** What a user (flags) or a game (hints) may say about a search; every field may be left open. */
export interface SearchChoices {
  readonly tree?: Partial<SearchConfig>;
  readonly determinizations?: number;
  readonly method?: SearchMethod;
  readonly leafValues?: LeafValues;
  /** The share of a random playout; a game's share goes with the game's own leaf values only. */
  readonly playoutWeight?: number;
  readonly worldSampling?: WorldSampling;
  readonly otherSeatPriors?: OtherSeatPriors;
  readonly otherSeatMoves?: OtherSeatMoves;
}

/** A game's side of a search: which game (its checks name it), and what its hints ask for. */
export interface GameSearchHints extends SearchChoices {
  readonly game: Pick<GameTraits, 'id' | 'information'>;
}

/** A combination of search settings that cannot be searched; the message names the flags to change. */
export class SearchSettingsError extends RangeError {
  override readonly name = 'SearchSettingsError';
}

/**
 * How a trained model plays for real (`az play`/`eval`/`serve`, the trainer's evaluation games), as the
 * game's hints ask: its play leaf values (else its self-play ones), playout share, search, world sampling
 * and value scale, with the play search's fixed settings (no root noise, results proven).
 */
export function playSearchHints(game: { readonly traits: Pick<GameTraits, 'id' | 'information'>; readonly training?: TrainingHints }): GameSearchHints {
  const hints = game.training;
  return {
    game: game.traits,
    tree: { ...playSearchConfig, networkValueScale: hints?.playValueScale },
    determinizations: hints?.determinizations,
    method: hints?.playSearchMethod,
    leafValues: hints?.playLeafValues ?? hints?.leafValues,
    playoutWeight: hints?.playPlayoutWeight,
    worldSampling: hints?.playWorldSampling,
  };
}

/**
 * One search's settings: the user's choices over the game's hints over the defaults, checked once.
 * Leaf values and their playout share resolve together: the game's share applies only when the leaf
 * values used are the game's own (a user who picks others gets that kind's default share).
 */
export function resolveSearchSettings(gameHints: GameSearchHints, user: SearchChoices): SearchSettings {
  const tree: SearchConfig = { ...defaultSearchConfig, ...definedFields(gameHints.tree), ...definedFields(user.tree) };
  const nodeCapacity = user.tree?.nodeCapacity ?? gameHints.tree?.nodeCapacity ?? nodeCapacityFor(tree.simulations);
  const method = user.method ?? gameHints.method ?? 'determinized';
  const leafValues = user.leafValues ?? gameHints.leafValues ?? DEFAULT_LEAF_VALUES;
  const hidden: HiddenInformationSearch = {
    method,
    determinizations: user.determinizations ?? gameHints.determinizations ?? DEFAULT_DETERMINIZATIONS,
    leafValues: leafValueSource(leafValues, user.playoutWeight ?? gamePlayoutShare(gameHints, leafValues)),
    worldSampling: user.worldSampling ?? gameHints.worldSampling ?? 'uniform',
    otherSeatPriors: user.otherSeatPriors ?? gameHints.otherSeatPriors ?? DEFAULT_OTHER_SEAT_PRIORS,
    otherSeatMoves: user.otherSeatMoves ?? gameHints.otherSeatMoves ?? DEFAULT_OTHER_SEAT_MOVES,
  };
  checkUserChoices(gameHints.game, user, hidden);
  return { tree: { ...tree, nodeCapacity }, hidden };
}

/**
 * The game's playout share for a search with `leafValues`: the game's share goes with the game's own
 * leaf values (unset meaning `DEFAULT_LEAF_VALUES`) only, never with policy playouts (which replace the
 * random playout); other leaf values get undefined, their kind's default.
 */
export function gamePlayoutShare(game: Pick<SearchChoices, 'leafValues' | 'playoutWeight'>, leafValues: LeafValues): number | undefined {
  return leafValues === (game.leafValues ?? DEFAULT_LEAF_VALUES) && leafValues !== 'policy-playouts' ? game.playoutWeight : undefined;
}

/** The leaf values named `leafValues`, with the playout share given, else that kind's default (0 for world values). */
export function leafValueSource(leafValues: LeafValues, playoutWeight: number | undefined): LeafValueSource {
  switch (leafValues) {
    case 'policy-playouts':
      return { kind: 'policy-playouts' };
    case 'world':
      return { kind: 'world', playoutWeight: playoutWeight ?? 0, priors: 'own-view' };
    case 'playouts':
      return { kind: 'playouts', playoutWeight: playoutWeight ?? DEFAULT_PLAYOUT_WEIGHT };
  }
}

/**
 * The user's choices that cannot apply to the search they resolve to, refused naming the flags. Only the
 * user's: a game's play hint the user's search does not use (inferred worlds under determinized search)
 * is simply not used.
 */
function checkUserChoices(game: GameSearchHints['game'], user: SearchChoices, hidden: HiddenInformationSearch): void {
  const searched = game.information === 'imperfect' ? hidden.method : 'perfect-information search';
  const requireInformationSet = (flag: string): void => {
    if (searched !== 'information-set') throw new SearchSettingsError(`${flag} needs information-set search (${game.id} plays ${searched} here; add --search information-set)`);
  };
  if (user.worldSampling === 'inferred') requireInformationSet('--worlds inferred');
  if (user.otherSeatPriors !== undefined) requireInformationSet('--other-seat-priors');
  if (user.otherSeatMoves !== undefined) requireInformationSet('--other-seat-moves');
  if (user.playoutWeight !== undefined && hidden.leafValues.kind === 'policy-playouts') {
    throw new SearchSettingsError('--playout-weight mixes in a random playout, which --leaf-values policy-playouts replaces: give one of the two');
  }
  if (user.otherSeatMoves === 'policy' && user.otherSeatPriors !== undefined && user.otherSeatPriors !== DEFAULT_OTHER_SEAT_PRIORS) {
    throw new SearchSettingsError(`--other-seat-priors ${user.otherSeatPriors} has no effect with --other-seat-moves policy (the other seats then move by the network's policy, not by priors at their nodes): give one of the two`);
  }
}

/** `fields` without its undefined entries, so spreading it leaves earlier values in place. */
function definedFields<T extends object>(fields: T | undefined): Partial<T> {
  return Object.fromEntries(Object.entries(fields ?? {}).filter(([, value]) => value !== undefined)) as Partial<T>;
}
