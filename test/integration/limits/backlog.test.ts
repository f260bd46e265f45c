// The microservice's backlog setting (microservice.json settings.backlog; 0 = the system's default)
// is the listen backlog of its internal-protocol server: while the process accepts nothing (frozen
// with SIGSTOP), the kernel completes backlog + 1 connections on Linux and leaves the others
// waiting; with the default, all of them complete.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { fork } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { connect, type Socket } from 'node:net'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { hostEnv, HOST_FILE } from '../../../src/microservice/host/host-env'
import type { HostMessage } from '../../../src/microservice/host/host'
import { TYPEKIT_DIR } from '../../helpers/platform'
import { editedCopy } from '../../helpers/processes/deploy'

/** Connections to a frozen host of typekit with `backlog`, and how many the kernel completed. */
async function completedWhileFrozen(backlog: number, attempts: number): Promise<number> {
  const dir = editedCopy(TYPEKIT_DIR, mkdtempSync(join(tmpdir(), 'backlog-')), (c) => {
    c.settings = { ...(c.settings as object | undefined), backlog }
  })
  const child = fork(HOST_FILE, [dir], {
    env: { ...hostEnv(), MICROSERVICE_LISTEN: 'tcp:127.0.0.1:0' },
    stdio: 'ignore'
  })
  const sockets: Socket[] = []
  try {
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the host did not listen')), 10000)
      child.on('message', (m: HostMessage) => {
        clearTimeout(timer)
        resolve('port' in m.endpoint ? m.endpoint.port : 0)
      })
    })
    child.kill('SIGSTOP')
    let completed = 0
    for (let k = 0; k < attempts; k++) {
      const s = connect(port, '127.0.0.1')
      s.on('connect', () => completed++)
      s.on('error', () => {})
      sockets.push(s)
    }
    // Loopback handshakes are the kernel's alone; a refused SYN is retried only after a second.
    await new Promise((resolve) => setTimeout(resolve, 700))
    return completed
  } finally {
    for (const s of sockets) s.destroy()
    child.kill('SIGCONT')
    child.kill('SIGKILL')
  }
}

test('backlog 2: three connections complete while the host accepts nothing; the default: all ten', async () => {
  assert.equal(await completedWhileFrozen(2, 10), 3)
  assert.equal(await completedWhileFrozen(0, 10), 10)
})
