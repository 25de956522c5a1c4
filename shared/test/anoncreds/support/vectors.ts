/**
 * Where the AnonCreds test vectors are: the project's shared folder beside the repository
 * (`<repo>/../shared/vectors/anoncreds-w3c`, as every checkout and CI lays it out), or
 * `$PARLEY_SHARED_DIR/vectors/anoncreds-w3c`.
 */
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const SHARED_DIR = process.env.PARLEY_SHARED_DIR ?? fileURLToPath(new URL('../../../../../shared', import.meta.url))

/** Absolute path of the vectors folder, no trailing slash. */
export const VECTORS_DIR = join(SHARED_DIR, 'vectors', 'anoncreds-w3c')
