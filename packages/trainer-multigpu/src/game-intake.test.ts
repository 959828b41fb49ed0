// The multi-process loop's game intake, without processes: games arrive as IncomingGame messages.
import { describe, expect, it } from 'vitest';
import { BatchedMcts, UniformEvaluator } from '@az/mcts';
import { ticTacToePlugin, type TicTacToeState } from '@az/game-tictactoe';
import { parseDeviceSpec } from './devices.js';
import { GameIntake, intakeDelta } from './game-intake.js';
import { encodeGameRecord, type GameRecord } from './game-record.js';
import { ReplayBuffer } from './replay-buffer.js';
import { SelfPlay } from './self-play.js';
import { poisonedRecords } from './test-records.js';
import type { IncomingGame } from './transport.js';

const game = ticTacToePlugin.create({});

async function records(n: number, weightsVersion: number): Promise<GameRecord[]> {
  const engine = new BatchedMcts(game, new UniformEvaluator<TicTacToeState>(), 4, { simulations: 8, leavesPerTree: 2, seed: 1 });
  const out: GameRecord[] = [];
  await new SelfPlay(game, engine, { temperatureMoves: 2, seed: 1, weightsVersion }).play(n, (r) => out.push(r));
  return out;
}

function intakeFor(gamesPerIteration: number) {
  const replay = new ReplayBuffer(1000, { inputSize: game.encoder.size, actionSize: 9, numSeats: 2, policyWidth: 9 });
  const state = { weightsVersion: 5, gamesPlayed: 0 };
  const paused: boolean[] = [];
  const logs: string[] = [];
  const intake = new GameIntake({
    replay,
    state,
    devices: parseDeviceSpec('cpu:2'),
    workersPerDevice: 1,
    gamesPerIteration,
    maxGameAge: 2,
    numPlayers: 2,
    log: (m) => logs.push(m),
    setPaused: (p) => paused.push(p),
  });
  return { intake, replay, state, paused, logs };
}

const message = (r: GameRecord, device: string, seq: number): IncomingGame => ({ workerId: device === 'cpu:0' ? 0 : 1, device, incarnation: 0, seq, weightsVersion: r.weightsVersion, bytes: encodeGameRecord(r) });

describe('GameIntake', () => {
  it('accepts fresh games into the replay buffer, drops stale and unreadable ones, and counts them per device', async () => {
    const { intake, replay, state, logs } = intakeFor(100);
    const fresh = await records(3, 4);
    const stale = await records(1, 2); // 5 - 2 = 3 is the oldest accepted version
    intake.accept(message(fresh[0], 'cpu:0', 0));
    intake.accept(message(fresh[1], 'cpu:1', 0));
    intake.accept(message(stale[0], 'cpu:1', 1));
    intake.accept({ ...message(fresh[2], 'cpu:0', 1), bytes: new Uint8Array(12) });
    const positions = fresh[0].length + fresh[1].length;
    expect(replay.totalAdded).toBe(positions);
    // Counted as played once an iteration takes them (its window closes).
    expect(state.gamesPlayed).toBe(0);
    intake.closeWindow(false);
    expect(state.gamesPlayed).toBe(2);
    const summary = intake.summarize(5);
    expect(summary).toMatchObject({ gamesReceived: 4, gamesAccepted: 2, staleGamesDropped: 1, corruptGames: 1, positionsAccepted: positions });
    expect(summary.devices['cpu:1']).toMatchObject({ gamesReceived: 2, gamesAccepted: 1, staleGamesDropped: 1, newestGameVersion: 4 });
    expect(logs.join('\n')).toMatch(/dropped an invalid game from worker 0 \(cpu:0\), incarnation 0, game 1: game record: truncated/);
  });

  it('drops a well-formed but poisoned game from a local worker, naming the worker, its incarnation and the game, before it reaches the replay buffer', async () => {
    const { intake, replay, logs } = intakeFor(100);
    const [base] = await records(1, 5);
    const poisons = poisonedRecords(base, 9);
    poisons.forEach((p, seq) => intake.accept({ ...message(p.record, 'cpu:1', seq), incarnation: 2 }));
    expect(replay.totalAdded).toBe(0);
    expect(intake.summarize(5)).toMatchObject({ gamesReceived: poisons.length, gamesAccepted: 0, corruptGames: poisons.length });
    poisons.forEach((p, seq) => expect(logs[seq], p.kind).toMatch(new RegExp(`^dropped an invalid game from worker 1 \\(cpu:1\\), incarnation 2, game ${seq}: .*${p.problem.source}`)));
    // The sound game itself is taken in.
    intake.accept(message(base, 'cpu:1', poisons.length));
    expect(replay.totalAdded).toBe(base.length);
  });

  it('wakes a waiting loop once an iteration’s games are in, and pauses the workers when no loop waits', async () => {
    const { intake, paused } = intakeFor(2);
    const games = await records(4, 5);
    intake.inSelfPlayPhase = true;
    let woke = false;
    const waiting = intake.waitUntil(() => intake.gamesThisWindow >= 2).then(() => (woke = true));
    intake.accept(message(games[0], 'cpu:0', 0));
    await Promise.resolve();
    expect(woke).toBe(false);
    intake.accept(message(games[1], 'cpu:1', 0));
    await waiting;
    expect(paused).toEqual([]);
    // The trainer is busy (not waiting): the next window fills and the workers are held.
    const before = intake.snapshot([]);
    intake.inSelfPlayPhase = false;
    intake.closeWindow(false);
    intake.accept(message(games[2], 'cpu:0', 1));
    intake.accept(message(games[3], 'cpu:0', 2));
    expect(paused).toEqual([true]);
    const delta = intakeDelta(intake.snapshot([]), before);
    expect(delta.accepted).toBe(2);
    expect(delta.devices['cpu:0'].games).toBe(2);
    expect(delta.devices['cpu:1'].games).toBe(0);
  });

  it('drops games beyond the window’s count as surplus, and every game once the last window closed', async () => {
    const { intake, replay, state, paused } = intakeFor(2);
    const games = await records(7, 5);
    // A backlog read at once while the trainer is busy: two fill the window, the rest have no iteration.
    for (let i = 0; i < 5; i++) intake.accept(message(games[i], 'cpu:0', i));
    expect(paused).toEqual([true]);
    expect(intake.gamesThisWindow).toBe(2);
    expect(replay.totalAdded).toBe(games[0].length + games[1].length);
    expect(intake.summarize(5)).toMatchObject({ gamesReceived: 5, gamesAccepted: 2, surplusGamesDropped: 3 });
    // That was the last iteration's window: later games are dropped, the workers stay held.
    const before = intake.snapshot([]);
    intake.closeWindow(true);
    expect(state.gamesPlayed).toBe(2);
    intake.inSelfPlayPhase = true;
    intake.accept(message(games[5], 'cpu:1', 0));
    intake.accept(message(games[6], 'cpu:1', 1));
    expect(intake.gamesThisWindow).toBe(0);
    expect(intakeDelta(intake.snapshot([]), before)).toMatchObject({ received: 2, accepted: 0, surplus: 2 });
    expect(paused.at(-1)).toBe(true);
    expect(state.gamesPlayed).toBe(2);
  });

  it('stops the wait on a fatal worker event', async () => {
    const { intake } = intakeFor(10);
    const waiting = intake.waitUntil(() => intake.fatal !== null);
    intake.workerEvent({ kind: 'fatal', message: 'cannot import the game' });
    await waiting;
    expect(intake.fatal?.message).toBe('self-play worker failed: cannot import the game');
  });
});
