// Network throughput on the tfjs backends: inference positions/s by batch size and training positions/s
// per Adam step, for the tic-tac-toe MLP (wasm and cpu) and the chess-sized ResNet (wasm only: the cpu
// backend manages ~13 chess positions/s). Runs in about a minute on 2 cores. Needs `npm run build` first.
import { Rng } from '@az/core';
import { buildModel, countParameters, createInferenceModel, initBackend, NetworkTrainer, tf } from '../dist/index.js';
import { timeIt, writeResult } from '@az/bench';

const NETS = {
  'tictactoe-mlp': { spec: { kind: 'mlp', hidden: [64, 64] }, inputShape: [27], actionSize: 9, numSeats: 2 },
  'chess-resnet': { spec: { kind: 'resnet', filters: 64, blocks: 4 }, inputShape: [8, 8, 20], actionSize: 4672, numSeats: 2 },
};
const PLAN = {
  inference: [
    { net: 'tictactoe-mlp', backend: 'wasm', batches: [1, 16, 64, 256, 1024], minMs: 1000 },
    { net: 'tictactoe-mlp', backend: 'cpu', batches: [1, 16, 64, 256, 1024], minMs: 1000 },
    // A chess call at batch 1024 takes seconds: one timed call is enough there.
    { net: 'chess-resnet', backend: 'wasm', batches: [1, 16, 64, 256, 1024], minMs: 2000 },
  ],
  training: [
    { net: 'tictactoe-mlp', backend: 'wasm', batches: [256], minMs: 2000 },
    { net: 'chess-resnet', backend: 'wasm', batches: [64, 256], minMs: 4000 },
  ],
};
const SEED = 1;

const size = (shape) => shape.reduce((a, b) => a * b, 1);
const rng = new Rng(SEED);
const randomInputs = (config, count) => new Float32Array(count * size(config.inputShape)).map(() => (rng.next() < 0.3 ? 1 : 0));

const results = { inference: {}, training: {} };
const models = {};
const backendsSeen = {};

async function modelOn(netName, backend) {
  const info = await initBackend(backend);
  backendsSeen[backend] = info.tfBackend;
  // Weights follow the active backend lazily; building once per net keeps figures comparable.
  models[netName] ??= buildModel(NETS[netName], { seed: SEED });
  return models[netName];
}

for (const { net, backend, batches, minMs } of PLAN.inference) {
  const config = NETS[net];
  const inference = createInferenceModel(await modelOn(net, backend), config, { ownsModel: false });
  const perBatch = {};
  for (const batch of batches) {
    const input = randomInputs(config, batch);
    const policy = new Float32Array(batch * config.actionSize);
    const value = new Float32Array(batch * config.numSeats);
    // Warm-up: the first calls build wasm operators and get tfjs's JS paths optimised by V8; without it
    // small batches measure several times slower.
    const call = () => inference.predict(input, batch, policy, value);
    const slow = batch >= 1024 && net === 'chess-resnet';
    await timeIt(call, slow ? 1 : minMs / 2);
    const t = await timeIt(call, slow ? 1 : minMs);
    perBatch[batch] = Math.round(t.perSecond * batch);
    console.log(`inference ${net} ${backend} batch ${batch}: ${perBatch[batch]} positions/s (${t.iterations} calls)`);
  }
  inference.dispose();
  (results.inference[net] ??= {})[backend] = perBatch;
}

for (const { net, backend, batches, minMs } of PLAN.training) {
  const config = NETS[net];
  const model = await modelOn(net, backend);
  const trainer = new NetworkTrainer(model, config, { learningRate: 1e-3, weightDecay: 1e-4 });
  const perBatch = {};
  for (const batch of batches) {
    const inputs = randomInputs(config, batch);
    const policyTargets = new Float32Array(batch * config.actionSize);
    for (let i = 0; i < batch; i++) rng.dirichlet(0.3, policyTargets.subarray(i * config.actionSize, (i + 1) * config.actionSize));
    const valueTargets = new Float32Array(batch * config.numSeats).map(() => rng.next() * 2 - 1);
    const step = () => trainer.trainBatch(inputs, policyTargets, valueTargets, batch);
    await timeIt(step, config.spec.kind === 'mlp' ? minMs / 4 : 1); // warm-up (one step is seconds for chess)
    const t = await timeIt(step, minMs);
    perBatch[batch] = Math.round(t.perSecond * batch * 10) / 10;
    console.log(
      `training ${net} ${backend} batch ${batch}: ${perBatch[batch]} positions/s (${t.iterations} steps, ${Math.round(t.ms / t.iterations)} ms/step)`
    );
  }
  trainer.dispose();
  (results.training[net] ??= {})[backend] = perBatch;
}

const nets = Object.fromEntries(Object.entries(NETS).map(([name, config]) => [name, { ...config, parameters: countParameters(models[name]) }]));
writeResult(
  'core-backend',
  {
    nets,
    plan: PLAN,
    units: 'positions per second (inference: by batch size; training: by batch size, Adam, weight decay 1e-4)',
    tfjs: tf.version_core,
    backends: backendsSeen,
    wasmSimd: tf.env().getBool('WASM_HAS_SIMD_SUPPORT'),
    wasmThreads: tf.env().getBool('WASM_HAS_MULTITHREAD_SUPPORT'),
    seed: SEED,
  },
  results
);
for (const model of Object.values(models)) model.dispose();
