import { describe, expect, it } from 'vitest';
import { defaultSearchConfig, nodeCapacityFor, playSearchConfig } from '@az/mcts';
import { DEFAULT_DETERMINIZATIONS, SearchSettingsError, gamePlayoutShare, playSearchHints, resolveSearchSettings, type GameSearchHints, type SearchChoices } from './search-settings.js';

const blobLike = { id: 'cards', information: 'imperfect' } as const;
const hintsOf = (choices: SearchChoices): GameSearchHints => ({ game: blobLike, ...choices });

describe('resolveSearchSettings', () => {
  it('takes the defaults where neither the user nor the game says anything', () => {
    const s = resolveSearchSettings({ game: blobLike }, {});
    expect(s.tree).toEqual({ ...defaultSearchConfig, nodeCapacity: nodeCapacityFor(defaultSearchConfig.simulations) });
    expect(s.hidden).toEqual({
      method: 'determinized',
      determinizations: DEFAULT_DETERMINIZATIONS,
      leafValues: { kind: 'playouts', playoutWeight: 1 },
      worldSampling: 'uniform',
      otherSeatPriors: 'uniform',
      otherSeatMoves: 'search',
    });
  });

  it('puts the user over the game hints over the defaults, field by field', () => {
    const game = hintsOf({ tree: { simulations: 30, cPuct: 2 }, determinizations: 5, method: 'information-set', worldSampling: 'inferred' });
    const s = resolveSearchSettings(game, { tree: { simulations: 7, cPuct: undefined }, determinizations: 2 });
    expect(s.tree.simulations).toBe(7);
    // A field the user leaves undefined keeps the game's.
    expect(s.tree.cPuct).toBe(2);
    expect(s.hidden).toMatchObject({ determinizations: 2, method: 'information-set', worldSampling: 'inferred' });
    expect(s.tree.leavesPerTree).toBe(defaultSearchConfig.leavesPerTree);
  });

  it('gives the node capacity by nodeCapacityFor unless one is asked for', () => {
    expect(resolveSearchSettings({ game: blobLike }, { tree: { simulations: 800 } }).tree.nodeCapacity).toBe(nodeCapacityFor(800));
    expect(resolveSearchSettings({ game: blobLike }, { tree: { simulations: 800, nodeCapacity: 1000 } }).tree.nodeCapacity).toBe(1000);
  });

  it('resolves leaf values as a tagged union, the game’s playout share going with the game’s own leaf values only', () => {
    const game = hintsOf({ leafValues: 'world', playoutWeight: 0.5 });
    expect(resolveSearchSettings(game, {}).hidden.leafValues).toEqual({ kind: 'world', playoutWeight: 0.5, priors: 'own-view' });
    expect(resolveSearchSettings(game, { leafValues: 'world' }).hidden.leafValues).toEqual({ kind: 'world', playoutWeight: 0.5, priors: 'own-view' });
    expect(resolveSearchSettings(game, { playoutWeight: 0.25 }).hidden.leafValues).toMatchObject({ kind: 'world', playoutWeight: 0.25 });
    // Other leaf values keep their own default share: 1 with playouts, none with policy playouts.
    expect(resolveSearchSettings(game, { leafValues: 'playouts' }).hidden.leafValues).toEqual({ kind: 'playouts', playoutWeight: 1 });
    expect(resolveSearchSettings(game, { leafValues: 'policy-playouts' }).hidden.leafValues).toEqual({ kind: 'policy-playouts' });
    expect(resolveSearchSettings(hintsOf({ leafValues: 'world' }), {}).hidden.leafValues).toMatchObject({ playoutWeight: 0 });
    // A game that names no leaf values plays playouts: its share applies there, asked for by name or not.
    const playoutsOnly = hintsOf({ playoutWeight: 0.75 });
    expect(resolveSearchSettings(playoutsOnly, {}).hidden.leafValues).toEqual({ kind: 'playouts', playoutWeight: 0.75 });
    expect(resolveSearchSettings(playoutsOnly, { leafValues: 'playouts' }).hidden.leafValues).toEqual({ kind: 'playouts', playoutWeight: 0.75 });
    expect(resolveSearchSettings(playoutsOnly, { leafValues: 'world' }).hidden.leafValues).toMatchObject({ playoutWeight: 0 });
  });

  it('refuses a user choice the search it resolves to cannot use, naming the flags, once', () => {
    const refused = (game: GameSearchHints, user: SearchChoices): string => {
      try {
        resolveSearchSettings(game, user);
      } catch (err) {
        expect(err).toBeInstanceOf(SearchSettingsError);
        return (err as Error).message;
      }
      throw new Error('not refused');
    };
    const game = hintsOf({});
    expect(refused(game, { worldSampling: 'inferred' })).toBe('--worlds inferred needs information-set search (cards plays determinized here; add --search information-set)');
    expect(refused({ game: { id: 'tictactoe', information: 'perfect' } }, { otherSeatPriors: 'first-world' })).toBe(
      '--other-seat-priors needs information-set search (tictactoe plays perfect-information search here; add --search information-set)',
    );
    expect(refused(game, { otherSeatMoves: 'policy' })).toMatch(/^--other-seat-moves needs information-set search/);
    expect(refused(game, { leafValues: 'policy-playouts', playoutWeight: 0.5 })).toBe('--playout-weight mixes in a random playout, which --leaf-values policy-playouts replaces: give one of the two');
    expect(refused(game, { method: 'information-set', otherSeatMoves: 'policy', otherSeatPriors: 'first-world' })).toMatch(/^--other-seat-priors first-world has no effect with --other-seat-moves policy/);
    // The game's own hints are never refused: a play hint the user's search does not use is not used.
    expect(resolveSearchSettings(hintsOf({ method: 'information-set', worldSampling: 'inferred' }), { method: 'determinized' }).hidden.worldSampling).toBe('inferred');
    expect(resolveSearchSettings(hintsOf({ leafValues: 'policy-playouts', playoutWeight: 0.5 }), {}).hidden.leafValues).toEqual({ kind: 'policy-playouts' });
  });
});

describe('playSearchHints', () => {
  it('reads the game’s play hints, else its self-play leaf values, with the play search’s fixed settings', () => {
    const hints = playSearchHints({ traits: blobLike, training: { leafValues: 'world', playPlayoutWeight: 0.5, playSearchMethod: 'information-set', playWorldSampling: 'inferred', playValueScale: 0.9, determinizations: 4 } });
    expect(hints).toMatchObject({ game: blobLike, leafValues: 'world', playoutWeight: 0.5, method: 'information-set', worldSampling: 'inferred', determinizations: 4 });
    expect(hints.tree).toMatchObject({ ...playSearchConfig, networkValueScale: 0.9 });
    expect(playSearchHints({ traits: blobLike, training: { leafValues: 'world', playLeafValues: 'playouts' } }).leafValues).toBe('playouts');
    expect(resolveSearchSettings(playSearchHints({ traits: blobLike }), {}).tree).toMatchObject({ ...playSearchConfig, networkValueScale: 1 });
  });
});

describe('gamePlayoutShare', () => {
  it('is the game’s share with the game’s own leaf values only, never with policy playouts', () => {
    expect(gamePlayoutShare({ leafValues: 'world', playoutWeight: 0.5 }, 'world')).toBe(0.5);
    expect(gamePlayoutShare({ leafValues: 'world', playoutWeight: 0.5 }, 'playouts')).toBeUndefined();
    expect(gamePlayoutShare({ playoutWeight: 0.75 }, 'playouts')).toBe(0.75);
    expect(gamePlayoutShare({ leafValues: 'policy-playouts', playoutWeight: 0.5 }, 'policy-playouts')).toBeUndefined();
  });
});
