// A model folder someone hands you, built as an attacker would: every file of it re-signed (the manifest's
// checksum is a plain sha256 anyone can recompute), so only the model-folder rules can refuse it.
import { execFileSync } from 'node:child_process';
import { closeSync, constants, copyFileSync, mkdtempSync, openSync, readFileSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { initBackend } from './backend.js';
import { CheckpointError, loadCheckpoint, readCheckpointManifest, saveCheckpoint, verifyCheckpointFiles } from './checkpoint.js';
import { sha256 } from './checkpoint-files.js';
import { openCheckpointInference } from './engine-registry.js';
import { buildModel } from './model.js';
import { fileNameProblem, ModelFolderError } from './model-folder.js';
import { manifestFor, resignManifest, tamper } from './test-checkpoints.js';
import { TINY_MLP } from './test-nets.js';

let root: string;
let counter = 0;
const fifos: string[] = [];

/** A tiny MLP checkpoint (with model.onnx unless told otherwise). */
async function savedFolder(options: { onnx?: boolean } = {}): Promise<string> {
  const dir = join(root, `model-${++counter}`);
  const model = buildModel(TINY_MLP, { seed: 1 });
  await saveCheckpoint(dir, model, manifestFor(TINY_MLP), undefined, { onnx: options.onnx ?? true });
  model.dispose();
  return dir;
}

/** What `az play`/`eval`/`uci`/`serve` and `--resume` do with a folder: read the manifest, verify every file, load. */
async function openFolder(dir: string): Promise<void> {
  const manifest = await readCheckpointManifest(dir);
  await verifyCheckpointFiles(dir, manifest);
  (await loadCheckpoint(dir)).model.dispose();
}

/** The error opening `dir` fails with, which must be a ModelFolderError naming the folder and the file. */
async function refusal(dir: string, file: string): Promise<ModelFolderError> {
  const err = await openFolder(dir).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err, 'the folder opened').toBeInstanceOf(ModelFolderError);
  const message = (err as Error).message;
  expect(message).toContain(dir);
  expect(message).toContain(file);
  return err as ModelFolderError;
}

/** Lists `name` in the manifest with the size and sha256 of `data`, as a forger would. */
function listFile(dir: string, name: string, data: Uint8Array | string): void {
  resignManifest(dir, (m) => {
    m.files[name] = { bytes: typeof data === 'string' ? Buffer.byteLength(data) : data.byteLength, sha256: sha256(data) };
  });
}

function makeFifo(path: string): void {
  execFileSync('mkfifo', [path]);
  fifos.push(path);
}

describe('a model folder is untrusted input', () => {
  beforeAll(async () => {
    await initBackend('cpu');
    root = mkdtempSync(join(tmpdir(), 'az-model-folder-test-'));
  });
  // A reader blocked on a FIFO (what the old code did) is released by a writer opening and closing it.
  afterEach(() => {
    for (const fifo of fifos.splice(0)) {
      try {
        closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
      } catch {
        // no reader waiting
      }
    }
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('takes plain file names only', () => {
    for (const name of ['weights.bin', 'model.onnx', 'replay.json', 'notes_1-a.txt']) expect(fileNameProblem(name), name).toBeNull();
    const refused: [string, RegExp][] = [
      ['../secret.txt', /path separator/],
      ['../../etc/passwd', /path separator/],
      ['/etc/passwd', /path separator/],
      ['sub/weights.bin', /path separator/],
      ['..\\secret.txt', /path separator/],
      ['..', /cannot start with '\.'/],
      ['.hidden', /cannot start with '\.'/],
      ['weights.bin\0.txt', /NUL/],
      ['', /empty/],
      ['C:weights.bin', /only letters, digits/],
      ['a'.repeat(256), /at most 255/],
    ];
    for (const [name, why] of refused) expect(fileNameProblem(name), JSON.stringify(name)).toMatch(why);
  });

  it('refuses a manifest naming a file outside the folder by a ../ or absolute name', async () => {
    const dir = await savedFolder();
    const secret = 'the neighbour folder holds this\n';
    writeFileSync(join(root, 'secret.txt'), secret);
    listFile(dir, '../secret.txt', secret);
    const dotdot = await refusal(dir, '"../secret.txt"');
    expect(dotdot.message).toMatch(/manifest\.json \("files"\) names the file "\.\.\/secret\.txt"; refused: a file name cannot hold a path separator/);
    await expect(readCheckpointManifest(dir)).rejects.toBeInstanceOf(ModelFolderError);

    const absolute = await savedFolder();
    listFile(absolute, join(root, 'secret.txt'), secret);
    expect((await refusal(absolute, join(root, 'secret.txt'))).message).toMatch(/refused: a file name cannot hold a path separator/);
  });

  it('refuses a symbolic link, whether to a copy of the right file or a file elsewhere', async () => {
    const dir = await savedFolder();
    const elsewhere = join(root, 'weights-elsewhere.bin');
    copyFileSync(join(dir, 'weights.bin'), elsewhere);
    unlinkSync(join(dir, 'weights.bin'));
    symlinkSync(elsewhere, join(dir, 'weights.bin'));
    expect((await refusal(dir, join(dir, 'weights.bin'))).message).toMatch(/it is a symbolic link; a model folder holds plain regular files only/);

    const manifestLink = await savedFolder();
    const manifestElsewhere = join(root, 'manifest-elsewhere.json');
    copyFileSync(join(manifestLink, 'manifest.json'), manifestElsewhere);
    unlinkSync(join(manifestLink, 'manifest.json'));
    symlinkSync(manifestElsewhere, join(manifestLink, 'manifest.json'));
    expect((await refusal(manifestLink, join(manifestLink, 'manifest.json'))).message).toMatch(/it is a symbolic link/);
  });

  it('refuses a FIFO at once instead of waiting on it for ever', async () => {
    const dir = await savedFolder();
    unlinkSync(join(dir, 'model.onnx'));
    makeFifo(join(dir, 'model.onnx'));
    expect((await refusal(dir, join(dir, 'model.onnx'))).message).toMatch(/it is a FIFO \(named pipe\)/);
  });

  it('refuses a link to a device (/dev/zero never ends, /dev/stdin takes the input) before reading a byte', async () => {
    const dir = await savedFolder({ onnx: false });
    symlinkSync('/dev/zero', join(dir, 'zeros.bin'));
    listFile(dir, 'zeros.bin', new Uint8Array(16));
    expect((await refusal(dir, join(dir, 'zeros.bin'))).message).toMatch(/it is a symbolic link/);
    // model.onnx goes to onnxruntime by its path: an unlisted one is held to the same rules.
    unlinkSync(join(dir, 'zeros.bin'));
    resignManifest(dir, (m) => delete m.files['zeros.bin']);
    symlinkSync('/dev/stdin', join(dir, 'model.onnx'));
    await expect(openCheckpointInference(dir, { engine: 'onnx', threads: 1 })).rejects.toThrow(/model\.onnx: it is a symbolic link/);
  });

  it('refuses a file bigger than the manifest lists, and a manifest listing more bytes than the network can have, before reading it', async () => {
    const dir = await savedFolder();
    const weights = join(dir, 'weights.bin');
    const size = readFileSync(weights).byteLength;
    writeFileSync(weights, Buffer.alloc(size + 4096));
    expect((await refusal(dir, weights)).message).toContain(`it is oversized: ${size + 4096} bytes, more than the ${size} manifest.json lists`);
    // Listed at that size too: the network config says how big its weights are.
    tamper(dir, 'weights.bin', new Uint8Array(size + 4096));
    await expect(readCheckpointManifest(dir)).rejects.toThrow(`manifest.json lists weights.bin at ${size + 4096} bytes, more than the ${size} a weights.bin for its network may hold`);
    const onnx = await savedFolder();
    resignManifest(onnx, (m) => (m.files['model.onnx'].bytes = 2 ** 40));
    await expect(readCheckpointManifest(onnx)).rejects.toBeInstanceOf(ModelFolderError);
  });

  it("checks model.json's weights (paths, names, shapes, dtypes) against the network config before reading weights.bin", async () => {
    const edits: [string, (w: { paths: string[]; weights: { name: string; shape: number[]; dtype: string }[] }[]) => void, RegExp][] = [
      ['paths outside', (w) => (w[0].paths = ['../../etc/passwd']), /weightsManifest names \[\["\.\.\/\.\.\/etc\/passwd"\]\]; refused: an az checkpoint keeps its weights in weights\.bin alone/],
      ['a second group', (w) => w.push({ paths: ['weights.bin'], weights: [] }), /keeps its weights in weights\.bin alone/],
      ['a dtype', (w) => (w[0].weights[1].dtype = 'int32'), /weight dense_0\/bias is "int32"; the network's weights are float32/],
      ['a shape', (w) => (w[0].weights[0].shape = [8, 5]), /weight dense_0\/kernel has shape \[8,5\], but the network needs \[5, 8\]/],
      ['an extra weight', (w) => w[0].weights.push({ name: 'huge/kernel', shape: [100000, 10000], dtype: 'float32' }), /weight "huge\/kernel" is not one the network has/],
      ['a missing weight', (w) => w[0].weights.pop(), /weights value\/bias are missing/],
    ];
    for (const [what, edit, message] of edits) {
      const dir = await savedFolder();
      const modelJson = JSON.parse(readFileSync(join(dir, 'model.json'), 'utf8')) as { weightsManifest: Parameters<typeof edit>[0] };
      edit(modelJson.weightsManifest);
      tamper(dir, 'model.json', JSON.stringify(modelJson));
      // Were weights.bin read, its FIFO would say so (or hang).
      unlinkSync(join(dir, 'weights.bin'));
      makeFifo(join(dir, 'weights.bin'));
      resignManifest(dir, (m) => delete m.files['weights.bin']);
      const err = await loadCheckpoint(dir).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err, what).toBeInstanceOf(ModelFolderError);
      expect((err as CheckpointError).message, what).toMatch(message);
      expect((err as CheckpointError).path, what).toBe(join(dir, 'model.json'));
    }
  });

  it('a folder that keeps the rules still opens', async () => {
    const dir = await savedFolder();
    await openFolder(dir);
    const opened = await openCheckpointInference(dir, { engine: 'onnx', threads: 1 });
    expect(opened.source).toBe('model.onnx');
    opened.inference.dispose();
  });
});
