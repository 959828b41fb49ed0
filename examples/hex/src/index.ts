// The public surface of az-game-hex. az finds the plugin through package.json ("az": { "gamePlugin" }).
export { hexPlugin, ShortestPathAgent } from './plugin.js';
export { HEX_CONFIG, HEX_TRAITS, HexGame, rulesOf } from './game.js';
export { HexEncoder, HexMasker, PLANES, hexSymmetries } from './encoding.js';
export type { HexRules, HexState } from './rules.js';
