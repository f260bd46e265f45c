// The generated descriptions held to the two linters API teams run in their pipelines: Spectral's
// `spectral:oas` ruleset and Redocly's `recommended` rules, each from node_modules/.bin. The example's
// description as generated and as edges with credentials serve it, and the dockit fixture's in each
// pair of wire shapes (beta JSON with alpha XML, alpha JSON, beta XML): no error from either, and no
// warning from Redocly's `recommended` (info.license included, which the generator defaults).
import { test, describe, before } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import { tmpdir } from 'node:os'
import { describeMicroservice } from '../../../../src/microservice/host/openapi'
import { declareEdgeSecurity } from '../../../../src/common/contract/openapi-security'
import example from '../../../../examples/example'
import type { SequenceName } from '../../../../src/common/contract/vocabulary'
import dockit from '../../../fixtures/dockit'
import { EXAMPLE_DIR } from '../../../helpers/platform'

const ROOT = join(__dirname, '..', '..', '..', '..', '..')
const BIN = join(ROOT, 'node_modules', '.bin')

interface Finding {
  readonly tool: string
  readonly file: string
  readonly error: boolean
  readonly text: string
}

/** Runs a linter; its output whatever its exit code (both exit 1 when they find an error). */
function run(cmd: string, args: string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    // Redocly sends usage data and looks for updates unless told not to; the network is not theirs.
    const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' }
    execFile(join(BIN, cmd), args, { cwd, env, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (stdout.trim() === '') reject(new Error(`${cmd} printed nothing: ${err?.message ?? ''}\n${stderr}`))
      else resolve(stdout)
    })
  })
}

async function spectral(dir: string, files: string[]): Promise<Finding[]> {
  writeFileSync(join(dir, 'ruleset.yaml'), 'extends: ["spectral:oas"]\n')
  const out = await run('spectral', ['lint', '-r', 'ruleset.yaml', '-f', 'json', '--quiet', ...files], dir)
  const results = JSON.parse(out) as Array<{
    code: string
    message: string
    severity: number
    source: string
    path: string[]
  }>
  return results.map((r) => ({
    tool: 'spectral',
    file: basename(r.source),
    error: r.severity === 0,
    text: `${r.code}: ${r.message} at ${r.path.join('.')}`
  }))
}

/** Redocly's reports, one a file (an empty one names no file): how many files it read. */
let redoclyReports = 0

async function redocly(dir: string, files: string[]): Promise<Finding[]> {
  const out = await run('redocly', ['lint', '--extends=recommended', '--format=json', ...files], dir)
  // One JSON object per file, one after another.
  const reports = JSON.parse(`[${out.trim().replace(/\}\s*\{(?=\s*"totals")/g, '},{')}]`) as Array<{
    problems: Array<{
      ruleId: string
      severity: string
      message: string
      location: Array<{ source: { ref: string }; pointer: string }>
    }>
  }>
  redoclyReports = reports.length
  return reports.flatMap((r) =>
    r.problems.map((p) => ({
      tool: 'redocly',
      file: basename(p.location[0]?.source.ref ?? ''),
      error: p.severity === 'error',
      text: `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? ''}`
    }))
  )
}

/** The descriptions linted, by file name. */
function descriptions(): Record<string, object> {
  const config = JSON.parse(readFileSync(join(EXAMPLE_DIR, 'microservice.json'), 'utf8')) as {
    name: string
    version: string
  }
  const generated = describeMicroservice({
    ...config,
    definition: example,
    aliases: new Map(Object.entries(example.aliases ?? {}))
  })
  const text = JSON.stringify(generated)
  const served = (auth: Parameters<typeof declareEdgeSecurity>[1]): object =>
    JSON.parse(declareEdgeSecurity(text, auth)) as object
  const fixture = (sequence: SequenceName): object =>
    describeMicroservice({
      name: 'dockit',
      version: '2.0.0',
      definition: dockit,
      aliases: new Map(Object.entries(dockit.aliases ?? {})),
      defaults: { sequence, apiId: 'ROA' }
    })
  return {
    'example.json': generated,
    'example-keys-and-jwt.json': served({ required: false, apiKeys: [{}], jwt: {} }),
    'example-required.json': served({ required: true, apiKeys: [{}], jwt: null }),
    'dockit-beta-json-alpha-xml.json': fixture('betaParamArrayJsonInOutSequence'),
    'dockit-alpha-json.json': fixture('alphaParamArrayJsonInOutSequence'),
    'dockit-beta-xml.json': fixture('betaParamArrayXmlInOutSequence')
  }
}

describe('generated descriptions and the linters API teams run', () => {
  let findings: Finding[] = []
  const files: string[] = []
  before(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'openapi-lint-'))
    for (const [name, doc] of Object.entries(descriptions())) {
      writeFileSync(join(dir, name), `${JSON.stringify(doc, null, 2)}\n`)
      files.push(name)
    }
    findings = [...(await spectral(dir, files)), ...(await redocly(dir, files))]
  })

  for (const tool of ['spectral', 'redocly']) {
    test(`${tool}: no error in any description (its findings are printed when there are)`, () => {
      const mine = findings.filter((f) => f.tool === tool)
      const errors = mine.filter((f) => f.error)
      assert.deepEqual(
        errors.map((f) => `${f.file}: ${f.text}`),
        [],
        mine.map((f) => `${f.error ? 'error' : 'warning'} ${f.file}: ${f.text}`).join('\n')
      )
    })
  }

  test('redocly recommended: not even a warning in any description', () => {
    const mine = findings.filter((f) => f.tool === 'redocly')
    assert.deepEqual(
      mine.map((f) => `${f.error ? 'error' : 'warning'} ${f.file}: ${f.text}`),
      []
    )
  })

  test('the linters read every file', () => {
    // Redocly writes one report a file; Spectral warns of the contact no microservice config carries.
    assert.equal(redoclyReports, files.length)
    for (const file of files) {
      assert.ok(
        findings.some((f) => f.tool === 'spectral' && f.file === file && f.text.startsWith('info-contact')),
        `spectral: ${file}`
      )
    }
  })
})
