// @az/core/testkit: what a plugin's (and this repo's) tests use; not part of the runtime entry.
export {
  testGameContract,
  ContractViolation,
  type ContractCheck,
  type GameContractOptions,
  type GameContractReport,
} from './contract.js';
export { findExecutable, realComponent, type RealComponent } from './real-components.js';
export { RedisServerProcess, createTestCertificates, freePort, type RedisServerOptions, type TestCertificates } from './redis-server.js';
