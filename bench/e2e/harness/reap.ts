import type { ChildProcess } from 'node:child_process'

/**
 * The processes a benchmark starts (servers, the platform, wrk) stop when the benchmark ends, however
 * it ends: its own `finally`, an exception, Ctrl+C, a CI job cancelled with SIGTERM, or its output
 * pipe closed (`npm run bench:e2e | head` ended a run and left a platform and the ceiling server
 * listening, found by hand).
 */
const live = new Set<ChildProcess>()
let installed = false

export function reaped<C extends ChildProcess>(child: C): C {
  live.add(child)
  child.once('exit', () => live.delete(child))
  if (!installed) install()
  return child
}

function stopAll(): void {
  for (const child of live) child.kill('SIGTERM')
  live.clear()
}

function install(): void {
  installed = true
  process.once('exit', stopAll)
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      stopAll()
      // Ends with the signal's own status, as it would have without this handler.
      process.kill(process.pid, signal)
    })
  }
}
