// The self-play evaluation cache (--eval-cache) belongs to one weights version: it must empty when the
// engine moves to new weights, whatever the engine. The tfjs engine runs the model itself, so nothing
// about the engine object changes on new weights but its version.
import { beforeAll, describe, expect, it } from 'vitest';
import { Rng, resolveGameConfig, type GamePlugin, type NetworkConfig } from '@az/core';
import { ticTacToePlugin } from '@az/game-tictactoe';
import { NetworkEvaluator, type LeafBatch } from '@az/mcts';
import { buildModel, initBackend, loadWeightsInto, openInferenceEngine, serializeWeights } from '@az/nn';
import { resolveTrainOptions } from './options.js';
import { selfPlayEvaluationCache } from './search-settings.js';

const tictactoe = ticTacToePlugin as GamePlugin;
const game = ticTacToePlugin.create(resolveGameConfig(tictactoe, {}));
type State = ReturnType<typeof game.initialState>;
const opening = game.initialState(new Rng(1));
const config: NetworkConfig = { spec: { kind: 'mlp', hidden: [8] }, inputShape: game.encoder.shape, actionSize: game.masker.actionSize, numSeats: game.numPlayers };

/** One leaf, the opening position, as the search would hand it over. */
function openingBatch(): LeafBatch<State> {
  const state = opening;
  const inputs = new Float32Array(game.encoder.size);
  game.encoder.encode(state, 0, inputs, 0);
  return {
    count: 1,
    actionSize: game.masker.actionSize,
    numSeats: game.numPlayers,
    states: [state],
    perspectives: Int32Array.of(0),
    inputs,
    masks: new Uint8Array(game.masker.actionSize),
    policyLogits: new Float32Array(game.masker.actionSize),
    values: new Float32Array(game.numPlayers),
  };
}

describe('selfPlayEvaluationCache', () => {
  beforeAll(async () => {
    await initBackend('cpu');
  });

  it('is off without --eval-cache', async () => {
    const model = buildModel(config, { seed: 1 });
    const engine = await openInferenceEngine(model, config, { engine: 'tfjs', ownsModel: true });
    const options = resolveTrainOptions({ game: 'tictactoe', evalCacheSize: 0 }, tictactoe);
    expect(selfPlayEvaluationCache(game, new NetworkEvaluator(engine), options, engine)).toBeUndefined();
    engine.dispose();
  });

  it('answers from the new weights once the tfjs engine is refreshed to a new version', async () => {
    const model = buildModel(config, { seed: 1 });
    const other = buildModel(config, { seed: 2 });
    const engine = await openInferenceEngine(model, config, { engine: 'tfjs', ownsModel: true });
    const options = resolveTrainOptions({ game: 'tictactoe', evalCacheSize: 100 }, tictactoe);
    const cache = selfPlayEvaluationCache(game, new NetworkEvaluator(engine), options, engine)!;
    const first = openingBatch();
    await cache.evaluate(first);
    // New weights arrive (as in a self-play worker: loaded into the model, then the engine refreshed).
    loadWeightsInto(model, serializeWeights(other));
    await engine.refresh(1);
    const cached = openingBatch();
    await cache.evaluate(cached);
    const direct = openingBatch();
    await new NetworkEvaluator(engine).evaluate(direct);
    expect(direct.policyLogits).not.toEqual(first.policyLogits);
    expect(cached.policyLogits).toEqual(direct.policyLogits);
    expect(cache.stats).toEqual({ lookups: 2, hits: 0 });
    engine.dispose();
    other.dispose();
  });
});
