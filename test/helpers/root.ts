import { join } from 'node:path'

/** The project's root, seen from the compiled tests (dist/test/helpers). */
export const ROOT = join(__dirname, '..', '..', '..')
