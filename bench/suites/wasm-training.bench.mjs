// Training steps on tfjs wasm (the embedded training backend; one core): ms per Adam step of batch 256
// for Connect Four's default network (resnet 32x2 on 6x7x3), with our Sum/Mean over leading axes
// (batch norm's statistics and gradients) against the shipped kernels, in alternating rounds of one
// process. Also the per-kernel time of Sum and Mean in one profiled step of each.
//
//   node bench/suites/wasm-training.bench.mjs
import os from 'node:os';
import { Rng } from '@az/core';
import { NetworkTrainer, buildModel, initBackend, setFastWasmReductions, tf } from '@az/nn';
import { writeResult } from '@az/bench';

const load = () => os.loadavg().map((x) => +x.toFixed(2));
await initBackend('wasm');
const network = { spec: { kind: 'resnet', filters: 32, blocks: 2 }, inputShape: [6, 7, 3], actionSize: 7, numSeats: 2 };
const B = 256;
const rounds = Number(process.env.BENCH_ROUNDS ?? 4);
const steps = Number(process.env.BENCH_STEPS ?? 20);
const config = { network: 'Connect Four default, resnet 32x2 on 6x7x3', batch: B, rounds, stepsPerRound: steps, loadavgAtStart: load() };

const rng = new Rng(7);
const inputs = Float32Array.from({ length: B * 126 }, () => (rng.next() < 0.3 ? 1 : 0));
const policy = new Float32Array(B * 7).fill(1 / 7);
const values = Float32Array.from({ length: B * 2 }, () => rng.next() * 2 - 1);
const legal = new Float32Array(B * 7).fill(1);
const model = buildModel(network, { seed: 1 });
const trainer = new NetworkTrainer(model, network, {});

function msPerStep() {
  for (let i = 0; i < 3; i++) trainer.trainBatch(inputs, policy, values, B, legal);
  const t = performance.now();
  for (let i = 0; i < steps; i++) trainer.trainBatch(inputs, policy, values, B, legal);
  return (performance.now() - t) / steps;
}
async function reductionKernelMs() {
  const info = await tf.profile(() => void trainer.trainBatch(inputs, policy, values, B, legal));
  let sum = 0;
  for (const k of info.kernels) if ((k.name === 'Sum' || k.name === 'Mean') && typeof k.kernelTimeMs === 'number') sum += k.kernelTimeMs;
  return +sum.toFixed(2);
}

const ours = [];
const shipped = [];
for (let r = 0; r < rounds; r++) {
  // Alternate which goes first, so drift in the machine's load falls on both.
  for (const fast of r % 2 === 0 ? [true, false] : [false, true]) {
    setFastWasmReductions(fast);
    (fast ? ours : shipped).push(+msPerStep().toFixed(1));
  }
  console.error(`[bench wasm-training] round ${r}: ours ${ours.at(-1)} ms/step, shipped ${shipped.at(-1)} ms/step (load ${load()[0]})`);
}
setFastWasmReductions(true);
const oursKernels = await reductionKernelMs();
setFastWasmReductions(false);
const shippedKernels = await reductionKernelMs();
setFastWasmReductions(true);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ratios = ours.map((o, i) => +(o / shipped[i]).toFixed(3));
const results = {
  msPerStep: { ours, shipped },
  oursOverShippedPerRound: ratios,
  oursOverShippedMedian: median(ratios),
  sumAndMeanKernelMsInOneStep: { ours: oursKernels, shipped: shippedKernels },
  loadavgAtEnd: load(),
};
console.error(`[bench wasm-training] ours/shipped per round ${ratios.join(', ')} (median ${results.oursOverShippedMedian}); Sum+Mean per step ${oursKernels} vs ${shippedKernels} ms`);
writeResult('wasm-training', config, results);
