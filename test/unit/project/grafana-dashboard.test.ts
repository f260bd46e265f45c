// deploy/grafana/gateway.json against Grafana's own model: the dashboard, pasted as an object literal
// into a TypeScript file typed with @grafana/schema's Dashboard, must compile under strict settings
// (a misspelled or misplaced key is an excess property; a wrong kind of value, a type error). Its layout
// is checked here too; its queries are asked of a live Prometheus in prometheus-live.test.ts.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { ROOT } from '../../helpers/root'

const FILE = join(ROOT, 'deploy', 'grafana', 'gateway.json')
const text = readFileSync(FILE, 'utf8')

interface Panel {
  id: number
  type: string
  title: string
  gridPos: { x: number; y: number; w: number; h: number }
  datasource?: { type: string; uid: string }
  targets?: Array<{ refId: string; expr: string; legendFormat: string }>
}

/** tsc's verdict on `json` as a Dashboard: its diagnostics, empty when it compiles. */
function typeErrors(json: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'dashboard-'))
  try {
    writeFileSync(
      join(dir, 'dashboard.ts'),
      `import type { Dashboard } from '@grafana/schema'\nexport const dashboard: Dashboard = ${json}\n`
    )
    const schema = join(ROOT, 'node_modules', '@grafana', 'schema', 'dist', 'types', 'index.d.ts')
    const config = {
      compilerOptions: {
        strict: true,
        noEmit: true,
        target: 'ES2022',
        module: 'node16',
        moduleResolution: 'node16',
        skipLibCheck: true,
        types: [],
        paths: { '@grafana/schema': [schema] }
      },
      files: ['dashboard.ts']
    }
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(config))
    try {
      execFileSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', dir], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe']
      })
      return ''
    } catch (err) {
      return String((err as { stdout?: string }).stdout ?? err)
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

test("the dashboard is Grafana's Dashboard model (@grafana/schema), and a misspelled key is not", () => {
  assert.equal(typeErrors(text), '')
  const broken = text.replace('"gridPos": {', '"gridPosition": {')
  assert.match(typeErrors(broken), /gridPosition/)
})

test('panels sit on the 24-column grid without overlapping; every query goes to the chosen Prometheus', () => {
  const dashboard = JSON.parse(text) as { panels: Panel[]; templating: { list: Array<{ name: string }> } }
  assert.deepEqual(
    dashboard.templating.list.map((v) => v.name),
    ['datasource', 'microservice']
  )
  const panels = dashboard.panels
  assert.equal(new Set(panels.map((p) => p.id)).size, panels.length, 'ids are unique')
  const cells = new Map<string, string>()
  for (const p of panels) {
    const g = p.gridPos
    assert.ok(g.x >= 0 && g.w > 0 && g.x + g.w <= 24, `${p.title}: within 24 columns`)
    for (let x = g.x; x < g.x + g.w; x++)
      for (let y = g.y; y < g.y + g.h; y++) {
        const other = cells.get(`${x},${y}`)
        assert.equal(other, undefined, `${p.title} overlaps ${other}`)
        cells.set(`${x},${y}`, p.title)
      }
    if (p.type === 'row') continue
    assert.deepEqual(p.datasource, { type: 'prometheus', uid: '${datasource}' }, p.title)
    assert.ok((p.targets ?? []).length > 0, `${p.title} has a query`)
  }
  const rows = panels.filter((p) => p.type === 'row').map((p) => p.title)
  assert.deepEqual(rows, [
    'Traffic',
    'Errors',
    'Latency',
    'Saturation',
    'Limits and admission',
    'Instances',
    'Threads and the edge'
  ])
})
