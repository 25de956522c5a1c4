/** agent-node's AnonCreds wiring: the local registry and its identifiers. */
export * from './identifiers.ts'
export { LocalAnonCredsRegistry } from './LocalAnonCredsRegistry.ts'
