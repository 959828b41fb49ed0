// How well leaf estimators order the mover's legal moves in Blob's card play: what a search reads
// values for (packages/game-blob/README.md, "Why the network's value does not carry the search yet").
// Positions: 4-player rounds of 5 cards played by four heuristic bots; one card-play decision with two
// or more legal moves drawn uniformly per round; its TRUE full state (a world the search could sample).
// For each legal move, the child's value for the mover by each estimator: one random playout, the mean
// of 8, and with BLOB_ORDERING_MODEL the network's world value (world encoder, from the child's mover).
// References: the mean of 16 playouts by four heuristic bots (H) and of 64 random playouts (R). Each
// position's values are centred over its children (only differences between siblings count) and pooled;
// the figure is the Pearson correlation of each estimator with each reference.
// Env: BLOB_ORDERING_MODEL (a 4-player single-round Blob run or checkpoint; without it, the playout rows
// only), BLOB_ORDERING_POSITIONS (default 3000), BLOB_ORDERING_SEED (default 3).
import { Rng, randomPlayoutReturns, validateConfig } from '@az/core';
import { BlobGame, PHASE_PLAY, blobConfigSchema, heuristicAction } from '@az/game-blob';
import { openCheckpointInference, resolveCheckpointPath } from '@az/nn';
import { writeResult } from '@az/bench';

const MODEL = process.env.BLOB_ORDERING_MODEL;
const POSITIONS = Number(process.env.BLOB_ORDERING_POSITIONS ?? 3000);
const SEED = Number(process.env.BLOB_ORDERING_SEED ?? 3);
const GAME_CONFIG = { players: 4, rounds: 'one', roundCards: 5 };
const game = new BlobGame(validateConfig(blobConfigSchema, GAME_CONFIG));
const P = game.numPlayers;
const A = game.masker.actionSize;
const E = game.encoder.size;
const rng = new Rng(SEED);
const mask = new Uint8Array(A);
const scratchMask = new Uint8Array(A);

let network = null;
if (MODEL) {
  const { manifest, inference } = await openCheckpointInference(resolveCheckpointPath(MODEL).checkpointDir, { engine: 'auto', threads: 1, expect: { gameId: 'blob' } });
  for (const [key, value] of Object.entries(GAME_CONFIG)) {
    if (manifest.gameConfig[key] !== value) throw new Error(`${MODEL} was trained with ${key}=${manifest.gameConfig[key]}; this benchmark needs ${key}=${value}`);
  }
  if (manifest.encoderVersion !== game.encoder.version) throw new Error(`${MODEL} was trained with encoder ${manifest.encoderVersion}, this Blob encodes as ${game.encoder.version}`);
  network = inference;
}

function legalActions(state) {
  game.masker.fillMask(state, mask, 0);
  const out = [];
  for (let a = 0; a < A; a++) if (mask[a]) out.push(a);
  return out;
}

/** Mean of `k` playouts from `state`, the mover `seat`'s return, each move by `policy`. */
function playoutMean(state, seat, k, policy) {
  if (game.isTerminal(state)) return game.returns(state)[seat];
  let total = 0;
  for (let i = 0; i < k; i++) {
    if (policy === 'random') total += randomPlayoutReturns(game, state, rng, scratchMask)[seat];
    else {
      const s = game.clone(state);
      while (!game.isTerminal(s)) game.applyAction(s, heuristicAction(game.rules, s, scratchMask), rng);
      total += game.returns(s)[seat];
    }
  }
  return total / k;
}

/** The network's world value of each child for `seat` (rows are from each child's mover: rotate). */
async function worldValues(children, seat) {
  const inputs = new Float32Array(children.length * E);
  const movers = children.map((c) => game.currentPlayer(c));
  children.forEach((c, i) => game.worldEncoder.encode(c, movers[i], inputs, i * E));
  const logits = new Float32Array(children.length * A);
  const values = new Float32Array(children.length * P);
  await network.predict(inputs, children.length, logits, values);
  return children.map((c, i) => (game.isTerminal(c) ? game.returns(c)[seat] : values[i * P + ((seat - movers[i] + P) % P)]));
}

const centred = (xs) => {
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  return xs.map((x) => x - mean);
};
function correlation(x, y) {
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < x.length; i++) {
    sxy += x[i] * y[i];
    sxx += x[i] * x[i];
    syy += y[i] * y[i];
  }
  return sxy / Math.sqrt(sxx * syy);
}

const started = performance.now();
const estimators = { 'one random playout': [], 'mean of 8 random playouts': [], ...(network ? { 'network world value': [] } : {}) };
const references = { 'heuristic play-outs (16)': [], 'random playouts (64)': [] };
let positions = 0;
let children = 0;
while (positions < POSITIONS) {
  const state = game.initialState(rng);
  const decisions = [];
  while (!game.isTerminal(state)) {
    if (state.phase === PHASE_PLAY && legalActions(state).length >= 2) decisions.push(game.clone(state));
    game.applyAction(state, heuristicAction(game.rules, state, mask), rng);
  }
  if (decisions.length === 0) continue;
  const root = decisions[rng.int(decisions.length)];
  const seat = game.currentPlayer(root);
  const kids = legalActions(root).map((a) => {
    const child = game.clone(root);
    game.applyAction(child, a, rng);
    return child;
  });
  const add = (into, values) => into.push(...centred(values));
  add(estimators['one random playout'], kids.map((c) => playoutMean(c, seat, 1, 'random')));
  add(estimators['mean of 8 random playouts'], kids.map((c) => playoutMean(c, seat, 8, 'random')));
  if (network) add(estimators['network world value'], await worldValues(kids, seat));
  add(references['heuristic play-outs (16)'], kids.map((c) => playoutMean(c, seat, 16, 'heuristic')));
  add(references['random playouts (64)'], kids.map((c) => playoutMean(c, seat, 64, 'random')));
  positions++;
  children += kids.length;
}
const results = [];
for (const [estimator, values] of Object.entries(estimators)) {
  const row = { estimator };
  for (const [reference, ref] of Object.entries(references)) row[`centred correlation with ${reference}`] = +correlation(values, ref).toFixed(3);
  results.push(row);
}
network?.dispose();
writeResult('blob-value-ordering', { game: 'blob', gameConfig: GAME_CONFIG, model: MODEL ?? null, positions, children, seed: SEED, seconds: +((performance.now() - started) / 1000).toFixed(1) }, results);
