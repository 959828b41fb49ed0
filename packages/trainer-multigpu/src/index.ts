export { SelfPlay, type SelfPlayOptions, type SelfPlayStats } from './self-play.js';
export { ReplayBuffer, type ReplayShape } from './replay-buffer.js';
export { encodeGameRecord, decodeGameRecord, gameRecordByteLength, type GameRecord } from './game-record.js';
export { playArena, type ArenaResult, type ArenaOptions } from './arena.js';
