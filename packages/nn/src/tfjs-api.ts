/**
 * The parts of TensorFlow.js nn uses, as one namespace: tfjs-core (tensors, ops, io, optimizers) and
 * tfjs-layers (the Keras-style model), with the cpu backend registered. The `@tensorflow/tfjs` umbrella
 * would add the converter, tfjs-data and the WebGL backend, which Node never runs, and the chained op
 * methods (`tensor.mul(b)`): use the functions (`tf.mul(tensor, b)`). Only tf.ts imports it.
 */
import '@tensorflow/tfjs-backend-cpu';

export * from '@tensorflow/tfjs-core';
export * from '@tensorflow/tfjs-layers';
