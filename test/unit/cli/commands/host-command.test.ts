// `microservice host DIR` for a java package: the Java host unmanaged (its inherited stdin is no
// lifeline), told where to listen, the secret and the drain; a signal to the command reaches it.
// A stand-in JVM answers (helpers/java/fake-java.ts).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { hostCommand } from '../../../../src/cli/commands/host-command'
import { commandLine } from '../../../../src/cli/command-line'
import { JAVA_HOST_MISSING } from '../../../../src/microservice/host/java-host'
import { JUL_ONE_LINE } from '../../../../src/microservice/host/jul-levels'
import { fakeClassPathFile, fakeJavaHome, fakeJavaPackage, fakeJavaRuns } from '../../../helpers/java/fake-java'
import { until } from '../../../helpers/platform'

process.env.JAVA_HOME = fakeJavaHome()

test('the Java host, unmanaged, with the listen address, secret, drain and the package heap', async () => {
  const dir = fakeJavaPackage('calc', {}, { memory: { maxOldSpaceMb: 300 } })
  process.env.CALC_SECRET = 's3cret'
  // Inherited from a platform that started this command, it must not reach the host.
  process.env.MICROSERVICE_MANAGED = '1'
  const exited = hostCommand(
    commandLine('host', [dir, '--listen', 'tcp:127.0.0.1:7123', '--secret-env', 'CALC_SECRET', '--drain-ms', '250']),
    fakeClassPathFile()
  )
  await until(() => fakeJavaRuns(dir).length === 1, 10000, 'the JVM')
  const run = fakeJavaRuns(dir)[0]!
  try {
    assert.deepEqual(run.args, [
      '-Xmx300m',
      '-XX:+ExitOnOutOfMemoryError',
      JUL_ONE_LINE,
      '-cp',
      '/nowhere/host.jar:/nowhere/spring3-context.jar',
      'platform.host.Host',
      dir
    ])
    assert.deepEqual(run.env, {
      MICROSERVICE_LISTEN: 'tcp:127.0.0.1:7123',
      MICROSERVICE_SECRET: 's3cret',
      MICROSERVICE_MANAGED: null,
      MICROSERVICE_DRAIN_MS: '250'
    })
  } finally {
    // SIGTERM to the command alone is passed on; unmanaged, the host drains and exits on it. Sent
    // whatever the checks found, so that a failing check does not leave the host running.
    process.kill(process.pid, 'SIGTERM')
  }
  assert.equal(await exited, 0)
  assert.equal(fakeJavaRuns(dir)[0]!.end, 'signal SIGTERM')
  delete process.env.MICROSERVICE_MANAGED
})

test('no Java host, or no java to run: said, not a crash', async () => {
  const dir = fakeJavaPackage('calc')
  const none = join(mkdtempSync(join(tmpdir(), 'no-host-')), 'classpath')
  await assert.rejects(hostCommand(commandLine('host', [dir, '--listen', 'tcp:127.0.0.1:7124']), none), {
    code: 'IGW_JAVA_HOST',
    message: JAVA_HOST_MISSING
  })
  process.env.JAVA_HOME = mkdtempSync(join(tmpdir(), 'no-java-'))
  assert.equal(await hostCommand(commandLine('host', [dir, '--listen', 'tcp:127.0.0.1:7124']), fakeClassPathFile()), 78)
})
