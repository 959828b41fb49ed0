// Per-call cost of the operations self-play runs at every tree node: clone, applyAction, fillMask (first
// call on a new state, which generates the legal moves and checks for the end of the game; and a repeat
// call, served from the cache) and encode (history 2, perspective = side to move), in microseconds, on
// positions sampled from seeded random games.
import { Rng, randomLegalAction, validateConfig } from '@az/core';
import { writeResult } from '@az/bench';
import { chessPlugin } from '../dist/index.js';

const game = chessPlugin.create(chessPlugin.finalizeConfig(validateConfig(chessPlugin.configSchema, {})));
const rng = new Rng(42);
const mask = new Uint8Array(game.masker.actionSize);
const input = new Float32Array(game.encoder.size);

// Positions every 4th ply of 40 random games, each with one random legal move to play from it.
const positions = [];
const actions = [];
for (let g = 0; g < 40; g++) {
  const state = game.initialState(rng);
  for (let ply = 0; !game.isTerminal(state); ply++) {
    const action = randomLegalAction(game, state, rng, mask);
    if (ply % 4 === 0) {
      positions.push(game.clone(state));
      actions.push(action);
    }
    game.applyAction(state, action, rng);
  }
}
const n = positions.length;

/** Best of `rounds` timings of `run` over all positions (min: the machine is shared), in µs per call. */
function measure(prepare, run, rounds = 15) {
  let best = Infinity;
  for (let r = 0; r < rounds; r++) {
    const inputs = prepare();
    const start = performance.now();
    run(inputs);
    best = Math.min(best, performance.now() - start);
  }
  return Number(((best * 1000) / n).toFixed(2));
}
const children = () => positions.map((p, i) => {
  const child = game.clone(p);
  game.applyAction(child, actions[i], rng);
  return child;
});
const clones = () => positions.map((p) => game.clone(p));

const results = {
  positions: n,
  cloneMicros: measure(() => positions, (states) => { for (const s of states) game.clone(s); }),
  applyActionMicros: measure(clones, (states) => { for (let i = 0; i < n; i++) game.applyAction(states[i], actions[i], rng); }),
  fillMaskFirstCallMicros: measure(children, (states) => { for (const s of states) game.masker.fillMask(s, mask, 0); }),
  fillMaskCachedMicros: measure(() => positions, (states) => { for (const s of states) game.masker.fillMask(s, mask, 0); }),
  encodeMicros: measure(children, (states) => { for (const s of states) game.encoder.encode(s, game.currentPlayer(s), input, 0); }),
  isTerminalCachedMicros: measure(() => positions, (states) => { for (const s of states) game.isTerminal(s); }),
};
results.nodeTotalMicros = Number((results.cloneMicros + results.applyActionMicros + results.fillMaskFirstCallMicros + results.encodeMicros).toFixed(2));
writeResult('game-chess-ops', { history: 2, sampledFrom: '40 random games, every 4th ply', timing: 'best of 15 rounds' }, results);
