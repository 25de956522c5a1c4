/**
 * Credo record storage on the agent's database (SQLite now, PostgreSQL later), replacing Askar.
 */
export { DrizzleStorageModule } from './DrizzleStorageModule.ts'
export { DrizzleStorageService } from './DrizzleStorageService.ts'
export { ensureStorageVersion } from './storageVersion.ts'
