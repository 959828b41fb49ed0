import { describe, expect, it } from 'vitest';
import { ConfigError, describeSchema, parseConfigAssignments, validateConfig, type ConfigSchema } from './config.js';

const schema: ConfigSchema = {
  players: { type: 'int', default: 4, min: 3, max: 8, description: 'seats' },
  komi: { type: 'number', default: 7.5, description: 'points' },
  open: { type: 'boolean', default: false, description: 'open hands' },
  trump: { type: 'enum', values: ['rotation', 'turned-up'], default: 'rotation', description: 'trump rule' },
  fen: { type: 'string', default: 'start', description: 'position' },
};

function fieldOf(run: () => unknown): string {
  try {
    run();
  } catch (err) {
    if (err instanceof ConfigError) return err.field;
    throw err;
  }
  return '(accepted)';
}

describe('parseConfigAssignments (--config)', () => {
  it('splits key=value pairs, trimming spaces and skipping empty parts', () => {
    expect(parseConfigAssignments(' players=5 , trump=turned-up,,fen=8/8 w - - 0 1')).toEqual({ players: '5', trump: 'turned-up', fen: '8/8 w - - 0 1' });
    expect(parseConfigAssignments('')).toEqual({});
  });

  it('refuses a part without a key, naming it', () => {
    expect(() => parseConfigAssignments('players')).toThrow("config: expected key=value, got 'players'");
    expect(() => parseConfigAssignments('=5')).toThrow(ConfigError);
  });

  it('refuses a key given twice with different values, naming both; the same value twice is accepted', () => {
    expect(() => parseConfigAssignments('players=3,trump=rotation,players=5')).toThrow('config: players is given twice, players=3 and players=5; give it once');
    expect(fieldOf(() => parseConfigAssignments('players=3,players=5'))).toBe('players');
    expect(parseConfigAssignments('players=3, players=3')).toEqual({ players: '3' });
    // A key that is also an Object.prototype member is an ordinary key here.
    expect(parseConfigAssignments('constructor=1')).toEqual({ constructor: '1' });
    expect(Object.keys(parseConfigAssignments('__proto__=1'))).toEqual(['__proto__']);
  });
});

describe('validateConfig', () => {
  it('fills defaults and coerces command-line strings to each field type', () => {
    expect(validateConfig(schema, {})).toEqual({ players: 4, komi: 7.5, open: false, trump: 'rotation', fen: 'start' });
    expect(validateConfig(schema, { players: '6', komi: '0.5', open: 'true', trump: 'turned-up', fen: 'x' })).toEqual({ players: 6, komi: 0.5, open: true, trump: 'turned-up', fen: 'x' });
    expect(validateConfig(schema, { open: '0' }).open).toBe(false);
  });

  it('refuses unknown fields, bad types and out-of-range values, naming the field', () => {
    expect(() => validateConfig(schema, { player: 3 }, "game 'x'")).toThrow("game 'x': unknown field 'player' (known fields: players, komi, open, trump, fen)");
    expect(() => validateConfig({}, { a: 1 })).toThrow("config: unknown field 'a' (it takes no fields)");
    expect(fieldOf(() => validateConfig(schema, { players: '2' }))).toBe('players');
    expect(() => validateConfig(schema, { players: '9' })).toThrow("field 'players' must be <= 8");
    expect(() => validateConfig(schema, { players: '3.5' })).toThrow('must be an integer');
    expect(() => validateConfig(schema, { komi: '' })).toThrow('must be a number');
    expect(() => validateConfig(schema, { open: 'yes' })).toThrow('must be true or false');
    expect(() => validateConfig(schema, { trump: 'spades' })).toThrow('must be one of rotation, turned-up');
    expect(() => validateConfig(schema, { fen: 3 })).toThrow('must be a string');
  });

  it('refuses names every object inherits (constructor, toString, __proto__) as unknown fields, from --config and from JSON', () => {
    for (const key of ['constructor', 'toString', 'hasOwnProperty', 'valueOf', '__proto__']) {
      expect(() => validateConfig(schema, parseConfigAssignments(`${key}=1`))).toThrow(`unknown field '${key}' (known fields: players, komi, open, trump, fen)`);
      expect(fieldOf(() => validateConfig(schema, JSON.parse(`{"${key}": 1}`) as Record<string, unknown>))).toBe(key);
    }
  });

  it('reads only the own fields of what it is given, never inherited ones', () => {
    const inherited = Object.create({ players: 6 }) as Record<string, unknown>;
    expect(validateConfig(schema, inherited).players).toBe(4);
  });

  it('describes every field for --help', () => {
    expect(describeSchema(schema)[0]).toBe('players (int 3..8, default 4): seats');
    expect(describeSchema(schema)[3]).toBe('trump (rotation|turned-up, default rotation): trump rule');
  });
});
