// SPEC "What the service does" 3: the gateway is exposed only for native microservices; a servlet
// microservice handles all its incoming HTTP requests itself. A package that says
// "type": "servletApp" is deployed and runs, but a call through the gateway or the edge is refused
// with a code that says why, it has no description on the edge, and list/status show its type.
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { startDeployPlatform, cli, packCopy, type DeployPlatform } from '../../helpers/processes/deploy'
import { EXAMPLE_DIR, post, problem } from '../../helpers/platform'

const work = mkdtempSync(join(tmpdir(), 'servlet-'))

describe('a servletApp microservice', () => {
  let d: DeployPlatform
  before(async () => {
    d = await startDeployPlatform()
    for (const [name, type] of [
      ['portal', 'servletApp'],
      ['example', undefined]
    ] as const) {
      const zip = await packCopy(EXAMPLE_DIR, work, (c) => {
        c.name = name
        if (type !== undefined) c.type = type
      })
      const up = await cli(d.configFile, 'upload', zip)
      assert.equal(up.code, 0, up.stderr)
    }
  })
  after(() => d.stop())

  test('a call through the gateway is 404 SERVLET_MICROSERVICE; the same package as a nativeApp answers', async () => {
    const r = await post(d.url, '/portal/calculator/multiply', '{"a":2,"b":3}')
    assert.equal(r.status, 404, r.text)
    const p = problem(r)
    assert.equal(p.code, 'SERVLET_MICROSERVICE')
    assert.equal(
      p.detail,
      "microservice 'portal' is a servletApp: it handles its own HTTP requests, and the gateway exposes only nativeApp microservices"
    )
    const native = await post(d.url, '/example/calculator/multiply', '{"a":2,"b":3}')
    assert.deepEqual([native.status, native.text], [200, '{"result":6}'])
  })

  test('through the edge too, and the edge has no description of it', async () => {
    const edge = `http://127.0.0.1:${d.platform.edgePort}`
    const r = await post(edge, '/_eapi/ELASTIC_HTTP/portal/calculator/multiply', '{"a":2,"b":3}')
    assert.equal(problem(r).code, 'SERVLET_MICROSERVICE')
    assert.equal((await fetch(`${edge}/_swagger/portal/openapi.json`)).status, 404)
    assert.equal((await fetch(`${edge}/_swagger/example/openapi.json`)).status, 200)
  })

  test('it runs: list and status show it available, with its type', async () => {
    const list = await cli(d.configFile, 'list', '--json')
    assert.equal(list.code, 0, list.stderr)
    const all = JSON.parse(list.stdout) as Array<{ name: string; type: string; unavailable: string | null }>
    assert.deepEqual(all.map((m) => [m.name, m.type, m.unavailable]).sort(), [
      ['example', 'nativeApp', null],
      ['portal', 'servletApp', null]
    ])
    const status = await cli(d.configFile, 'status', 'portal')
    assert.match(status.stdout, /^portal 1\.0\.0 \(servletApp: runs, not exposed by the gateway\): available/)
    assert.match((await cli(d.configFile, 'status', 'example')).stdout, /^example 1\.0\.0: available/)
  })
})
