/**
 * `Determinizer<S>` lives in @az/core since `Game.determinizer` refers to it; it is re-exported here
 * so code that imported it from @az/imperfect-info keeps working.
 */
export type { Determinizer } from '@az/core';
