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
