// The public surface of @az/nn: the network stack (tfjs backends, model builder, training, ONNX
// export and inference, weights transport, checkpoints). Games and search never import it: they see
// only the spec types and `InferenceModel` from @az/core.
// Networks: tfjs backends, the model builder, inference, training, weights transport and checkpoints.
/**
 * The TensorFlow.js namespace, for callers that build tensors; documented by TensorFlow.js.
 *
 * @hidden
 */
export { tf } from './tf.js';
export type { LayersModel } from './tf.js';
export {
  initBackend,
  currentBackend,
  BackendUnavailableError,
  BACKEND_NAMES,
  type BackendName,
  type ResolvedBackendName,
  type BackendInfo,
} from './backend.js';
export { registerWasmTrainingKernels, setFastWasmReductions, wasmTrainingKernelsRegistered } from './wasm-kernels.js';
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
} from './model.js';
export { TfjsInferenceModel, createInferenceModel, checkModelMatchesConfig, ModelShapeError, type TfjsInferenceOptions } from './tfjs/tfjs-model.js';
export { NetworkTrainer, OptimizerStateError, type TrainerOptions, type TrainLosses, type OptimizerState } from './training.js';
export { serializeWeights, loadWeightsInto, foldWeightsAverage, weightsByteLength, WeightsMismatchError, type SerializedWeights, type WeightSpec } from './weights.js';
export {
  saveCheckpoint,
  loadCheckpoint,
  readCheckpointManifest,
  verifyCheckpointFiles,
  verifyCheckpointFile,
  CheckpointError,
  CHECKPOINT_FORMAT,
  CHECKPOINT_FORMAT_VERSION,
  ONNX_MODEL_FILE,
  type SaveCheckpointOptions,
  type CheckpointManifest,
  type CheckpointManifestInput,
  type CheckpointExpectation,
  type LoadedCheckpoint,
} from './checkpoint.js';
export type { CheckpointFileEntry } from './checkpoint-checks.js';
export { ModelFolderError, fileNameProblem } from './model-folder.js';
export {
  listCheckpoints,
  resolveCheckpointPath,
  saveRunCheckpoint,
  removeStaleTemporaries,
  checkpointName,
  CHECKPOINTS_DIR,
  DEFAULT_KEEP_CHECKPOINTS,
  type CheckpointEntry,
  type ResolvedCheckpointPath,
  type SaveRunCheckpointOptions,
  type SavedRunCheckpoint,
} from './checkpoint-store.js';
export { sha256, writeFileSynced, writeFileAtomic, syncDirectory } from './checkpoint-files.js';

// Inference on onnxruntime (tfjs trains; the search runs the exported graph) and choosing the engine.
export { exportOnnx, OnnxExportError, ONNX_INPUT_NAME, ONNX_OPSET_VERSION } from './onnx/onnx-export.js';
export {
  OnnxInferenceModel,
  OnnxUnavailableError,
  onnxRuntimeStatus,
  ONNX_CUDA_INSTALL_COMMAND,
  ONNX_INSTALL_COMMAND,
  type OnnxExecutionProvider,
  type OnnxBackendName,
  type OnnxSessionOptions,
  type OnnxThread,
} from './onnx/onnx-model.js';
export {
  openInferenceEngine,
  openCheckpointInference,
  engineCandidates,
  splitBackendChoice,
  INFERENCE_ENGINES,
  INFERENCE_ENGINE_CHOICES,
  BACKEND_CHOICES,
  type BackendChoice,
  type OpenEngineOptions,
  type CheckpointInferenceOptions,
  type CheckpointInference,
} from './engine-registry.js';
export {
  EngineUnavailableError,
  type InferenceEngine,
  type InferenceEngineName,
  type InferenceEngineChoice,
  type InferenceEngineEntry,
  type InferenceEngineOptions,
  type InferenceWorkload,
  type EngineAvailability,
} from './engine.js';
export { onnxThreadFor, ONNX_WORKER_MIN_OUTPUT_BYTES } from './onnx/onnx-engine.js';
