// End-to-end: `az play --game chess` through the built binary with piped input, as a user would type it.
// Kept to a few seconds per run: random opponent, and a 1-iteration toy model for the --model path.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { azInTempDir } from './test-cli.js';

const { work, az } = azInTempDir('az-chess-play-', 120_000);

/** The FENs (six fields, eight ranks) printed in `text`, each at the end of a line (after the prompt). */
function fens(text: string): string[] {
  return [...text.matchAll(/(?:[1-8pnbrqkPNBRQK]+\/){7}[1-8pnbrqkPNBRQK]+ [wb] (?:-|K?Q?k?q?) (?:-|[a-h][36]) \d+ \d+$/gm)].map((m) => m[0]);
}

describe('az play --game chess', () => {
  it('shows the board, takes SAN and UCI, hints on illegal input, undoes, prints the FEN and resigns', () => {
    // e5 is illegal for white at the start; e4 (SAN) and g1f3 (UCI) are legal whatever black replies.
    const input = ['e5', 'e4', 'g1f3', 'undo', 'fen', 'resign', ''].join('\n');
    const r = az(['play', '--game', 'chess', '--opponent', 'random', '--color', 'white', '--seed', '3'], input);
    expect(r.code).toBe(0);
    // The game's own board: Unicode pieces, files and ranks labelled, status line.
    expect(r.stdout).toContain('    a b c d e f g h');
    expect(r.stdout).toMatch(/^ 8 {2}♜ ♞ ♝ ♛ ♚ ♝ ♞ ♜ {2}8$/m);
    expect(r.stdout).toMatch(/^ 1 {2}♖ ♘ ♗ ♕ ♔ ♗ ♘ ♖ {2}1$/m);
    expect(r.stdout).toContain('White to move (move 1, ply 0 of 512)');
    // The illegal move is refused with a hint listing the legal moves (once), then play goes on.
    expect(r.stdout).toMatch(/e5 is not a legal move here; legal moves: .*\bNf3\b/);
    expect(r.stdout.match(/legal moves:/g)).toHaveLength(1);
    // e4 and g1f3 were played: black replied twice, and the knight reached f3 before the undo.
    expect(r.stdout.match(/seat 1 \(random\) plays \S+/g)).toHaveLength(2);
    expect(r.stdout).toMatch(/^ 3 {2}(\S ){5}♘ \S \S {2}3$/m);
    // undo took back g1f3 and black's reply: the FEN is the position after 1. e4 and black's first move.
    const [fen] = fens(r.stdout);
    expect(fen).toBeDefined();
    const [placement, turn, castling, , , fullmove] = fen.split(' ');
    expect(turn).toBe('w');
    expect(fullmove).toBe('2');
    expect(castling).toBe('KQkq');
    expect(placement.split('/')[4]).toBe('4P3'); // the e4 pawn
    expect(placement.split('/')[7]).toBe('RNBQKBNR'); // the g1 knight is home again
    expect(r.stdout).toContain('you resigned.');
  });

  it('refuses --seat and --color naming different seats (one would be ignored); agreeing ones are fine', () => {
    const clash = az(['play', '--game', 'chess', '--opponent', 'random', '--seat', '0', '--color', 'black'], 'resign\n');
    expect(clash.code).toBe(2);
    expect(clash.stderr).toContain('az play: --seat 0 and --color black (seat 1) name different seats; give one of them');
    expect(clash.stdout).toBe('');
    const agree = az(['play', '--game', 'chess', '--opponent', 'random', '--seat', '1', '--color', 'black'], 'resign\n');
    expect(agree.code, agree.stderr).toBe(0);
    expect(agree.stdout).toContain('you are seat 1');
  });

  it('plays a trained model from a FEN with --color black, and the model mates in one', () => {
    // A toy model (one iteration, 4 filters): enough for the checkpoint path; the search finds the mate.
    const train = az([
      'train', '--game', 'chess', '--iterations', '1', '--games-per-iter', '2', '--parallel-games', '2', '--sims', '4',
      '--config', 'maxPlies=8', '--network', 'resnet:4x1', '--train-steps', '1', '--batch-size', '8', '--eval-games', '0',
      '--out', 'toy', '--quiet',
    ]);
    expect(train.code, train.stderr).toBe(0);
    // White to move mates with Ra8#; the model was trained from the standard start, and --fen is allowed anyway.
    const fen = '6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1';
    const r = az(['play', '--game', 'chess', '--model', 'toy', '--color', 'black', '--fen', fen, '--sims', '200'], 'resign\n');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('plays Ra8#');
    expect(r.stdout).toContain('Game over: white wins by checkmate');
    expect(r.stdout).toContain('you lose');
    // Black's view: rank 1 at the top, files from h to a.
    expect(r.stdout).toContain('    h g f e d c b a');
    // Settings the network depends on must still match the model's (history: the training hints' 0);
    // the cap is not one of them.
    const bad = az(['play', '--game', 'chess', '--model', 'toy', '--config', 'history=2'], 'resign\n');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('trained with history=0');
    const longer = az(['play', '--game', 'chess', '--model', 'toy', '--config', 'maxPlies=50'], 'resign\n');
    expect(longer.code, longer.stderr).toBe(0);
    expect(longer.stdout).toContain('ply 0 of 50');
    // Unless given, settings the network does not depend on are the game's own rules, not the training
    // run's variant (this model trained with maxPlies=8).
    const standard = az(['play', '--game', 'chess', '--model', 'toy'], 'resign\n');
    expect(standard.code, standard.stderr).toBe(0);
    expect(standard.stdout).toContain('ply 0 of 512');
  });

  it('finds a run trained with the training hints (history 0) when no history is asked, and says what to train when one is', () => {
    // The run of the test above (--out toy): az train's chess hints set history=0 where the game's default is 2.
    const found = az(['play', '--game', 'chess', '--models', '.', '--sims', '2'], 'resign\n');
    expect(found.code, found.stderr).toBe(0);
    expect(found.stdout).toContain('using the model in toy');
    // Asked for explicitly, history must be the model's; the advice leaves out the position (a model plays any).
    const fen = '6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1';
    const other = az(['play', '--game', 'chess', '--models', '.', '--config', 'history=2', '--fen', fen], 'resign\n');
    expect(other.code, other.stderr).toBe(0);
    expect(other.stdout).not.toContain('using the model');
    expect(other.stdout).toContain('toy has history=0 where 2 is asked');
    expect(other.stdout).toContain('train one with: az train --game chess --config history=2 --out ./<name>');
  });
});
