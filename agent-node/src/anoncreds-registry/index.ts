/** agent-node's AnonCreds wiring: the did:web / did:webvh registry, its identifiers and its public route. */
export * from './identifiers.ts'
export { DidWebAnonCredsRegistry } from './DidWebAnonCredsRegistry.ts'
export { anonCredsRoutes } from './routes.ts'
