// The public surface of @az/core: contracts every game and tool builds on.
export { Rng, hashString } from './rng.js';
export { RandomAgent, randomLegalAction, randomPlayoutReturns } from './agents.js';
export {
  ConfigError,
  validateConfig,
  parseConfigAssignments,
  describeSchema,
  type ConfigValue,
  type ResolvedConfig,
  type ConfigField,
  type ConfigSchema,
  type IntField,
  type NumberField,
  type BooleanField,
  type EnumField,
  type StringField,
} from './config.js';
export {
  GAME_CONTRACT_VERSION,
  type InformationKind,
  type RewardModel,
  type GameTraits,
  type Encoder,
  type Masker,
  type ParsedAction,
  type Symmetry,
  type Determinizer,
  type Game,
  type Agent,
  type TrainingHints,
  type BotFactory,
  type AgentAssessment,
  type GamePlugin,
} from './game.js';
export {
  GAME_PLUGIN_TOKEN,
  PluginError,
  GameRegistry,
  checkContractVersion,
  resolveGameConfig,
  defaultRegistry,
  registerGame,
  resolveGame,
  listGames,
  createGame,
} from './registry.js';
export type { NetworkSpec, MlpSpec, ResNetSpec, NetworkConfig, InferenceModel } from './network/spec.js';

// Networks: tfjs backends, the model builder, inference, training, weights transport and checkpoints.
export { tf, type LayersModel } from './network/tf.js';
export {
  initBackend,
  currentBackend,
  BackendUnavailableError,
  BACKEND_NAMES,
  type BackendName,
  type ResolvedBackendName,
  type BackendInfo,
} from './network/backend.js';
export { registerWasmTrainingKernels, wasmTrainingKernelsRegistered } from './network/wasm-kernels.js';
export {
  buildModel,
  validateNetworkConfig,
  countParameters,
  NetworkConfigError,
  BATCH_NORM_EPSILON,
  BATCH_NORM_MOMENTUM,
  DEFAULT_POLICY_FILTERS,
  DEFAULT_VALUE_FILTERS,
  DEFAULT_VALUE_HIDDEN,
  POLICY_OUTPUT_NAME,
  VALUE_OUTPUT_NAME,
  type BuildModelOptions,
} from './network/model.js';
export { TfjsInferenceModel, createInferenceModel, checkModelMatchesConfig, ModelShapeError, type TfjsInferenceOptions } from './network/tfjs-model.js';
export { NetworkTrainer, OptimizerStateError, type TrainerOptions, type TrainLosses, type OptimizerState } from './network/training.js';
export { serializeWeights, loadWeightsInto, weightsByteLength, WeightsMismatchError, type SerializedWeights, type WeightSpec } from './network/weights.js';
export {
  saveCheckpoint,
  loadCheckpoint,
  readCheckpointManifest,
  CheckpointError,
  CHECKPOINT_FORMAT,
  CHECKPOINT_FORMAT_VERSION,
  ONNX_MODEL_FILE,
  type SaveCheckpointOptions,
  type CheckpointManifest,
  type CheckpointManifestInput,
  type CheckpointExpectation,
  type LoadedCheckpoint,
} from './network/checkpoint.js';

// Inference on onnxruntime (tfjs trains; the search runs the exported graph) and choosing the engine.
export { exportOnnx, OnnxExportError, ONNX_INPUT_NAME, ONNX_OPSET_VERSION } from './network/onnx-export.js';
export {
  OnnxInferenceModel,
  OnnxUnavailableError,
  onnxRuntimeStatus,
  ONNX_CUDA_INSTALL_COMMAND,
  type OnnxExecutionProvider,
  type OnnxBackendName,
  type OnnxSessionOptions,
} from './network/onnx-model.js';
export {
  createInferenceModelFor,
  openCheckpointInference,
  splitBackendChoice,
  INFERENCE_BACKEND_NAMES,
  BACKEND_CHOICES,
  type InferenceBackendName,
  type BackendChoice,
  type InferenceModelOptions,
  type CheckpointInferenceOptions,
  type CheckpointInference,
} from './network/inference-backend.js';
