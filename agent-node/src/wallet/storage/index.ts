/**
 * Credo record storage on the agent database (SQLite or PostgreSQL), replacing Askar.
 */
export { DrizzleStorageModule } from './DrizzleStorageModule.ts'
export { DrizzleStorageService } from './DrizzleStorageService.ts'
export { ensureStorageVersion } from './storageVersion.ts'
