// `npm start`: builds first when the sources are newer than the last build (a clone after `npm ci`,
// or after an edit) and the build tools are installed, then runs the platform in this process or, when
// it needs V8 flags this process was not started with (src/common/process/gc-flags.ts), in a child that has
// them. After a production install (`npm ci --omit=dev` in a tree that was built before) there is
// nothing to build with, and dist/ runs as it is.
import { execFileSync, fork } from 'node:child_process'
import os from 'node:os'
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
  execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs')], { stdio: 'inherit' })
} else if (!existsSync(main)) {
  console.error(
    'npm start: no dist/ and no build tools. Build first (npm ci && npm run build), then a production install (npm ci --omit=dev) runs it.'
  )
  process.exit(1)
}
const { gcFlags } = await import(pathToFileURL(join(root, 'dist', 'src', 'common', 'process', 'gc-flags.js')).href)
const missing = gcFlags().filter((f) => !process.execArgv.includes(f))
if (missing.length === 0) {
  await import(pathToFileURL(main).href)
} else {
  // The platform runs in a process group of its own, so that a terminal's Ctrl+C reaches it once
  // (forwarded from here), not twice (a second signal stops it without draining). The IPC channel is
  // its lifeline: when this launcher dies, however it dies, the platform drains and exits.
  const child = fork(main, process.argv.slice(2), {
    execArgv: [...process.execArgv, ...missing],
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    detached: true
  })
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal))
  // npm runs this through `sh -c`, which passes no signal on: when the shell or npm goes away, this
  // process is re-parented, and the platform is told to stop as if npm had been sent SIGTERM.
  const parent = process.ppid
  const watch = setInterval(() => {
    if (process.ppid !== parent) {
      clearInterval(watch)
      child.kill('SIGTERM')
    }
  }, 500)
  watch.unref()
  child.on('exit', (code, signal) => process.exit(code ?? (signal === null ? 1 : 128 + os.constants.signals[signal])))
}
