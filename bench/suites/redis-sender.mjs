// A simulated worker for redis.bench.mjs (not a benchmark itself): XADDs the recorded games in a file to
// a run's stream as fast as Redis takes them, in pipelines of entries grouped as `az worker` groups them
// (several games an entry), with its own worker id and sequence numbers, until told to stop on stdin or
// `seconds` pass. Prints the number of games sent.
//
//   AZ_RUN_KEY=<the learner's key> node bench/suites/redis-sender.mjs <redis-url> <run> <records-file> <sender-id> <seconds>
import { readFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import { RunSigner, entryFields, groupIntoEntries, readRunKey } from '@az/trainer-multigpu';

const [url, run, file, id, seconds] = process.argv.slice(2);
const data = readFileSync(file);
// The file: repeated [u32 length][u32 weights version][record bytes].
const records = [];
for (let off = 0; off < data.length; ) {
  const len = data.readUInt32LE(off);
  const version = data.readUInt32LE(off + 4);
  records.push({ version, bytes: data.subarray(off + 8, off + 8 + len) });
  off += 8 + len;
}
const gameId = process.env.BENCH_GAME ?? 'tictactoe';
// Signed as a worker signs its entries: the learner drops anything else.
const signer = new RunSigner(readRunKey(undefined).secret, run);
const redis = new Redis(url, { protocol: 2 });
const key = `az:{${run}}:games`;
let stop = false;
process.stdin.on('data', () => (stop = true));
setTimeout(() => (stop = true), Number(seconds) * 1000).unref();
let seq = 0;
const batch = 256;
while (!stop) {
  const p = redis.pipeline();
  const games = [];
  for (let i = 0; i < batch; i++) {
    const r = records[seq % records.length];
    games.push({ workerId: 0, incarnation: 0, seq, version: r.version, bytes: r.bytes });
    seq++;
  }
  for (const entry of groupIntoEntries(games)) p.xadd(key, '*', ...entryFields(signer, `sim-${id}#0.00/0`, 'cpu:0', 0, gameId, entry));
  await p.exec();
}
console.log(`sent ${seq}`);
redis.disconnect();
// stdin (the stop signal) would keep the process alive.
process.exit(0);
