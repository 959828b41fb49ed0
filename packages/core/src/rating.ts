/**
 * Ratings from game results: score intervals that stay honest at small n (Wilson), Elo by maximum
 * likelihood over many players (Bradley-Terry with a draw counted as half a win and half a loss, as Ordo
 * does), with standard errors from the curvature of the likelihood, likelihood of superiority, and a
 * sequential probability ratio test for stopping a head-to-head match early.
 */

/** z for a two-sided 95% interval. */
export const Z95 = 1.959963984540054;
const LN10_400 = Math.LN10 / 400;

/** Expected score of a player rated `diff` Elo above its opponent (the logistic Elo curve). */
export function expectedScore(diff: number): number {
  return 1 / (1 + Math.pow(10, -diff / 400));
}

/** The Elo difference whose expected score is `score` (infinite at 0 and 1). */
export function eloFromScore(score: number): number {
  if (score <= 0) return -Infinity;
  if (score >= 1) return Infinity;
  return -400 * Math.log10(1 / score - 1);
}

/** A confidence interval, as returned by {@link wilsonInterval}. */
export interface Interval {
  /** Lower bound. */
  readonly low: number;
  /** Upper bound. */
  readonly high: number;
}

/**
 * Wilson score interval for a proportion of `successes` in `n` trials (a draw counting half is fine for
 * a score): never zero width, never outside [0, 1], sensible at n = 1. n = 0 gives [0, 1].
 */
export function wilsonInterval(successes: number, n: number, z = Z95): Interval {
  if (n <= 0) return { low: 0, high: 1 };
  const p = successes / n;
  const z2 = z * z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / (1 + z2 / n);
  // At p = 0 or 1 the bound on that side is exactly 0 or 1 (centre - half cancels to it only up to
  // rounding, which would leave a finite Elo bound below an infinite estimate).
  return { low: successes <= 0 ? 0 : Math.max(0, centre - half), high: successes >= n ? 1 : Math.min(1, centre + half) };
}

/** Standard normal cumulative distribution (Abramowitz-Stegun 7.1.26 via erf, |error| < 1.5e-7). */
export function normalCdf(x: number): number {
  const t = 1 / (1 + (0.3275911 * Math.abs(x)) / Math.SQRT2);
  const y = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-(x * x) / 2);
  return x >= 0 ? 0.5 * (1 + y) : 0.5 * (1 - y);
}

/** Two-sided 97.5% quantile of Student's t with `df` degrees of freedom (exact table to 30, then normal-ish). */
export function studentT975(df: number): number {
  const table = [Infinity, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131, 2.12, 2.11, 2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042];
  if (df < 1) return Infinity;
  if (df < table.length) return table[df];
  return Z95 + 2.4 / df;
}

/** Results of player `a` against player `b` (from a's side). */
/** The games two players played against each other, from `a`'s side: the input of {@link fitElo}. */
export interface PairResult {
  /** One player's name. */
  readonly a: string;
  /** The other player's name. */
  readonly b: string;
  /** Games `a` won. */
  readonly wins: number;
  /** Games drawn. */
  readonly draws: number;
  /** Games `a` lost. */
  readonly losses: number;
}

/** One player's rating in an {@link EloFit}. */
export interface RatedPlayer {
  /** The player's name, as in the results. */
  readonly name: string;
  /** The fitted rating (the anchor's is fixed). */
  readonly elo: number;
  /** Standard error relative to the anchor (0 for the anchor). */
  readonly se: number;
  /** Lower end of the 95% interval of `elo`. */
  readonly low: number;
  /** Upper end of the 95% interval of `elo`. */
  readonly high: number;
  /** Games the player played (the prior's virtual draws not counted). */
  readonly games: number;
  /** Score over all its games (draws half). */
  readonly score: number;
}

/** The result of {@link fitElo}: every player's rating relative to one anchor. */
export interface EloFit {
  /** Best first. */
  readonly players: readonly RatedPlayer[];
  /** The player whose rating was held fixed. */
  readonly anchor: string;
  /** The anchor's fixed rating. */
  readonly anchorElo: number;
  /** Virtual draws added to every pair that played (keeps all-win records finite). */
  readonly priorDraws: number;
  /** Likelihood of superiority: `los[i][j]` = P(player i stronger than player j), in `players` order. */
  readonly los: readonly (readonly number[])[];
  /** Newton steps taken before the fit converged (200 at most). */
  readonly iterations: number;
}

/** How {@link fitElo} anchors the scale and regularizes lopsided records. */
export interface EloFitOptions {
  /** The player whose rating is fixed (default: the first name in `results`). */
  readonly anchor?: string;
  /** The anchor's rating (default 0), e.g. a known engine's published Elo. */
  readonly anchorElo?: number;
  /**
   * Virtual draws added to each pair that played (default 1): without them a player who won every game
   * has no finite maximum-likelihood rating. 0 gives the plain maximum likelihood.
   */
  readonly priorDraws?: number;
}

/**
 * Elo ratings by maximum likelihood (Newton's method on the Bradley-Terry log-likelihood with draws as
 * half a win and half a loss), anchored at one player, with 95% intervals from the inverse Hessian
 * (the uncertainty of each rating relative to the anchor). Throws if the players do not form one
 * connected group (relative ratings across groups are undefined).
 */
export function fitElo(results: readonly PairResult[], options: EloFitOptions = {}): EloFit {
  const names: string[] = [];
  const index = new Map<string, number>();
  const id = (name: string): number => {
    let i = index.get(name);
    if (i === undefined) {
      i = names.length;
      names.push(name);
      index.set(name, i);
    }
    return i;
  };
  for (const r of results) {
    id(r.a);
    id(r.b);
  }
  const anchorName = options.anchor ?? names[0];
  if (anchorName === undefined) throw new Error('fitElo: no games');
  const anchor = index.get(anchorName);
  if (anchor === undefined) throw new Error(`fitElo: the anchor '${anchorName}' played no games (players: ${names.join(', ')})`);
  const anchorElo = options.anchorElo ?? 0;
  const prior = options.priorDraws ?? 1;
  const N = names.length;
  // Pairwise games and scores (i's score against j).
  const games = Array.from({ length: N }, () => new Float64Array(N));
  const score = Array.from({ length: N }, () => new Float64Array(N));
  const realGames = new Float64Array(N);
  const realScore = new Float64Array(N);
  for (const r of results) {
    const i = id(r.a);
    const j = id(r.b);
    const n = r.wins + r.draws + r.losses;
    if (n === 0) continue;
    games[i][j] += n;
    games[j][i] += n;
    score[i][j] += r.wins + r.draws / 2;
    score[j][i] += r.losses + r.draws / 2;
    realGames[i] += n;
    realGames[j] += n;
    realScore[i] += r.wins + r.draws / 2;
    realScore[j] += r.losses + r.draws / 2;
  }
  for (let i = 0; i < N; i++) {
    for (let j = 0; j < N; j++) {
      if (i !== j && games[i][j] > 0) {
        games[i][j] += prior;
        score[i][j] += prior / 2;
      }
    }
  }
  checkConnected(names, games, anchor);

  const free = names.map((_, i) => i).filter((i) => i !== anchor);
  const F = free.length;
  const elo = new Float64Array(N).fill(anchorElo);
  const logLikelihood = (r: Float64Array): number => {
    let ll = 0;
    for (let i = 0; i < N; i++) {
      for (let j = i + 1; j < N; j++) {
        if (games[i][j] === 0) continue;
        const e = expectedScore(r[i] - r[j]);
        ll += score[i][j] * Math.log(Math.max(e, 1e-300)) + score[j][i] * Math.log(Math.max(1 - e, 1e-300));
      }
    }
    return ll;
  };
  const gradHess = (r: Float64Array): { grad: Float64Array; hess: Float64Array[] } => {
    const grad = new Float64Array(F);
    const hess = Array.from({ length: F }, () => new Float64Array(F));
    const pos = new Int32Array(N).fill(-1);
    free.forEach((i, k) => (pos[i] = k));
    for (let i = 0; i < N; i++) {
      for (let j = 0; j < N; j++) {
        if (i === j || games[i][j] === 0) continue;
        const e = expectedScore(r[i] - r[j]);
        const pi = pos[i];
        if (pi < 0) continue;
        grad[pi] += LN10_400 * (score[i][j] - games[i][j] * e);
        const w = LN10_400 * LN10_400 * games[i][j] * e * (1 - e);
        hess[pi][pi] -= w;
        const pj = pos[j];
        if (pj >= 0) hess[pi][pj] += w;
      }
    }
    return { grad, hess };
  };
  let iterations = 0;
  let ll = logLikelihood(elo);
  for (; iterations < 200; iterations++) {
    const { grad, hess } = gradHess(elo);
    // Newton step: solve (-H) d = g.
    const negH = hess.map((row) => row.map((v) => -v));
    const step = solve(negH, grad);
    let t = 1;
    let improved = false;
    for (let halvings = 0; halvings < 40; halvings++, t /= 2) {
      const trial = Float64Array.from(elo);
      free.forEach((i, k) => (trial[i] += t * step[k]));
      const trialLl = logLikelihood(trial);
      if (trialLl >= ll - 1e-12) {
        elo.set(trial);
        improved = trialLl > ll + 1e-12;
        ll = trialLl;
        break;
      }
    }
    const maxStep = Math.max(0, ...Array.from(step, (s) => Math.abs(s * t)));
    if (!improved || maxStep < 1e-7) break;
  }
  const { hess } = gradHess(elo);
  const cov = invert(hess.map((row) => row.map((v) => -v)));
  const variance = new Float64Array(N);
  const pos = new Int32Array(N).fill(-1);
  free.forEach((i, k) => {
    pos[i] = k;
    variance[i] = cov[k][k];
  });
  const covOf = (i: number, j: number): number => (pos[i] < 0 || pos[j] < 0 ? 0 : cov[pos[i]][pos[j]]);
  const order = names.map((_, i) => i).sort((x, y) => elo[y] - elo[x]);
  const players: RatedPlayer[] = order.map((i) => {
    const se = Math.sqrt(Math.max(0, variance[i]));
    return { name: names[i], elo: elo[i], se, low: elo[i] - Z95 * se, high: elo[i] + Z95 * se, games: realGames[i], score: realGames[i] ? realScore[i] / realGames[i] : 0 };
  });
  const los = order.map((i) =>
    order.map((j) => {
      if (i === j) return 0.5;
      const sd = Math.sqrt(Math.max(1e-12, variance[i] + variance[j] - 2 * covOf(i, j)));
      return normalCdf((elo[i] - elo[j]) / sd);
    }),
  );
  return { players, anchor: anchorName, anchorElo, priorDraws: prior, los, iterations };
}

function checkConnected(names: readonly string[], games: readonly Float64Array[], start: number): void {
  const seen = new Uint8Array(names.length);
  const queue = [start];
  seen[start] = 1;
  while (queue.length) {
    const i = queue.pop() as number;
    for (let j = 0; j < names.length; j++) {
      if (!seen[j] && games[i][j] > 0) {
        seen[j] = 1;
        queue.push(j);
      }
    }
  }
  const apart = names.filter((_, i) => !seen[i]);
  if (apart.length) throw new Error(`fitElo: ${apart.join(', ')} never played (directly or through others) against ${names[start]}: no relative rating exists`);
}

/** Solves A x = b by Gaussian elimination with partial pivoting (A is small and positive definite here). */
function solve(A: readonly Float64Array[] | number[][], b: Float64Array): Float64Array {
  const n = b.length;
  const m = A.map((row, i) => [...Array.from(row), b[i]]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r][c]) > Math.abs(m[p][c])) p = r;
    [m[c], m[p]] = [m[p], m[c]];
    const pivot = m[c][c] || 1e-300;
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = m[r][c] / pivot;
      for (let k = c; k <= n; k++) m[r][k] -= f * m[c][k];
    }
  }
  return Float64Array.from({ length: n }, (_, i) => m[i][n] / (m[i][i] || 1e-300));
}

function invert(A: readonly (Float64Array | number[])[]): Float64Array[] {
  const n = A.length;
  const out = Array.from({ length: n }, () => new Float64Array(n));
  for (let c = 0; c < n; c++) {
    const e = new Float64Array(n);
    e[c] = 1;
    const col = solve(A as number[][], e);
    for (let r = 0; r < n; r++) out[r][c] = col[r];
  }
  return out;
}

/** Likelihood of superiority from a head-to-head record (draws carry no information about who is better). */
export function losFromRecord(wins: number, losses: number): number {
  if (wins + losses === 0) return 0.5;
  return normalCdf((wins - losses) / Math.sqrt(wins + losses));
}

/** What an SPRT says to do: accept H0, accept H1, or play more games. */
export type SprtDecision = 'H0' | 'H1' | 'continue';

/** The state of a sequential probability ratio test after some games (see {@link sprt}). */
export interface SprtResult {
  /** The log-likelihood ratio of H1 against H0 so far. */
  readonly llr: number;
  /** The bound at or below which H0 is accepted, log(beta / (1 - alpha)). */
  readonly lower: number;
  /** The bound at or above which H1 is accepted, log((1 - beta) / alpha). */
  readonly upper: number;
  /** 'H1': the Elo difference is elo1 rather than elo0 (accept); 'H0': elo0 rather than elo1 (reject). */
  readonly decision: SprtDecision;
}

/**
 * Sequential probability ratio test of H0: Elo difference = elo0 against H1: = elo1, from a
 * win/draw/loss record (the normal approximation to the trinomial log-likelihood ratio that fishtest
 * uses, logistic Elo). alpha and beta are the error rates (default 0.05 each).
 */
export function sprt(wins: number, draws: number, losses: number, elo0: number, elo1: number, alpha = 0.05, beta = 0.05): SprtResult {
  const lower = Math.log(beta / (1 - alpha));
  const upper = Math.log((1 - beta) / alpha);
  const n = wins + draws + losses;
  if (n === 0) return { llr: 0, lower, upper, decision: 'continue' };
  const mean = (wins + draws / 2) / n;
  // The per-game variance, with one virtual win and one virtual loss so that a one-sided start (all wins,
  // all draws) does not claim zero spread and decide after a game or two.
  const wv = (wins + 1) / (n + 2);
  const dv = draws / (n + 2);
  const mv = wv + dv / 2;
  const variance = wv + dv / 4 - mv * mv;
  const s0 = expectedScore(elo0);
  const s1 = expectedScore(elo1);
  const llr = ((s1 - s0) * (2 * mean - s0 - s1) * n) / (2 * variance);
  const decision: SprtDecision = llr >= upper ? 'H1' : llr <= lower ? 'H0' : 'continue';
  return { llr, lower, upper, decision };
}
