import { resolveGame, type Agent, type AgentAssessment } from '@az/core';
import { BACKEND_CHOICES } from '@az/nn';
import { PolicyAgent, defaultPlaySimulations } from '@az/mcts';
import { gameFor, isNamedAgent, loadModel, makeAgent, type LoadedModel } from '../agents.js';
import { helpText, parseFlags, UsageError } from '../args.js';
import { gameConfigFromFlags } from './play.js';

export const assessSpec = {
  name: 'assess',
  summary: "The game's own verdict on an agent (solved positions, an exact oracle), at one or more search budgets.",
  usage: 'az assess --game ID --model DIR|AGENT [--sims N[,N...]] [options]',
  flags: {
    game: { type: 'string', description: 'game (see az games); it must offer an assessment', placeholder: 'ID' },
    model: { type: 'string', description: 'a model directory, or an agent name (random, mcts, a game bot)', placeholder: 'DIR' },
    sims: { type: 'string', description: "search simulations per move, comma-separated; 0 = the network's policy alone, no search (default: the game's play setting)", placeholder: 'N,...' },
    config: { type: 'string', description: 'game settings, key=value[,key=value...]', placeholder: 'K=V,...' },
    seed: { type: 'int', min: 0, default: 0, description: 'random seed' },
    json: { type: 'boolean', description: 'print the results as JSON' },
    backend: { type: 'enum', values: BACKEND_CHOICES, default: 'auto', description: 'network engine for models: auto, onnx, onnx-cuda, or tfjs on cpu, wasm, node, gpu' },
    threads: { type: 'int', min: 1, description: 'onnxruntime threads per network call (default: the cores available)' },
  },
  examples: ['az assess --game connect4 --model runs/connect4 --sims 0,100,800', 'az assess --game tictactoe --model runs/tictactoe'],
} as const;

function parseSims(text: string | undefined, fallback: number): number[] {
  if (text === undefined) return [fallback];
  const list = text.split(',').map((t) => t.trim());
  const sims = list.map(Number);
  if (list.length === 0 || sims.some((n, i) => list[i] === '' || !Number.isInteger(n) || n < 0)) {
    throw new UsageError(`az assess: --sims takes non-negative integers separated by commas, got '${text}'`);
  }
  return sims;
}

export async function assessCommand(argv: readonly string[]): Promise<number> {
  const { flags } = parseFlags(assessSpec, argv);
  if (flags.help) {
    console.log(helpText(assessSpec));
    return 0;
  }
  if (!flags.game) throw new UsageError('az assess: --game is required (see az games)');
  if (!flags.model) throw new UsageError('az assess: --model is required (a model directory, or random, mcts, a game bot)');
  const plugin = resolveGame(flags.game);
  if (!plugin.assessAgent) throw new UsageError(`az assess: game '${plugin.traits.id}' offers no assessment (GamePlugin.assessAgent); use az eval`);
  // This is where results are quoted from, so a game that holds a set out of its tuning loop (connect4's
  // hard report set, which the trainer's assessment after every run does not show) is asked for it.
  const assessAgent = plugin.assessAgent.bind(plugin);
  const rawConfig = gameConfigFromFlags(plugin, flags.config, {}, 'assess');
  const network = { backend: flags.backend ?? 'auto', threads: flags.threads };
  const models = new Map<string, LoadedModel>();
  const isAgentName = isNamedAgent(plugin, flags.model);
  const model = isAgentName ? undefined : await loadModel(plugin, flags.model, network);
  if (model) models.set(flags.model, model);
  const game = gameFor(plugin, rawConfig, model);
  const seed = flags.seed ?? 0;
  const results: { simulations: number; agent: string; assessment: AgentAssessment; seconds: number }[] = [];
  try {
    for (const simulations of parseSims(flags.sims, defaultPlaySimulations(plugin))) {
      let agent: Agent<unknown>;
      if (simulations === 0) {
        if (!model) throw new UsageError('az assess: --sims 0 (the policy alone) needs a model');
        agent = new PolicyAgent(`policy of ${flags.model}`, game, model.evaluator);
      } else {
        agent = await makeAgent(flags.model, plugin, game, { simulations, seed, network }, models);
      }
      const start = performance.now();
      const assessment = await assessAgent(game, agent, { purpose: 'report' });
      const seconds = (performance.now() - start) / 1000;
      results.push({ simulations, agent: agent.name, assessment, seconds });
      if (!flags.json) console.log(`${simulations === 0 ? 'policy alone' : `${simulations} sims`}: ${assessment.summary} (${seconds.toFixed(1)} s)`);
    }
  } finally {
    for (const m of models.values()) m.dispose();
  }
  if (flags.json) console.log(JSON.stringify({ game: game.traits.id, model: flags.model, results }, null, 2));
  return 0;
}
