// @az/test-harness: what this repository's integration tests and benchmarks need to run real programs;
// private, so the public test kit (@az/core/testkit) holds only what a plugin's tests use.
export { findExecutable, realComponent, type RealComponent } from './real-components.js';
export { RedisServerProcess, createTestCertificates, freePort, type RedisServerOptions, type TestCertificates } from './redis-server.js';
