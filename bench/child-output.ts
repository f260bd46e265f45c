// Shared by the benches that start servers as child processes and count what they do.
import type { ChildProcess } from 'node:child_process'

/** Resolves with the first match of `pattern` in what the child prints (stdout and stderr). */
export function waitFor(child: ChildProcess, pattern: RegExp, what: string, ms = 60_000): Promise<RegExpExecArray> {
  let out = ''
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${what}: not ready within ${ms / 1000} s: ${out.slice(-2000)}`)),
      ms
    )
    const on = (d: Buffer): void => {
      out += d.toString()
      const m = pattern.exec(out)
      if (m !== null) {
        clearTimeout(timer)
        // What it prints from now on (the access log) is read and dropped: kept, it made this process,
        // the client, slower with every line, and the servers' CPU per call rose with the gaps.
        for (const s of [child.stdout!, child.stderr!]) s.off('data', on).resume()
        resolve(m)
      }
    }
    child.stdout!.on('data', on)
    child.stderr!.on('data', on)
    child.once('exit', (code) => reject(new Error(`${what} exited with ${String(code)}: ${out.slice(-2000)}`)))
  })
}

export { median } from '../src/common/process/cpu-time'
