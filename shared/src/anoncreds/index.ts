/**
 * Parley's pure-TypeScript AnonCreds v1 engine: the `Anoncreds` implementation
 * (`createAnoncredsEngine`), the object schemas, presentations and W3C forms. Registration:
 * `lib/register-node.ts` (Node, import first) or `lib/register.ts` (bundlers / workerd); neither
 * is re-exported here so that importing this index has no side effect and no runtime import of
 * `@hyperledger/anoncreds-shared`.
 */
export { ENGINE_VERSION, createAnoncredsEngine, createLinkSecret, generateNonce } from './lib/engine.ts'
export { ErrorCode, REVOCATION_NOT_SUPPORTED, anoncredsError } from './lib/errors.ts'
export { HandleTable, type HandleEntry, type ObjectTypeName } from './lib/handles.ts'
export { objectFromJson, objectToJson } from './lib/object-types.ts'
export { isAnoncredsError, useAnoncredsSharedClasses } from './lib/runtime-classes.ts'
export * from './objects/index.ts'
export * as presentation from './presentation/index.ts'
export * as w3c from './w3c/index.ts'
