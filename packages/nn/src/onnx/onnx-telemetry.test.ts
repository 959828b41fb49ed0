import { describe, expect, it } from 'vitest';
import { disableOnnxTelemetryUnlessAsked } from './onnx-model.js';

describe('onnxruntime telemetry', () => {
  it('is off unless the user set ORT_DISABLE_TELEMETRY', () => {
    const unset: NodeJS.ProcessEnv = {};
    disableOnnxTelemetryUnlessAsked(unset);
    expect(unset.ORT_DISABLE_TELEMETRY).toBe('1');
    const empty: NodeJS.ProcessEnv = { ORT_DISABLE_TELEMETRY: '' };
    disableOnnxTelemetryUnlessAsked(empty);
    expect(empty.ORT_DISABLE_TELEMETRY).toBe('1');
    const optedIn: NodeJS.ProcessEnv = { ORT_DISABLE_TELEMETRY: '0' };
    disableOnnxTelemetryUnlessAsked(optedIn);
    expect(optedIn.ORT_DISABLE_TELEMETRY).toBe('0');
  });
});
