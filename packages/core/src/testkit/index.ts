// @az/core/testkit: what a plugin's tests use; not part of the runtime entry. (This repository's own
// integration harness, real components and a Redis server, is the private @az/test-harness.)
export {
  testGameContract,
  ContractViolation,
  type ContractCheck,
  type GameContractOptions,
  type GameContractReport,
} from './contract.js';
