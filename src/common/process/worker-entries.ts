import { join } from 'node:path'

/**
 * The entry file of a worker thread: `workers/NAME.js` at the top of the build (dist/workers/), beside
 * dist/src/. Each is thin: it runs what src/ exports for that thread (docs/development.md, "Threads").
 */
export function workerEntry(name: 'prepare' | 'method' | 'listener'): string {
  return join(__dirname, '..', '..', '..', 'workers', `${name}.js`)
}
