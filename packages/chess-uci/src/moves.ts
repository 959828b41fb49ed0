import { legalActionsOf, legalMoveOf, type ChessState } from '@az/game-chess';

/** The action of a move in UCI notation (`e2e4`, `e7e8q`) in this position, or -1 if it is not legal. */
export function actionOfUci(state: ChessState, uci: string): number {
  const wanted = uci.trim().toLowerCase();
  const actions = legalActionsOf(state);
  for (let i = 0; i < actions.length; i++) if (legalMoveOf(state, actions[i])?.uci === wanted) return actions[i];
  return -1;
}
