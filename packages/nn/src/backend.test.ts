import { afterEach, describe, expect, it } from 'vitest';
import { BackendUnavailableError, currentBackend, initBackend, setOptionalPackageImporterForTests, type BackendName } from './backend.js';
import { tf } from './tf.js';

describe('initBackend', () => {
  afterEach(() => setOptionalPackageImporterForTests(null));

  it('initialises cpu and wasm explicitly and makes them current', async () => {
    const cpu = await initBackend('cpu');
    expect(cpu).toMatchObject({ name: 'cpu', tfBackend: 'cpu', skipped: [] });
    expect(tf.getBackend()).toBe('cpu');
    const wasm = await initBackend('wasm');
    expect(wasm).toMatchObject({ name: 'wasm', tfBackend: 'wasm' });
    expect(tf.getBackend()).toBe('wasm');
    expect(currentBackend()).toBe(wasm);
    expect(tf.tidy(() => tf.add(tf.scalar(2), tf.scalar(3)).dataSync()[0])).toBe(5);
  });

  it('is idempotent for the same name and switches for a different one', async () => {
    const a = await initBackend('wasm');
    const b = await initBackend('wasm');
    expect(b).toBe(a);
    const [c, d] = await Promise.all([initBackend('cpu'), initBackend('cpu')]);
    expect(c).toBe(d);
    expect(tf.getBackend()).toBe('cpu');
  });

  it('auto skips the absent tfjs-node packages and picks wasm', async () => {
    const info = await initBackend('auto');
    expect(info.name).toBe('wasm');
    expect(info.tfBackend).toBe('wasm');
    expect(info.skipped.map((s) => s.name)).toEqual(['gpu', 'node']);
    expect(info.skipped[0].reason).toMatch(/@tensorflow\/tfjs-node-gpu/);
    expect(tf.getBackend()).toBe('wasm');
  });

  it('explains how to install tfjs-node when node is asked for and absent', async () => {
    const err = await initBackend('node').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BackendUnavailableError);
    const e = err as BackendUnavailableError;
    expect(e.backend).toBe('node');
    expect(e.packageName).toBe('@tensorflow/tfjs-node');
    expect(e.message).toMatch(/not installed/);
    expect(e.message).toMatch(/npm install @tensorflow\/tfjs-node@4\.22\.0/);
    expect(e.message).toMatch(/libtensorflow/);
  });

  it('names CUDA and cuDNN when gpu is asked for and absent', async () => {
    const err = await initBackend('gpu').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BackendUnavailableError);
    expect((err as Error).message).toMatch(/@tensorflow\/tfjs-node-gpu.*not installed/);
    expect((err as Error).message).toMatch(/CUDA 11\.2 and cuDNN 8\.1/);
  });

  it('reports a package that is present but whose native binding fails to load', async () => {
    setOptionalPackageImporterForTests(async () => {
      throw new Error('Cannot find module .../lib/napi-v8/tfjs_binding.node');
    });
    const err = await initBackend('node').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BackendUnavailableError);
    expect((err as Error).message).toMatch(/installed but failed to load.*tfjs_binding\.node.*npm install @tensorflow\/tfjs-node@/);
    // auto passes over broken packages too (cpu first: a repeated 'auto' would return the cached choice).
    await initBackend('cpu');
    const info = await initBackend('auto');
    expect(info.name).toBe('wasm');
    expect(info.skipped.map((s) => s.reason).join('\n')).toMatch(/failed to load/);
  });

  it('refuses a package that registered its backend with another tfjs-core copy', async () => {
    setOptionalPackageImporterForTests(async () => ({}));
    await expect(initBackend('gpu')).rejects.toThrow(/different copy of @tensorflow\/tfjs-core/);
  });

  it('rejects unknown names', async () => {
    await expect(initBackend('tpu' as BackendName)).rejects.toThrow(/unknown backend 'tpu'/);
  });
});
