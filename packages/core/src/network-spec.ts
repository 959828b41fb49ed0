/**
 * Network architectures the model builder makes. Inputs come from an `Encoder` (shape HWC or [n]);
 * outputs are policy logits over the `Masker`'s action space and one value per seat, in seat order
 * relative to the encoded perspective (index 0 = the perspective seat, 1 = the next seat, ...), tanh.
 */
export type NetworkSpec = MlpSpec | ResNetSpec;

/** Dense tower for flat inputs (any input shape is flattened). */
export interface MlpSpec {
  /** Tells the spec kinds apart. */
  readonly kind: 'mlp';
  /** Hidden layer widths, e.g. [64, 64]. */
  readonly hidden: readonly number[];
}

/** AlphaZero residual tower for spatial inputs (HWC): 3x3 stem, residual blocks with batch norm, two heads. */
export interface ResNetSpec {
  /** Tells the spec kinds apart. */
  readonly kind: 'resnet';
  /** Channels of the stem and of every residual block. */
  readonly filters: number;
  /** Residual blocks in the tower. */
  readonly blocks: number;
  /** 1x1 conv filters in the policy head (default 2). */
  readonly policyFilters?: number;
  /** 1x1 conv filters in the value head (default 4). */
  readonly valueFilters?: number;
  /** Dense width in the value head (default 64). */
  readonly valueHidden?: number;
  /**
   * How the value head turns its 1x1-conv feature maps into one vector: 'flatten' (default, AlphaZero's:
   * a dense weight per square and channel) or 'pool' (global average over the board, one weight per
   * channel, as KataGo's heads do). Pooling shares the head's weights across squares, so whole-board
   * quantities (how much material each side has, how exposed a king is) are learned from far fewer games:
   * what a short CPU run of a big-board game needs.
   */
  readonly valueHead?: 'flatten' | 'pool';
}

/** Everything needed to rebuild a network: architecture plus the game's tensor sizes. */
export interface NetworkConfig {
  /** The architecture. */
  readonly spec: NetworkSpec;
  /** The encoder's shape: [height, width, channels] or [n]. */
  readonly inputShape: readonly number[];
  /** Length of the policy output: the masker's action count. */
  readonly actionSize: number;
  /** Length of the value output: the number of seats. */
  readonly numSeats: number;
}

/**
 * Inference, behind one small interface whatever the engine (tfjs wasm/cpu/node/gpu, onnxruntime):
 * the search calls nothing else. `input` holds `count` encoded positions back to back; the model
 * writes `count * actionSize` policy logits and `count * numSeats` values (perspective-relative).
 */
export interface InferenceModel {
  /** The network's architecture and tensor sizes, which callers check against the game's. */
  readonly config: NetworkConfig;
  /** Which engine runs it, for logs ("wasm", "onnx", ...). */
  readonly backendName: string;
  /** Runs `count` positions: writes their policy logits to `policyOut` and their values to `valueOut`. */
  predict(input: Float32Array, count: number, policyOut: Float32Array, valueOut: Float32Array): Promise<void>;
  /**
   * Optional: `predict` returning only the logits of listed actions. `actions` holds `count * width` action
   * indices in [0, actionSize), row i for position i (rows shorter than `width` padded with any of their
   * own indices); the model writes `count * width` logits to `policyOut`, entry `i * width + k` being the
   * logit of action `actions[i * width + k]` at position i, and the values as `predict` does. The same
   * network, the same logits: what it spares is the engine's `count * actionSize` output, of which the
   * search reads only the legal actions' entries (for chess about 30 of 4,672 a position; the sizes are in
   * docs/performance.md).
   */
  predictLegal?(input: Float32Array, count: number, actions: Int32Array, width: number, policyOut: Float32Array, valueOut: Float32Array): Promise<void>;
  /** Frees the engine's memory and sessions; the model must not be used after. */
  dispose(): void;
}
