import type { Agent, AgentAssessment } from '@az/core';
import { optimalActions, reachablePositions } from './oracle.js';
import { applyMove, cellName, cloneState, isTerminalState, newState, CELLS, type TicTacToeState } from './rules.js';

export interface PerfectPlayReport {
  /** Non-terminal reachable positions (4,520). */
  readonly positions: number;
  /** Positions where the agent's move is minimax-optimal. */
  readonly optimalMoves: number;
  readonly optimalRate: number;
  /** Games played against every optimal reply of the oracle, from every opening, in both seats. */
  readonly gamesVsOracle: number;
  readonly lossesVsOracle: number;
  /** A few of the losing games, as move sequences like "b2 a1 c3 ...", for debugging. */
  readonly losingLines: readonly string[];
}

interface Line {
  state: TicTacToeState;
  moves: number[];
}

/**
 * Measures an agent against the exact oracle: (1) its move in each of the 4,520 non-terminal
 * reachable positions is compared with the set of minimax-optimal moves; (2) it plays both seats
 * from each of the 9 openings against an opponent that branches over every optimal reply, so no
 * line the oracle could choose is left untried. The agent is asked in batches.
 */
export async function measurePerfectPlay(agent: Agent<TicTacToeState>): Promise<PerfectPlayReport> {
  const positions = reachablePositions().filter((s) => !isTerminalState(s));
  const chosen = await agent.act(positions);
  let optimalMoves = 0;
  positions.forEach((s, i) => {
    if (optimalActions(s).includes(chosen[i])) optimalMoves++;
  });

  let games = 0;
  let losses = 0;
  const losingLines: string[] = [];
  for (const agentSeat of [0, 1]) {
    let frontier: Line[] = [];
    for (let opening = 0; opening < CELLS; opening++) {
      const state = newState();
      applyMove(state, opening);
      frontier.push({ state, moves: [opening] });
    }
    while (frontier.length > 0) {
      const next: Line[] = [];
      const agentTurn = frontier.filter((l) => l.state.toMove === agentSeat);
      const oracleTurn = frontier.filter((l) => l.state.toMove !== agentSeat);
      const actions = agentTurn.length ? await agent.act(agentTurn.map((l) => l.state)) : new Int32Array(0);
      agentTurn.forEach((l, i) => {
        applyMove(l.state, actions[i]);
        l.moves.push(actions[i]);
        next.push(l);
      });
      for (const l of oracleTurn) {
        for (const reply of optimalActions(l.state)) {
          const child = cloneState(l.state);
          applyMove(child, reply);
          next.push({ state: child, moves: [...l.moves, reply] });
        }
      }
      frontier = [];
      for (const l of next) {
        if (!isTerminalState(l.state)) {
          frontier.push(l);
          continue;
        }
        games++;
        if (l.state.winner === 1 - agentSeat) {
          losses++;
          if (losingLines.length < 5) losingLines.push(`agent as ${agentSeat === 0 ? 'X' : 'O'}: ${l.moves.map(cellName).join(' ')}`);
        }
      }
    }
  }
  return { positions: positions.length, optimalMoves, optimalRate: optimalMoves / positions.length, gamesVsOracle: games, lossesVsOracle: losses, losingLines };
}

/** A share as a percentage to one decimal, rounded down: 4,519 of 4,520 is 99.9%, never 100.0%. */
function percentDown(share: number): string {
  return (Math.floor(1000 * share + 1e-9) / 10).toFixed(1);
}

/** The plugin's `assessAgent`: perfect play means >= 99% optimal moves and no loss against the oracle. */
export async function assessTicTacToeAgent(agent: Agent<TicTacToeState>): Promise<AgentAssessment> {
  const r = await measurePerfectPlay(agent);
  const passed = r.optimalRate >= 0.99 && r.lossesVsOracle === 0;
  return {
    summary: `optimal moves ${r.optimalMoves}/${r.positions} (${percentDown(r.optimalRate)}%), ${r.lossesVsOracle} losses in ${r.gamesVsOracle} games vs the minimax oracle (every opening, both seats)${passed ? ': perfect play' : ''}`,
    metrics: { optimalMoves: r.optimalMoves, positions: r.positions, optimalRate: r.optimalRate, gamesVsOracle: r.gamesVsOracle, lossesVsOracle: r.lossesVsOracle },
    passed,
  };
}
