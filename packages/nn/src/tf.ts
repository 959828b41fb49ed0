/**
 * The single place @az/nn imports TensorFlow.js from. Other modules in nn use `tf` from here, and
 * other packages use nn's API (or this re-export) instead of depending on tfjs themselves, so there
 * is exactly one tfjs-core engine (and one set of registered backends and kernels) per process.
 */
import * as tf from './tfjs-api.js';

// tfjs's cpu backend prints advice to install tfjs-node on first use in Node. Here the backend is a deliberate
// choice (see initBackend; tfjs-node cannot be installed offline), so the advice is noise. PROD only
// silences tfjs's console warnings.
tf.env().set('PROD', true);

export { tf };

/** A Keras-style tfjs model, as built by `buildModel` and stored in checkpoints. */
export type LayersModel = tf.LayersModel;
