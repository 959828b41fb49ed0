/**
 * The flags `az eval` and `az rate` share: how their agents search and run their networks, and how the
 * games are set up and recorded. Defined once so the two commands cannot drift (`--help` prints the same
 * lines for both; args.test.ts checks it).
 */
import { BACKEND_CHOICES } from '@az/nn';

export const arenaAgentFlags = {
  sims: { type: 'int', min: 1, description: "search simulations per move for search agents (models, mcts) (default: the game's play setting, else its training setting, at least 100)" },
  config: { type: 'string', description: 'game settings, key=value[,key=value...]', placeholder: 'K=V,...' },
  seed: { type: 'int', min: 0, default: 0, description: 'random seed' },
  'opening-plies': { type: 'int', min: 0, default: 0, description: 'start every game after N uniformly random plies, the same N plies for both seatings of a pair of games: deterministic players (a model, a UCI engine at a fixed depth) then play different games instead of repeating one' },
  pgn: { type: 'string', description: 'chess: write every game as PGN to FILE (tags, result, termination)', placeholder: 'FILE' },
  backend: { type: 'enum', values: BACKEND_CHOICES, default: 'auto', description: 'network engine for models: auto (onnxruntime if it loads, else tfjs), onnx, onnx-cuda (CUDA 12), or tfjs on cpu, wasm, node, gpu' },
  threads: { type: 'int', min: 1, description: 'onnxruntime threads per network call (default: the cores available)' },
} as const;
