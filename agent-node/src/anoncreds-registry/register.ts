/**
 * Registers Parley's TypeScript AnonCreds engine with `@hyperledger/anoncreds-shared` and exports
 * it. Import this module FIRST in every entry point that builds a Credo agent (`main.ts`, the
 * terminal wallet, test setup): `@credo-ts/anoncreds` reads the engine through a named ESM import
 * of that CommonJS package, and the binding is copied once, when ESM first imports it, so
 * registration has to happen before (see `shared/src/anoncreds/lib/register-node.ts`).
 */
export { anoncredsArithmetic, anoncredsEngine } from '../../../shared/src/anoncreds/lib/register-node.ts'
