// A microservice that keeps crashing before it listens is restarted with backoff: restartMinMs,
// then twice that, and so on up to restartMaxMs; once it listens again the backoff starts over.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { Platform } from '../../../src/platform/platform'
import { createLogger } from '../../../src/common/observability/log'
import { testConfig, post, until, TESTKIT_DIR, TEST_PLATFORM_OPTIONS } from '../../helpers/platform'
import { editedCopy } from '../../helpers/processes/deploy'

test('crashes at start-up back off 100, 200, 400, 400 ms; a start that listens resets it', async () => {
  const dir = editedCopy(TESTKIT_DIR, mkdtempSync(join(tmpdir(), 'backoff-')))
  // While a file named crash is beside it, the package exits as it loads (before it listens).
  const index = join(dir, 'index.js')
  writeFileSync(
    index,
    `if (require('node:fs').existsSync(__dirname + '/crash')) process.exit(3)\n${readFileSync(index, 'utf8')}`
  )
  const messages: string[] = []
  const p = new Platform(testConfig({ MICROSERVICES: { restartMinMs: 100, restartMaxMs: 400 } }), {
    ...TEST_PLATFORM_OPTIONS,
    logger: createLogger('info', { write: (l: string) => void messages.push(String(JSON.parse(l).msg)) })
  })
  const port = await p.start([dir])
  try {
    const delays = (): number[] =>
      messages.flatMap((m) => {
        const d = /restarting in (\d+) ms$/.exec(m)
        return d === null ? [] : [Number(d[1])]
      })
    writeFileSync(join(dir, 'crash'), '')
    process.kill(p.manager.get('testkit')!.instances[0]!.status().pid!, 'SIGKILL')
    await until(() => delays().length >= 4, 10000, 'four restarts')
    rmSync(join(dir, 'crash'))
    await until(
      async () => (await post(`http://127.0.0.1:${port}`, '/testkit/custom/shout', '"up"')).status === 200,
      10000,
      'it to serve again'
    )
    assert.deepEqual(delays().slice(0, 4), [100, 200, 400, 400])
    // Listening reset the backoff: the next crash waits restartMinMs again.
    const before = delays().length
    process.kill(p.manager.get('testkit')!.instances[0]!.status().pid!, 'SIGKILL')
    await until(() => delays().length > before, 10000, 'the next restart')
    assert.equal(delays()[before], 100)
  } finally {
    await p.stop(1000)
  }
})
