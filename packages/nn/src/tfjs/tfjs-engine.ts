/**
 * The tfjs engine of the registry: the LayersModel itself, on the current tfjs backend. It runs the weights
 * the model holds at each call, so `refresh` only records the version; it is always available, and `auto`
 * falls back to it.
 */
import type { NetworkConfig } from '@az/core';
import { currentBackend } from '../backend.js';
import type { InferenceEngine, InferenceEngineEntry } from '../engine.js';
import { TfjsInferenceModel } from './tfjs-model.js';

class TfjsEngine implements InferenceEngine {
  readonly name = 'tfjs';
  private version: number;

  constructor(
    private readonly model: TfjsInferenceModel,
    weightsVersion: number,
  ) {
    this.version = weightsVersion;
  }

  get config(): NetworkConfig {
    return this.model.config;
  }

  /** The tfjs backend running the model now ('wasm', 'cpu', 'tensorflow'). */
  get backendName(): string {
    return this.model.backendName;
  }

  get weightsVersion(): number {
    return this.version;
  }

  predict(input: Float32Array, count: number, policyOut: Float32Array, valueOut: Float32Array): Promise<void> {
    return this.model.predict(input, count, policyOut, valueOut);
  }

  async refresh(weightsVersion: number): Promise<void> {
    this.version = weightsVersion;
  }

  describe(): string {
    return `tfjs ${this.backendName}`;
  }

  dispose(): void {
    this.model.dispose();
  }
}

export const TFJS_ENGINE: InferenceEngineEntry = {
  name: 'tfjs',
  priority: 0,
  label: () => {
    const backend = currentBackend();
    return backend ? `tfjs (${backend.name})` : 'tfjs';
  },
  available: async () => ({ available: true }),
  open: async (model, config, options) => new TfjsEngine(new TfjsInferenceModel(model, config, { ownsModel: options.ownsModel ?? false }), options.weightsVersion ?? 0),
};
