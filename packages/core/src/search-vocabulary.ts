// The words search settings are made of (leaf values, search method, world sampling) and how a trained
// model plays for real: shared by a game's hints, the trainer and the CLI, apart from the contract.

/**
 * How search values the leaves of an imperfect-information game: a uniformly random playout of the
 * sampled world ('playouts'), the network on its full state ('world'), or a playout in which every
 * seat plays the network's top move from its own view ('policy-playouts').
 */
export type LeafValues = 'playouts' | 'world' | 'policy-playouts';

/** The leaf values of a search neither the player nor the game names (the search's own default). */
export const DEFAULT_LEAF_VALUES: LeafValues = 'playouts';

/**
 * How an imperfect-information game is searched: 'determinized' (D trees per move, one per sampled
 * world) or 'information-set' (one tree over the mover's information sets, a world per simulation).
 */
export type SearchMethod = 'determinized' | 'information-set';

/**
 * How information-set search draws its worlds: 'uniform' (the determinizer's samples, consistent with
 * the mover's view) or 'inferred' (a pool weighed by how likely a model of the players makes the other
 * seats' earlier decisions, `Game.pastDecisions`).
 */
export type WorldSampling = 'uniform' | 'inferred';

/** How a trained model plays for real, from the game's hints; each field is undefined where the game is silent. */
export interface PlaySettings {
  /** How search values leaves (`playLeafValues`, else `leafValues`). */
  readonly leafValues?: LeafValues;
  /** The share of a random playout in a leaf's value with `leafValues` (`playPlayoutWeight`). */
  readonly playoutWeight?: number;
  /** The search it plays with (`playSearchMethod`). */
  readonly searchMethod?: SearchMethod;
  /** How information-set search draws its worlds (`playWorldSampling`). */
  readonly worldSampling?: WorldSampling;
  /** The factor on the network's value estimates in the search (`playValueScale`). */
  readonly valueScale?: number;
}

/**
 * The game's playout share (`PlaySettings.playoutWeight`) for a player searching with `leafValues`: the
 * hint goes with the game's own play leaf values (unset on either side meaning `DEFAULT_LEAF_VALUES`), never with
 * policy playouts; other leaf values get undefined, i.e. their own default. One rule for the CLI's agents
 * and the trainer's evaluation games.
 */
export function gamePlayoutWeightFor(play: PlaySettings, leafValues: LeafValues | undefined): number | undefined {
  const used = leafValues ?? DEFAULT_LEAF_VALUES;
  return used === (play.leafValues ?? DEFAULT_LEAF_VALUES) && used !== 'policy-playouts' ? play.playoutWeight : undefined;
}
