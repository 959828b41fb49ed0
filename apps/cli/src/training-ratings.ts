/**
 * `az train --rate-every K`: every K iterations the new checkpoint is copied to `<run>/rated/iter-NNNN`
 * and plays the fixed anchors (random and the game's bots) and the most recent rated checkpoints; Elo is
 * refitted over every game so far (random fixed at 0), written to `<run>/ratings.json`, and the new
 * checkpoint's rating goes into its metrics.jsonl line. `az rate <run>` can later rate the same
 * checkpoints together with more games or other anchors.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fitElo, type Agent, type Game, type GamePlugin, type PairResult } from '@az/core';
import type { BackendChoice } from '@az/nn';
import { closeAgent, gameFor, loadModel, makeAgent, type LoadedModel } from './agents.js';
import { playLadder, type LadderPlayer } from './ladder.js';

export interface TrainingRaterOptions {
  readonly every: number;
  /** Games per pairing. */
  readonly games: number;
  readonly simulations: number;
  /** Earlier rated checkpoints each new one plays (the most recent ones). */
  readonly previous: number;
  readonly seed: number;
  readonly backend?: BackendChoice;
  readonly threads?: number;
  /** Extra anchors, e.g. uci:stockfish,depth=1 for chess. */
  readonly anchors?: readonly string[];
}

interface Saved {
  readonly results: PairResult[];
}

export class TrainingRater {
  private readonly ratedDir: string;
  private readonly resultsFile: string;
  private readonly results: PairResult[];
  private readonly snapshots: string[] = [];
  private readonly models = new Map<string, LoadedModel>();
  private fixed: LadderPlayer[] | null = null;
  private game: Game<unknown> | null = null;

  constructor(
    private readonly plugin: GamePlugin,
    private readonly runDir: string,
    private readonly options: TrainingRaterOptions,
  ) {
    this.ratedDir = join(runDir, 'rated');
    this.resultsFile = join(this.ratedDir, 'results.json');
    // A resumed run keeps its earlier games and snapshots.
    this.results = existsSync(this.resultsFile) ? (JSON.parse(readFileSync(this.resultsFile, 'utf8')) as Saved).results : [];
  }

  /** The `rate` event of the trainer. */
  async rate(iteration: number, checkpointDir: string): Promise<Readonly<Record<string, unknown>> | undefined> {
    if (iteration % this.options.every !== 0) return undefined;
    const name = `iter-${String(iteration).padStart(4, '0')}`;
    const snapshot = join(this.ratedDir, name);
    mkdirSync(this.ratedDir, { recursive: true });
    rmSync(snapshot, { recursive: true, force: true });
    cpSync(checkpointDir, snapshot, { recursive: true });
    const model = await loadModel(this.plugin, snapshot, { backend: this.options.backend, threads: this.options.threads, log: () => undefined });
    this.models.set(snapshot, model);
    this.game ??= gameFor(this.plugin, {}, model);
    const game = this.game;
    const settings = { simulations: this.options.simulations, seed: this.options.seed + iteration, network: { backend: this.options.backend, threads: this.options.threads } };
    const me: LadderPlayer = { name, agent: await makeAgent(snapshot, this.plugin, game, settings, this.models) };
    const opponents: LadderPlayer[] = [...(await this.fixedAnchors(game))];
    const recent = this.snapshots.slice(-this.options.previous);
    for (const dir of recent) {
      if (!this.models.has(dir)) this.models.set(dir, await loadModel(this.plugin, dir, { backend: this.options.backend, threads: this.options.threads, log: () => undefined }));
      opponents.push({ name: dir.slice(this.ratedDir.length + 1), agent: await makeAgent(dir, this.plugin, game, settings, this.models) });
    }
    const ladder = await playLadder(game, [me, ...opponents], opponents.map((_, k) => [0, k + 1] as [number, number]), { games: this.options.games, seed: this.options.seed + iteration });
    this.results.push(...ladder.pairs);
    this.snapshots.push(snapshot);
    // Older snapshots are no longer played: free their networks.
    for (const [dir, m] of this.models) {
      if (!this.snapshots.slice(-this.options.previous).includes(dir)) {
        m.dispose();
        this.models.delete(dir);
      }
    }
    writeFileSync(this.resultsFile, JSON.stringify({ results: this.results } satisfies Saved, null, 2) + '\n');
    const played = this.results.filter((r) => r.wins + r.draws + r.losses > 0);
    const fit = fitElo(played, { anchor: 'random', anchorElo: 0 });
    writeFileSync(
      join(this.runDir, 'ratings.json'),
      JSON.stringify({ game: game.traits.id, anchor: { name: 'random', elo: 0 }, gamesPerPair: this.options.games, simulations: this.options.simulations, ratings: fit.players, pairs: this.results }, null, 2) + '\n',
    );
    const mine = fit.players.find((p) => p.name === name);
    return {
      elo: mine ? Math.round(mine.elo) : null,
      low: mine ? Math.round(mine.low) : null,
      high: mine ? Math.round(mine.high) : null,
      anchor: 'random',
      games: mine?.games ?? 0,
      pairs: ladder.pairs,
      ...(ladder.stopped ? { stopped: ladder.stopped } : {}),
    };
  }

  private async fixedAnchors(game: Game<unknown>): Promise<LadderPlayer[]> {
    if (this.fixed) return this.fixed;
    const names = ['random', ...Object.keys(this.plugin.bots ?? {}), ...(this.options.anchors ?? [])];
    const fixed: LadderPlayer[] = [];
    for (const [k, n] of names.entries()) fixed.push({ name: n, agent: await makeAgent(n, this.plugin, game, { simulations: this.options.simulations, seed: this.options.seed + 1000 + k }, this.models) });
    this.fixed = fixed;
    return fixed;
  }

  async close(): Promise<void> {
    for (const p of this.fixed ?? []) await closeAgent(p.agent as Agent<unknown>);
    for (const m of this.models.values()) m.dispose();
    this.models.clear();
  }
}
