// `npm start`: builds first when the sources are newer than the last build (a clone after `npm ci`,
// or after an edit) and the build tools are installed, then runs dist/src/main.js in this process.
// main.js decides the rest as it does when the systemd unit or the container image start it: the V8
// flags the platform runs with (re-executing itself once when they are missing, src/common/process/gc-flags.ts),
// and that a signal npm passes on, which this process also gets from its group, counts once. After
// a production install (`npm ci --omit=dev` in a tree that was built before) there is nothing to
// build with, and dist/ runs as it is.
import { execFileSync } from 'node:child_process'
import { existsSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { BUILD_STAMP, newestSource } from './build-stamp.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const main = join(root, 'dist', 'src', 'main.js')
const stamp = join(root, BUILD_STAMP)
const stale = !existsSync(stamp) || newestSource(root) > statSync(stamp).mtimeMs
if (stale && existsSync(join(root, 'node_modules', 'typescript'))) {
  console.error('npm start: building (TypeScript and the protobuf code; about half a minute)…')
  // The build's output goes to stderr: stdout is the platform's log, JSON lines only.
  execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs')], { stdio: ['ignore', 2, 2] })
} else if (!existsSync(main)) {
  console.error(
    'npm start: no dist/ and no build tools. Build first (npm ci && npm run build), then a production install (npm ci --omit=dev) runs it.'
  )
  process.exit(1)
}
// When npm goes away without passing a signal on (killed with SIGKILL, or a shell between it and this
// process that does not forward), this process is re-parented: it stops as if npm had been sent
// SIGTERM, which main.js handles as any other.
const parent = process.ppid
const watch = setInterval(() => {
  if (process.ppid !== parent) {
    clearInterval(watch)
    process.kill(process.pid, 'SIGTERM')
  }
}, 500)
watch.unref()
await import(pathToFileURL(main).href)
