// The plugin as the CLI and trainer see it: registration, config, game end and returns, text I/O,
// bots, the input planes.
import { ConfigError, GameRegistry, PluginError, RandomAgent, Rng } from '@az/core';
import { container } from 'tsyringe';
import { describe, expect, it } from 'vitest';
import { ACTION_SIZE, encodeMove } from './action-encoding.js';
import { GreedyAgent } from './bots.js';
import { chessPlugin, registerChess } from './plugin.js';
import { outcomeOf, stateFromFen, toFen, type ChessState } from './state.js';
import { makeGame, play } from './test-helpers.js';

const START = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';

function expectConfigError(fn: () => unknown, field: string, message: RegExp): void {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).field).toBe(field);
    expect((error as ConfigError).message).toMatch(message);
    return;
  }
  throw new Error('expected a ConfigError');
}

describe('registration and config', () => {
  it('registers in a fresh registry and creates games through it', () => {
    const registry = new GameRegistry(container.createChildContainer());
    registerChess(registry);
    expect(registry.has('chess')).toBe(true);
    expect(registry.list().map((p) => p.traits.id)).toEqual(['chess']);
    const game = registry.create('chess', { maxPlies: '100', history: '1' });
    expect(game.config).toEqual({ maxPlies: 100, fen: '', adjudicateLead: 0, history: 1 });
    expect(game.maxGameLength).toBe(100);
    expect(game.encoder.shape).toEqual([8, 8, 14 * 2 + 7]);
    expect(game.encoder.version).toBe('chess-v2-h1');
    expect(game.masker.actionSize).toBe(4672);
    expect(() => registerChess(registry)).toThrow(PluginError);
    expect(chessPlugin.bots?.greedy).toBeTypeOf('function');
    expect(chessPlugin.training?.network?.kind).toBe('resnet');
  });

  it('rejects unknown fields and invalid or unusable FENs, naming the field', () => {
    const registry = new GameRegistry(container.createChildContainer());
    registerChess(registry);
    expectConfigError(() => registry.create('chess', { maxPly: 10 }), 'maxPly', /unknown field 'maxPly'/);
    expectConfigError(() => registry.create('chess', { maxPlies: 0 }), 'maxPlies', />= 1/);
    expectConfigError(() => registry.create('chess', { fen: 'not a fen' }), 'fen', /field 'fen' is not a valid position: Invalid FEN/);
    expectConfigError(() => registry.create('chess', { fen: 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN w KQkq - 0 1' }), 'fen', /piece data/);
    expectConfigError(() => registry.create('chess', { fen: '8/8/8/8/8/8/8/K7 w - - 0 1' }), 'fen', /missing black king/);
    // White to move while black is in check: white could take the king.
    expectConfigError(() => registry.create('chess', { fen: '4k3/4R3/8/8/8/8/8/4K3 w - - 0 1' }), 'fen', /side not to move \(black\) is in check/);
    expectConfigError(() => registry.create('chess', { fen: '4k3/8/8/8/8/8/8/4K3 w - e6 0 1' }), 'fen', /en passant square does not follow a double pawn push/);
    // Fool's mate: the game is already over.
    expectConfigError(() => registry.create('chess', { fen: 'rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3' }), 'fen', /finished game \(black wins by checkmate\)/);
  });

  it('starts from a FEN (trailing fields optional) and exposes FEN helpers', () => {
    const game = makeGame({ fen: '8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - -' });
    expect(game.config.fen).toBe('8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1');
    const state = game.initialState(new Rng(0));
    expect(toFen(state)).toBe('8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1');
    expect(toFen(makeGame().initialState(new Rng(0)))).toBe(START);
    expect(() => stateFromFen('garbage')).toThrow(/Invalid FEN/);
    // Castling rights that the pieces do not allow are dropped; an en passant square nobody can use is cleared
    // (so the position's key equals the key of the same position reached by play).
    expect(toFen(stateFromFen('4k3/8/8/8/8/8/8/4K3 w KQkq - 0 1'))).toBe('4k3/8/8/8/8/8/8/4K3 w - - 0 1');
    const viaPlay = play(makeGame(), makeGame().initialState(new Rng(0)), 'e4');
    const viaFen = stateFromFen('rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1');
    expect(viaFen.position.key).toBe(viaPlay.position.key);
  });

  it('shows the position as FEN for `az play`, and marks the start position as not tied to a model', () => {
    const game = makeGame();
    const state = play(game, game.initialState(new Rng(0)), 'e4', 'c5', 'Nf3');
    expect(game.positionText(state)).toBe('rnbqkbnr/pp1ppppp/8/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2');
    // What `az play --fen` reads back gives the same position.
    expect(toFen(stateFromFen(game.positionText(state)))).toBe(game.positionText(state));
    expect(chessPlugin.configSchema.fen.modelIndependent).toBe(true);
    expect(chessPlugin.configSchema.maxPlies.modelIndependent).toBe(true);
    expect(chessPlugin.configSchema.history.modelIndependent).toBeFalsy();
  });
});

describe('game end and returns', () => {
  it('checkmate: black wins fool’s mate, white wins scholar’s mate', () => {
    const game = makeGame();
    const fool = play(game, game.initialState(new Rng(0)), 'f3', 'e5', 'g4', 'Qh4#');
    expect(game.isTerminal(fool)).toBe(true);
    expect(Array.from(game.returns(fool))).toEqual([-1, 1]);
    expect(outcomeOf(fool)).toEqual({ winner: 'b', termination: 'checkmate' });
    const scholar = play(game, game.initialState(new Rng(0)), 'e4', 'e5', 'Qh5', 'Nc6', 'Bc4', 'Nf6', 'Qxf7#');
    expect(Array.from(game.returns(scholar))).toEqual([1, -1]);
    const mask = new Uint8Array(ACTION_SIZE);
    expect(game.masker.fillMask(scholar, mask, 0)).toBe(0);
    expect(() => game.applyAction(scholar, 0, new Rng(0))).toThrow(/game is over \(white wins by checkmate\)/);
  });

  it('estimates returns from material (for value shaping), and gives the result once the game is over', () => {
    const game = makeGame();
    const start = game.initialState(new Rng(0));
    expect(Array.from(game.estimateReturns(start))).toEqual([0, 0]);
    // 1. e4 d5 2. exd5: white is a pawn up.
    const pawnUp = play(game, game.initialState(new Rng(0)), 'e4', 'd5', 'exd5');
    const [white, black] = game.estimateReturns(pawnUp);
    expect(white).toBeCloseTo(Math.tanh(1 / 5), 6);
    expect(black).toBeCloseTo(-white, 6);
    const blackRookUp = makeGame({ fen: 'r3k2r/8/8/8/8/8/8/4K2R w Kkq - 0 1' });
    expect(blackRookUp.estimateReturns(blackRookUp.initialState(new Rng(0)))[0]).toBeCloseTo(Math.tanh(-5 / 5), 6);
    // Checkmate (material level): the result, black wins.
    const fool = play(game, game.initialState(new Rng(0)), 'f3', 'e5', 'g4', 'Qh4#');
    expect(Array.from(game.estimateReturns(fool))).toEqual([-1, 1]);
  });

  it('stalemate is a draw', () => {
    const game = makeGame({ fen: 'k7/8/8/1Q6/8/8/8/7K w - - 0 1' });
    const state = play(game, game.initialState(new Rng(0)), 'Qb6');
    expect(outcomeOf(state)).toEqual({ winner: null, termination: 'stalemate' });
    expect(Array.from(game.returns(state))).toEqual([0, 0]);
  });

  it('threefold repetition ends the game as a draw', () => {
    const game = makeGame();
    const state = game.initialState(new Rng(0));
    play(game, state, 'Nf3', 'Nf6', 'Ng1', 'Ng8');
    expect(state.position.repetitions).toBe(1);
    expect(game.isTerminal(state)).toBe(false);
    play(game, state, 'Nf3', 'Nf6', 'Ng1');
    expect(game.isTerminal(state)).toBe(false);
    play(game, state, 'Ng8');
    expect(state.position.repetitions).toBe(2);
    expect(game.isTerminal(state)).toBe(true);
    expect(outcomeOf(state)).toEqual({ winner: null, termination: 'threefold repetition' });
    expect(Array.from(game.returns(state))).toEqual([0, 0]);
  });

  it('the fifty-move rule draws, but a mate on the hundredth half-move wins', () => {
    const game = makeGame({ fen: 'k7/8/2K5/8/8/8/8/7R w - - 99 80' });
    const drawn = play(game, game.initialState(new Rng(0)), 'Rh2');
    expect(outcomeOf(drawn)).toEqual({ winner: null, termination: 'fifty-move rule' });
    expect(Array.from(game.returns(drawn))).toEqual([0, 0]);
    const mated = play(makeGame({ fen: 'k7/8/1K6/8/8/8/8/7R w - - 99 80' }), stateFromFen('k7/8/1K6/8/8/8/8/7R w - - 99 80'), 'Rh8#');
    expect(outcomeOf(mated)).toEqual({ winner: 'w', termination: 'checkmate' });
    // A pawn move resets the clock.
    const reset = play(makeGame(), stateFromFen('k7/8/2K5/8/8/8/4P3/7R w - - 99 80'), 'e4');
    expect(outcomeOf(reset)).toBeNull();
  });

  it('insufficient material ends the game as a draw', () => {
    const game = makeGame({ fen: 'k7/8/8/8/8/8/1r6/K7 w - - 0 1' });
    const state = play(game, game.initialState(new Rng(0)), 'Kxb2');
    expect(outcomeOf(state)).toEqual({ winner: null, termination: 'insufficient material' });
    expect(Array.from(game.returns(state))).toEqual([0, 0]);
    // Promotion to a knight also leaves only a lone minor piece.
    const promoted = play(game, stateFromFen('8/1P6/8/8/8/8/8/K6k w - - 0 1'), 'b8=N');
    expect(outcomeOf(promoted)?.termination).toBe('insufficient material');
    expect(outcomeOf(stateFromFen('8/8/8/8/8/8/8/KBkb4 w - - 0 1'))?.termination).toBe('insufficient material');
  });

  it('the ply cap adjudicates a draw', () => {
    const game = makeGame({ maxPlies: 4 });
    const state = play(game, game.initialState(new Rng(0)), 'e4', 'e5', 'Nf3');
    expect(game.isTerminal(state)).toBe(false);
    play(game, state, 'Nc6');
    expect(game.isTerminal(state)).toBe(true);
    expect(outcomeOf(state)).toEqual({ winner: null, termination: 'move limit' });
    expect(Array.from(game.returns(state))).toEqual([0, 0]);
    expect(game.parseAction(state, 'Bb5')).toEqual({ ok: false, error: expect.stringMatching(/game is over \(draw by move limit\)/) });
  });

  it('with adjudicateLead, the ply cap goes to a side that far ahead in material, else it is still a draw', () => {
    // 1. e4 d5 2. exd5 Qxd5 3. Nc3 Qxg2: black is a pawn up after ply 6.
    const moves = ['e4', 'd5', 'exd5', 'Qxd5', 'Nc3', 'Qxg2'];
    const atCap = (lead: number): ChessState => play(makeGame({ maxPlies: 6, adjudicateLead: lead }), makeGame({ maxPlies: 6, adjudicateLead: lead }).initialState(new Rng(0)), ...moves);
    expect(outcomeOf(atCap(1))).toEqual({ winner: 'b', termination: 'material adjudication' });
    expect(Array.from(makeGame({ adjudicateLead: 1 }).returns(atCap(1)))).toEqual([-1, 1]);
    expect(outcomeOf(atCap(2))).toEqual({ winner: null, termination: 'move limit' });
    expect(outcomeOf(atCap(0))).toEqual({ winner: null, termination: 'move limit' });
    // Before the cap nothing changes; white ahead wins it too; mate still beats the cap.
    expect(outcomeOf(play(makeGame({ maxPlies: 7, adjudicateLead: 1 }), makeGame().initialState(new Rng(0)), ...moves))).toBeNull();
    const whiteUp = stateFromFen('4k3/8/8/8/8/8/8/3QK3 w - - 0 1', { maxPlies: 1, adjudicateLead: 9 });
    expect(outcomeOf(play(makeGame(), whiteUp, 'Kf2'))).toEqual({ winner: 'w', termination: 'material adjudication' });
    const mate = stateFromFen('6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1', { maxPlies: 1, adjudicateLead: 1 });
    expect(outcomeOf(play(makeGame(), mate, 'Ra8'))).toEqual({ winner: 'w', termination: 'checkmate' });
    expect(chessPlugin.configSchema.adjudicateLead.modelIndependent).toBe(true);
  });

  it('random games terminate within the cap and clones are independent', async () => {
    const game = makeGame({ maxPlies: 200 });
    const agent = new RandomAgent(game, 3);
    const rng = new Rng(3);
    for (let g = 0; g < 5; g++) {
      const state = game.initialState(rng);
      const snapshot = game.clone(state);
      while (!game.isTerminal(state)) game.applyAction(state, (await agent.act([state]))[0], rng);
      expect(state.plies).toBeLessThanOrEqual(200);
      expect(toFen(snapshot)).toBe(START);
      const r = game.returns(state);
      expect(r[0] + r[1]).toBe(0);
    }
  });

  it('applyAction refuses illegal actions', () => {
    const game = makeGame();
    const state = game.initialState(new Rng(0));
    expect(() => game.applyAction(state, encodeMove({ from: 'e2', to: 'e5' }, 'w'), new Rng(0))).toThrow(/e2e5\) is not a legal move/);
    expect(() => game.applyAction(state, -1, new Rng(0))).toThrow(/off the board/);
  });
});

describe('text', () => {
  const game = makeGame();

  it('parses SAN and UCI, and formats SAN', () => {
    const start = game.initialState(new Rng(0));
    const nf3 = encodeMove({ from: 'g1', to: 'f3' }, 'w');
    for (const text of ['Nf3', 'g1f3', 'Ng1f3', 'Nf3!?', ' Nf3 ']) expect(game.parseAction(start, text)).toEqual({ ok: true, action: nf3 });
    expect(game.formatAction(start, nf3)).toBe('Nf3');

    const open = stateFromFen('rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 2');
    const exd5 = encodeMove({ from: 'e4', to: 'd5' }, 'w');
    expect(game.parseAction(open, 'exd5')).toEqual({ ok: true, action: exd5 });
    expect(game.parseAction(open, 'ed5')).toEqual({ ok: true, action: exd5 });
    expect(game.parseAction(open, 'e4d5')).toEqual({ ok: true, action: exd5 });

    const castle = stateFromFen('r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1');
    const shortCastle = encodeMove({ from: 'e1', to: 'g1' }, 'w');
    for (const text of ['O-O', '0-0', 'e1g1']) expect(game.parseAction(castle, text)).toEqual({ ok: true, action: shortCastle });
    expect(game.parseAction(castle, 'O-O-O')).toEqual({ ok: true, action: encodeMove({ from: 'e1', to: 'c1' }, 'w') });
    expect(game.formatAction(castle, shortCastle)).toBe('O-O');

    const promo = stateFromFen('4k3/P7/8/8/8/8/8/4K3 w - - 0 1');
    const queen = encodeMove({ from: 'a7', to: 'a8', promotion: 'q' }, 'w');
    const knight = encodeMove({ from: 'a7', to: 'a8', promotion: 'n' }, 'w');
    for (const text of ['a8=Q', 'a8Q', 'a8=q', 'a7a8q', 'a8=Q+']) expect(game.parseAction(promo, text)).toEqual({ ok: true, action: queen });
    expect(game.parseAction(promo, 'a8=N')).toEqual({ ok: true, action: knight });
    expect(game.parseAction(promo, 'a7a8n')).toEqual({ ok: true, action: knight });
    expect(game.formatAction(promo, queen)).toBe('a8=Q+');
    expect(game.formatAction(promo, knight)).toBe('a8=N');
    expect(game.formatAction(promo, 0)).toMatch(/not a legal move/);

    const black = stateFromFen('4k3/8/8/8/8/8/p7/4K3 b - - 0 1');
    expect(game.parseAction(black, 'a1=R')).toEqual({ ok: true, action: encodeMove({ from: 'a2', to: 'a1', promotion: 'r' }, 'b') });
  });

  it('explains why a move is refused', () => {
    const start = game.initialState(new Rng(0));
    const error = (state: ChessState, text: string): string => {
      const parsed = game.parseAction(state, text);
      if (parsed.ok) throw new Error(`${text} was accepted`);
      return parsed.error;
    };
    expect(error(start, '')).toMatch(/empty move/);
    expect(error(start, 'hello')).toMatch(/cannot read 'hello' as a move: type a move in SAN/);
    expect(error(start, '--')).toMatch(/cannot read/);
    expect(error(start, 'Nf5')).toMatch(/^Nf5 is not a legal move here; legal moves: .*Nf3/);
    expect(error(start, 'e3e4')).toMatch(/no piece on e3/);
    expect(error(start, 'e7e5')).toMatch(/pawn on e7 is black's, and white is to move/);
    expect(error(start, 'g1g3')).toMatch(/knight on g1 cannot move to g3/);
    expect(error(start, 'O-O')).toMatch(/squares between the king and the rook are not empty/);
    const pinned = stateFromFen('4k3/4r3/8/8/8/8/4N3/4K3 w - - 0 1');
    expect(error(pinned, 'Nc3')).toMatch(/illegal move Nc3: it would leave the king in check/);
    expect(error(pinned, 'e2c3')).toMatch(/illegal move e2c3: it would leave the king in check/);
    const checked = stateFromFen('4k3/4r3/8/8/8/8/8/R3K3 w Q - 0 1');
    expect(error(checked, 'Ra2')).toMatch(/king is in check and this move does not get it out of check/);
    expect(error(checked, 'O-O-O')).toMatch(/cannot castle out of check/);
    expect(error(stateFromFen('4k3/8/8/8/8/8/8/R3K3 w - - 0 1'), 'O-O-O')).toMatch(/can no longer castle queenside/);
    expect(error(stateFromFen('3rk3/8/8/8/8/8/8/R3K3 w Q - 0 1'), 'O-O-O')).toMatch(/cross or land on an attacked square/);
    expect(error(stateFromFen('4k3/P7/8/8/8/8/8/4K3 w - - 0 1'), 'a7a8')).toMatch(/must promote; add q, r, b or n/);
    expect(error(start, 'e2e4q')).toMatch(/only a pawn reaching the last rank can promote/);
  });

  it('renders the board with Unicode pieces, labels and the side to move, flipped for black', () => {
    const state = play(game, game.initialState(new Rng(0)), 'e4');
    const white = game.render(state);
    expect(white).toContain('    a b c d e f g h');
    expect(white).toContain(' 8  ♜ ♞ ♝ ♛ ♚ ♝ ♞ ♜  8');
    expect(white).toContain(' 4  · · · · ♙ · · ·  4');
    expect(white).toContain(' 1  ♖ ♘ ♗ ♕ ♔ ♗ ♘ ♖  1');
    expect(white).toContain('Black to move (move 1, ply 1 of 512)');
    const lines = white.split('\n');
    expect(lines[1].startsWith(' 8')).toBe(true);
    const black = game.render(state, 1);
    expect(black).toContain('    h g f e d c b a');
    expect(black.split('\n')[1]).toBe(' 1  ♖ ♘ ♗ ♔ ♕ ♗ ♘ ♖  1');
    const mated = play(game, game.initialState(new Rng(0)), 'f3', 'e5', 'g4', 'Qh4#');
    expect(game.render(mated)).toContain('Game over: black wins by checkmate');
    expect(game.render(stateFromFen('4k3/4r3/8/8/8/8/8/4K3 w - - 0 1'))).toContain('White to move, in check');
  });
});

describe('bots', () => {
  it('greedy takes the most valuable piece, prefers mate in one, and is reproducible', async () => {
    const game = makeGame();
    const greedy = new GreedyAgent(game, 1);
    // Rook can take the queen (d5) or a knight (h5); the pawn can take a rook.
    const capture = stateFromFen('4k3/8/8/3q3n/8/8/8/3RK3 w - - 0 1');
    expect(game.formatAction(capture, (await greedy.act([capture]))[0])).toBe('Rxd5');
    // Mate in one (Ra8# or Rd8#) beats winning a rook (Rxh2).
    const mate = stateFromFen('6k1/5ppp/8/8/8/8/3R3r/R3K3 w - - 0 1');
    for (let i = 0; i < 5; i++) expect(game.formatAction(mate, (await greedy.act([mate]))[0])).toMatch(/^R[ad]8#$/);
    // Ties are broken by the seed, reproducibly.
    const start = game.initialState(new Rng(0));
    const pick = async (seed: number): Promise<number[]> => {
      const agent = chessPlugin.bots!.greedy(game, seed);
      return Array.from(await agent.act([start, start, start, start]));
    };
    expect(await pick(5)).toEqual(await pick(5));
    expect(new Set([...(await pick(1)), ...(await pick(2)), ...(await pick(3))]).size).toBeGreaterThan(1);
  });

  it('greedy beats random and only plays legal moves', async () => {
    const game = makeGame({ maxPlies: 300 });
    const greedy = new GreedyAgent(game, 7);
    const random = new RandomAgent(game, 7);
    const rng = new Rng(7);
    let score = 0;
    for (let g = 0; g < 4; g++) {
      const state = game.initialState(rng);
      const greedySeat = g % 2;
      while (!game.isTerminal(state)) {
        const agent = game.currentPlayer(state) === greedySeat ? greedy : random;
        game.applyAction(state, (await agent.act([state]))[0], rng); // throws on an illegal action
      }
      score += game.returns(state)[greedySeat];
    }
    expect(score).toBeGreaterThan(0);
  });
});

describe('input planes', () => {
  const game = makeGame(); // history 2: 3 x 14 + 7 = 49 channels
  const C = 49;
  const at = (planes: Float32Array, square: string, channel: number): number =>
    planes[(('abcdefgh'.indexOf(square[0]) + (Number(square[1]) - 1) * 8) * C) + channel];

  it('writes every element, from the perspective seat', () => {
    expect(game.encoder.shape).toEqual([8, 8, C]);
    expect(game.encoder.version).toBe('chess-v2-h2');
    const state = play(game, game.initialState(new Rng(0)), 'e4', 'c5');
    const planes = new Float32Array(game.encoder.size + 10).fill(Number.NaN);
    game.encoder.encode(state, 0, planes, 5);
    expect(planes.subarray(5, 5 + game.encoder.size).every((v) => !Number.isNaN(v))).toBe(true);
    expect(Number.isNaN(planes[4]) && Number.isNaN(planes[5 + game.encoder.size])).toBe(true);

    const white = planes.subarray(5);
    // t = 0: white pawn on e4 (own pawns, channel 0), black pawn on c5 (opponent pawns, channel 6), king e1 (channel 5).
    expect(at(white, 'e4', 0)).toBe(1);
    expect(at(white, 'e2', 0)).toBe(0);
    expect(at(white, 'c5', 6)).toBe(1);
    expect(at(white, 'e1', 5)).toBe(1);
    expect(at(white, 'e8', 11)).toBe(1);
    // t = 1 (after 1. e4): black pawn still on c7; t = 2 (start): white pawn on e2.
    expect(at(white, 'c7', 14 + 6)).toBe(1);
    expect(at(white, 'e4', 14 + 0)).toBe(1);
    expect(at(white, 'e2', 28 + 0)).toBe(1);
    // Constant planes: colour 0 (white), to move 1, all castling rights, half-move clock 0.
    expect([42, 43, 44, 45, 46, 47, 48].map((ch) => at(white, 'a1', ch))).toEqual([0, 1, 1, 1, 1, 1, 0]);
    // Nothing depends on the ply count or the cap: the same position under another cap encodes the same.
    const otherCap = makeGame({ maxPlies: 37 });
    const again = new Float32Array(otherCap.encoder.size);
    otherCap.encoder.encode(play(otherCap, otherCap.initialState(new Rng(0)), 'e4', 'c5'), 0, again, 0);
    expect(Array.from(again)).toEqual(Array.from(white.subarray(0, game.encoder.size)));

    // Black's view: board flipped vertically, so black's own pawn on c5 sits at relative rank 4 (c4's cell).
    const black = new Float32Array(game.encoder.size);
    game.encoder.encode(state, 1, black, 0);
    expect(at(black, 'c4', 0)).toBe(1);
    expect(at(black, 'e5', 6)).toBe(1);
    expect(at(black, 'e1', 5)).toBe(1); // black king e8 -> relative e1
    expect([42, 43].map((ch) => at(black, 'h8', ch))).toEqual([1, 0]);
  });

  it('marks repetitions and leaves history before the start empty', () => {
    const state = play(game, game.initialState(new Rng(0)), 'Nf3', 'Nf6', 'Ng1', 'Ng8');
    const planes = new Float32Array(game.encoder.size);
    game.encoder.encode(state, 0, planes, 0);
    expect(at(planes, 'd4', 12)).toBe(1); // current position seen once before
    expect(at(planes, 'd4', 13)).toBe(0);
    expect(at(planes, 'd4', 14 + 12)).toBe(0);
    const fresh = new Float32Array(game.encoder.size);
    game.encoder.encode(game.initialState(new Rng(0)), 0, fresh, 0);
    for (let ch = 14; ch < 42; ch++) expect(at(fresh, 'e2', ch)).toBe(0);
  });

  it('hash tells apart states the encoder tells apart', () => {
    const a = play(game, game.initialState(new Rng(0)), 'Nf3', 'Nc6', 'Nc3');
    const b = play(game, game.initialState(new Rng(0)), 'Nc3', 'Nc6', 'Nf3');
    expect(toFen(a)).toBe(toFen(b));
    expect(game.hash(a)).not.toBe(game.hash(b)); // different recent history
    expect(game.hash(game.clone(a))).toBe(game.hash(a));
    const noHistory = makeGame({ history: 0 });
    const c = play(noHistory, noHistory.initialState(new Rng(0)), 'Nf3', 'Nc6', 'Nc3');
    const d = play(noHistory, noHistory.initialState(new Rng(0)), 'Nc3', 'Nc6', 'Nf3');
    expect(noHistory.hash(c)).toBe(noHistory.hash(d));
  });
});

describe('outcome metrics for az eval', () => {
  it('say how the game ended and where the material stood, from each seat', () => {
    const game = makeGame();
    const metrics = chessPlugin.outcomeMetrics as NonNullable<typeof chessPlugin.outcomeMetrics>;
    // Scholar's mate: white mates at ply 7, a pawn up (Qxf7 took it).
    const mated = play(game, game.initialState(new Rng(0)), 'e4', 'e5', 'Bc4', 'Nc6', 'Qh5', 'Nf6', 'Qxf7#');
    const white = metrics(game, mated, 0);
    expect(white['ended by checkmate']).toBe(1);
    expect(Object.entries(white).filter(([k, v]) => k.startsWith('ended by') && v === 1)).toHaveLength(1);
    expect(white.plies).toBe(7);
    expect(white['material lead at the end']).toBe(1);
    expect(metrics(game, mated, 1)['material lead at the end']).toBe(-1);
    // A draw with a lead: K+R v K, capped at ply 1, adjudication off.
    const capped = makeGame({ maxPlies: 1 });
    const end = play(capped, stateFromFen('4k3/8/8/8/8/8/8/R3K3 w - - 0 1', { maxPlies: 1 }), 'Ra2');
    expect(metrics(capped, end, 1)['ended by move limit']).toBe(1);
    expect(metrics(capped, end, 1)['material lead at the end']).toBe(-5);
  });
});
