// The public surface of @az/chess-uci.
export { UciEngine, UciEngineError, splitCommandLine, liveEngineCount, type UciFailure, type UciLimits, type UciEngineOptions, type UciSearchResult } from './engine.js';
export { UciAgent, parseUciAgentSpec, uciOfAction, type UciAgentSpec } from './agent.js';
export { actionOfUci } from './moves.js';
export {
  runUciServer,
  valueToCentipawns,
  timeForMove,
  type UciSearcher,
  type UciBudget,
  type UciSearchControl,
  type UciInfo,
  type UciOptionDeclaration,
  type UciServerOptions,
} from './server.js';
