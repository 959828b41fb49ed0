import { ConfigError, Rng, createGame, defaultRegistry, randomLegalAction } from '@az/core';
import { describe, expect, it } from 'vitest';
import { formatCard, parseCard } from './cards.js';
import { blobPlugin, registerBlob } from './plugin.js';
import { bidAction } from './rules.js';
import { PHASE_OVER } from './state.js';
import { scoreRange, scoreToValue, valueToScore } from './value.js';
import { card, makeGame, play, randomPlayout, threeSeatTwoCardDeal } from './test-helpers.js';

describe('mask and applyAction agree', () => {
  const configs: Record<string, unknown>[] = [
    { players: 3, maxHand: 3 },
    { players: 5, trump: 'turned-up', scoring: 'oh-hell', missPenalty: true, maxHand: 4 },
    { players: 8, rounds: 'one', roundCards: 6 },
  ];
  configs.forEach((config, index) => {
    it(`accepts exactly the masked actions (${JSON.stringify(config)})`, () => {
      const game = makeGame(config);
      const mask = new Uint8Array(game.masker.actionSize + 3);
      for (const seed of index === 0 ? [1, 2] : [1]) {
        for (const state of randomPlayout(game, seed)) {
          const count = game.masker.fillMask(state, mask, 3);
          let legal = 0;
          for (let a = 0; a < game.masker.actionSize; a++) {
            let accepted = true;
            try {
              game.applyAction(state.clone(), a, new Rng(a));
            } catch {
              accepted = false;
            }
            expect(accepted, `action ${a} (${game.formatAction(state, a)})`).toBe(mask[3 + a] === 1);
            if (accepted) {
              legal++;
              // Every legal action survives format -> parse.
              expect(game.parseAction(state, game.formatAction(state, a))).toEqual({ ok: true, action: a });
            }
          }
          expect(count).toBe(legal);
          expect(legal > 0).toBe(!game.isTerminal(state));
        }
      }
    });
  });
});

describe('notation', () => {
  it('formats and parses cards in the usual spellings', () => {
    expect(formatCard(card('QS'))).toBe('QS');
    expect(formatCard(parseCard('10h'))).toBe('10H');
    expect(formatCard(parseCard('7♦'))).toBe('7D');
    expect(formatCard(parseCard('qs'))).toBe('QS');
    expect(formatCard(parseCard('T♠'))).toBe('10S');
    expect(formatCard(parseCard('A♥️'))).toBe('AH');
    expect(parseCard('2s')).toBe(0);
    expect(parseCard('AD')).toBe(51);
    for (const bad of ['', 'Q', '1S', '11H', 'QX', 'bid 2']) expect(parseCard(bad)).toBe(-1);
    const game = makeGame();
    expect(game.formatAction(game.initialState(new Rng(0)), bidAction(2))).toBe('bid 2');
  });

  it('explains refusals', () => {
    const { game, state } = threeSeatTwoCardDeal();
    expect(game.parseAction(state, '2')).toEqual({ ok: true, action: bidAction(2) });
    expect(game.parseAction(state, 'Bid 1')).toEqual({ ok: true, action: bidAction(1) });
    expect(game.parseAction(state, 'bid 3')).toEqual({ ok: false, error: 'a bid must be 0..2 (2 cards this round)' });
    expect(game.parseAction(state, 'AH')).toMatchObject({ ok: false, error: expect.stringMatching(/time to bid/) });
    expect(game.parseAction(state, 'hello')).toMatchObject({ ok: false, error: expect.stringMatching(/not a move/) });
    play(game, state, ['1', '0', '0']);
    expect(game.parseAction(state, 'QS')).toEqual({ ok: false, error: "you don't hold QS" });
    expect(game.parseAction(state, 'bid 1')).toEqual({ ok: false, error: 'bidding is over: play a card' });
    expect(game.parseAction(state, 'a♥')).toEqual({ ok: true, action: card('AH') });
  });

  it('renders only what the perspective seat may see', () => {
    const { game, state } = threeSeatTwoCardDeal();
    play(game, state, ['bid 1', 'bid 0', 'bid 0', 'AH']);
    const mine = game.render(state, 2);
    expect(mine).toContain('Your hand (seat 2): ♥ K  ♣ 3');
    expect(mine).not.toContain('5♦'); // seat 0's hand is hidden
    expect(mine).not.toContain('Hand of seat');
    expect(mine).toContain('Trick 1: seat 1 A♥ (hearts led)');
    expect(mine).toContain('trump spades');
    const all = game.render(state);
    expect(all).toContain('Hand of seat 0: ♠ 4  ♦ 5');
  });
});

describe('returns', () => {
  it('maps each seat\'s total linearly from its score range to [-1, 1]', () => {
    const game = makeGame({ players: 4 });
    expect(game.scoreRange).toEqual({ min: 0, max: 17 * 10 + 59 });
    expect(scoreToValue(0, game.scoreRange)).toBe(-1);
    expect(scoreToValue(229, game.scoreRange)).toBe(1);
    expect(valueToScore(scoreToValue(100, game.scoreRange), game.scoreRange)).toBeCloseTo(100, 10);
    const states = randomPlayout(game, 4);
    const last = states[states.length - 1];
    expect(last.phase).toBe(PHASE_OVER);
    const values = game.returns(last);
    for (let s = 0; s < 4; s++) {
      expect(values[s]).toBeCloseTo((2 * last.scores[s]) / 229 - 1, 6);
      expect(Math.abs(values[s])).toBeLessThanOrEqual(1);
    }
    expect(Array.from(game.returns(states[10]))).toEqual([0, 0, 0, 0]);
  });

  it('uses the single round\'s range for rounds=one and negative bounds with the miss penalty', () => {
    expect(makeGame({ rounds: 'one', roundCards: 5 }).scoreRange).toEqual({ min: 0, max: 15 });
    expect(makeGame({ rounds: 'one', roundCards: 5, scoring: 'oh-hell', missPenalty: true }).scoreRange).toEqual({ min: -5, max: 15 });
    expect(scoreRange({ scoring: 'oh-hell', missPenalty: false, schedule: [2, 1], rounds: 'game', maxHand: 2 })).toEqual({ min: 0, max: 23 });
  });
});

describe('state handling', () => {
  it('clones independently and hashes by content', () => {
    const game = makeGame();
    const rng = new Rng(3);
    const state = game.initialState(rng);
    for (let i = 0; i < 12; i++) game.applyAction(state, randomLegalAction(game, state, rng), rng);
    const copy = game.clone(state);
    expect(game.hash(copy)).toBe(game.hash(state));
    game.applyAction(copy, randomLegalAction(game, copy, rng), rng);
    expect(game.hash(copy)).not.toBe(game.hash(state));
    expect(state.moveCount).toBe(12);
  });

  it('is reproducible from the seed', () => {
    const a = randomPlayout(makeGame(), 77);
    const b = randomPlayout(makeGame(), 77);
    expect(a.map((s) => s.key())).toEqual(b.map((s) => s.key()));
  });
});

describe('plugin', () => {
  it('registers once and creates configured games through the registry', () => {
    registerBlob();
    registerBlob(); // idempotent
    expect(defaultRegistry.resolve('blob')).toBe(blobPlugin);
    const game = createGame('blob', { players: '5', trump: 'turned-up' });
    expect(game.numPlayers).toBe(5);
    expect(game.traits.information).toBe('imperfect');
    expect(game.traits.rewards).toBe('general-sum');
    expect(game.traits.chance).toBe(true);
    expect(() => createGame('blob', { players: 8, maxHand: 7 })).toThrow(ConfigError);
    const bot = blobPlugin.bots!.heuristic(makeGame({ players: 5 }), 0);
    expect(bot.name).toBe('heuristic');
  });

  it('reports per-seat outcome metrics of a finished game', () => {
    const game = makeGame({ players: 3, maxHand: 3 });
    const states = randomPlayout(game, 8);
    const last = states[states.length - 1];
    const rounds = game.rules.schedule.length;
    for (let s = 0; s < 3; s++) {
      const m = blobPlugin.outcomeMetrics!(game, last, s);
      expect(m.score).toBe(last.scores[s]);
      expect(m.scorePerRound).toBeCloseTo(last.scores[s] / rounds, 10);
      expect(m.bidAccuracy * rounds).toBeCloseTo(last.exactBids[s], 10);
      // Blob scoring: every exact round scores 10..10 + maxHand, every miss 0.
      expect(last.scores[s]).toBeGreaterThanOrEqual(10 * last.exactBids[s]);
      expect(last.scores[s]).toBeLessThanOrEqual((10 + game.rules.maxHand) * last.exactBids[s]);
      expect(m.value).toBeCloseTo(game.returns(last)[s], 6);
    }
    expect(last.exactBids.some((n) => n > 0)).toBe(true);
  });
});
