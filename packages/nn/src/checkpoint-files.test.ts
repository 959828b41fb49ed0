import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeFileAtomic } from './checkpoint-files.js';

const work = mkdtempSync(join(tmpdir(), 'az-atomic-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('writeFileAtomic', () => {
  it('replaces a file whole, and on a failed write leaves what was there and no temporary', async () => {
    const path = join(work, 'options.json');
    await writeFileAtomic(path, '{"a":1}\n');
    await writeFileAtomic(path, '{"a":2}\n');
    expect(readFileSync(path, 'utf8')).toBe('{"a":2}\n');
    // A directory in the way: the rename fails after the temporary was written.
    const blocked = join(work, 'report.html');
    mkdirSync(blocked);
    writeFileSync(join(blocked, 'keep'), 'x');
    await expect(writeFileAtomic(blocked, '<html>')).rejects.toThrow();
    expect(readdirSync(blocked)).toEqual(['keep']);
    expect(readdirSync(work).sort()).toEqual(['options.json', 'report.html']);
  });
});
