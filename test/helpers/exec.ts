// A program run to its end, as tests run the project's commands (`microservice`, podman, the gate):
// what it printed and how it exited, never a throw, so a test's assertion says what went wrong.
import { execFile } from 'node:child_process'

export interface Ran {
  code: number
  stdout: string
  stderr: string
}

export function runFile(file: string, args: string[], env?: NodeJS.ProcessEnv): Promise<Ran> {
  return new Promise((resolve) =>
    execFile(file, args, { env, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) =>
      resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : 1, stdout, stderr })
    )
  )
}
