// The systemd unit in deploy/systemd: what it runs exists, and systemd waits longer than the drain.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { DEFAULT_CONFIG_FILE, loadConfig } from '../../../src/common/config/config'
import { ROOT } from '../../helpers/root'

test('the systemd unit: KillMode=mixed, a stop timeout longer than the drain, and a start that exists', () => {
  const unit = readFileSync(join(ROOT, 'deploy', 'systemd', 'invocation-gateway.service'), 'utf8')
  const value = (key: string): string[] => [...unit.matchAll(new RegExp(`^${key}=(.*)$`, 'gm'))].map((m) => m[1]!)
  assert.deepEqual(value('KillMode'), ['mixed'])
  assert.deepEqual(value('KillSignal'), ['SIGTERM'])
  const pf = loadConfig(DEFAULT_CONFIG_FILE, {}).platform
  const drainS = (pf.drainGraceMs + pf.drainTimeoutMs + 5000) / 1000
  assert.ok(
    Number(value('TimeoutStopSec')[0]) > drainS,
    `TimeoutStopSec ${value('TimeoutStopSec')[0]} s, drain ${drainS} s`
  )
  for (const exec of [...value('ExecStart'), ...value('ExecStartPre')]) {
    const [, script] = exec.split(' ')
    assert.ok(existsSync(join(ROOT, script!)), `${exec}: ${script} exists in a built checkout`)
  }
})

test('one way to start: the unit, the image and npm start all run dist/src/main.js, which decides the V8 flags', () => {
  const unit = readFileSync(join(ROOT, 'deploy', 'systemd', 'invocation-gateway.service'), 'utf8')
  assert.deepEqual(
    [...unit.matchAll(/^ExecStart=(.*)$/gm)].map((m) => m[1]),
    ['/usr/bin/node dist/src/main.js']
  )
  const image = readFileSync(join(ROOT, 'Containerfile'), 'utf8')
  assert.match(image, /^ENTRYPOINT \["node", "dist\/src\/main\.js"\]$/m)
  const start = readFileSync(join(ROOT, 'scripts', 'start.mjs'), 'utf8')
  assert.match(start, /^const main = join\(root, 'dist', 'src', 'main\.js'\)$/m)
  assert.match(start, /^await import\(pathToFileURL\(main\)\.href\)$/m)
  // A launcher that chose flags or started the platform itself would be a second place deciding.
  assert.doesNotMatch(start, /gcFlags|fork\(|spawn\(/)
})
