// DISPATCH.servingVersions "newest" as the dispatcher applies it: instances of several versions of one
// microservice connected to one group (real microservice runtimes on loopback ports), and only those
// of the newest version by SemVer precedence take calls: a release over its release candidate, every
// build of it (1.0.0+b2 is 1.0.0), rc.10 over rc.2.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { MicroserviceGroup } from '../../../../src/gateway/dispatch/group'
import { defaultConfig } from '../../../../src/common/config/config'
import { MicroserviceServer } from '../../../../src/microservice/host/microservice-server'
import { DEFAULT_RUNTIME_SETTINGS } from '../../../../src/microservice/host/settings'
import exampleDefinition from '../../../../examples/example/index'

/** One instance of each version (its id is the version) in a group that serves the newest only. */
async function newestOf(versions: string[]): Promise<{ group: MicroserviceGroup; close: () => Promise<void> }> {
  const group = new MicroserviceGroup('example', null, 'newest')
  const servers = versions.map(
    (version) =>
      new MicroserviceServer(exampleDefinition, {
        name: 'example',
        version,
        settings: DEFAULT_RUNTIME_SETTINGS,
        privilegedNames: []
      })
  )
  const close = async (): Promise<void> => {
    group.close()
    await Promise.all(servers.map((s) => s.close()))
  }
  for (const [k, server] of servers.entries())
    group.instance(versions[k]!, defaultConfig().dispatch).setEndpoint(await server.listen())
  const deadline = Date.now() + 10000
  while (group.versions.length < versions.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
  if (group.versions.length < versions.length) {
    await close()
    assert.fail(`not every instance connected: ${group.versions.join(', ')}`)
  }
  return { group, close }
}

test('"newest": the release 1.0.0 and its other build serve, its release candidate does not', async () => {
  const { group, close } = await newestOf(['1.0.0-rc.1', '1.0.0', '1.0.0+b2'])
  try {
    assert.deepEqual(
      ['1.0.0-rc.1', '1.0.0', '1.0.0+b2'].map((v) => [v, group.isServing(v)]),
      [
        ['1.0.0-rc.1', false],
        ['1.0.0', true],
        ['1.0.0+b2', true]
      ]
    )
    assert.equal(group.versions.at(-1), '1.0.0-rc.1', 'the oldest last')
    assert.equal(group.unavailableReason(), null)
  } finally {
    await close()
  }
})

test('"newest": pre-release identifiers compare as numbers, rc.10 over rc.2', async () => {
  const { group, close } = await newestOf(['1.0.0-rc.10', '1.0.0-rc.2'])
  try {
    assert.deepEqual(group.versions, ['1.0.0-rc.10', '1.0.0-rc.2'])
    assert.equal(group.isServing('1.0.0-rc.10'), true)
    assert.equal(group.isServing('1.0.0-rc.2'), false)
  } finally {
    await close()
  }
})
