// `npm start`: builds first when the build tools are installed (a clone after `npm ci`), then runs the
// platform in this process (or in a child with the V8 flags it wants, see below). After a production
// install (`npm ci --omit=dev` in a tree that was built before) there is nothing to build with, and
// dist/ runs as it is.
import { execFileSync, spawn } from 'node:child_process'
import os from 'node:os'
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const main = join(root, 'dist', 'src', 'main.js')
if (existsSync(join(root, 'node_modules', 'typescript'))) {
  execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs')], { stdio: 'inherit' })
} else if (!existsSync(main)) {
  console.error(
    'npm start: no dist/ and no build tools. Build first (npm ci && npm run build), then a production install (npm ci --omit=dev) runs it.'
  )
  process.exit(1)
}
// The V8 flags the platform wants (src/core/gc-threads.ts) can only be given when a process starts:
// without them in this one, the platform runs in a child that has them, in a process group of its
// own so that a terminal's Ctrl+C reaches it once (forwarded from here), not twice (a second
// signal makes it stop without draining).
const { gcFlags } = await import(pathToFileURL(join(root, 'dist', 'src', 'core', 'gc-threads.js')).href)
const missing = gcFlags().filter((f) => !process.execArgv.includes(f))
if (missing.length === 0) {
  await import(pathToFileURL(main).href)
} else {
  const child = spawn(process.execPath, [...process.execArgv, ...missing, main, ...process.argv.slice(2)], {
    stdio: 'inherit',
    detached: true
  })
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal))
  child.on('exit', (code, signal) => process.exit(code ?? (signal === null ? 1 : 128 + os.constants.signals[signal])))
}
