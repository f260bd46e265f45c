// The public SDK, as an outside author meets it: a sample microservice compiled against
// 'invocation-gateway/runtime' alone, with declarations, must type-check and its .d.ts must name
// only the public entry; loading the entry must load nothing of the platform.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { execFileSync } from 'node:child_process'
import ts from 'typescript'
import { MODULES_DIR } from '../../src/microservice/host/host-env'
import { ROOT } from '../helpers/root'

const SAMPLE = join(ROOT, 'test', 'sdk', 'sample', 'index.ts')
const PUBLIC_TYPES = join(ROOT, 'dist', 'src', 'microservice', 'sdk', 'index.d.ts')

test('a sample microservice compiles against the public entry alone, and its declarations name only that entry', () => {
  const options: ts.CompilerOptions = {
    strict: true,
    noUncheckedIndexedAccess: true,
    declaration: true,
    emitDeclarationOnly: true,
    module: ts.ModuleKind.Node16,
    moduleResolution: ts.ModuleResolutionKind.Node16,
    target: ts.ScriptTarget.ES2022,
    types: ['node'],
    typeRoots: [join(ROOT, 'node_modules', '@types')],
    // As an author's project sees the package: the name maps to the built declarations, nothing else.
    paths: { 'invocation-gateway/runtime': [PUBLIC_TYPES] },
    skipLibCheck: false
  }
  const outputs = new Map<string, string>()
  const host = ts.createCompilerHost(options)
  host.writeFile = (name, text) => {
    outputs.set(name, text)
  }
  const program = ts.createProgram([SAMPLE], options, host)
  const emitted = program.emit()
  const diagnostics = [...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics]
  assert.deepEqual(
    diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')),
    []
  )
  const dts = [...outputs].find(([name]) => name.endsWith('index.d.ts'))
  assert.ok(dts !== undefined, 'a declaration file was emitted')
  const specifiers = [...dts[1].matchAll(/(?:from |import\()["']([^"']+)["']/g)].map((m) => m[1])
  assert.ok(specifiers.length > 0, 'the declarations reference the SDK')
  assert.deepEqual([...new Set(specifiers)], ['invocation-gateway/runtime'], dts[1])
  // The program saw the platform's files only as the entry's own declarations (descriptors, serializers, define).
  const platformFiles = program
    .getSourceFiles()
    .map((f) => f.fileName)
    .filter(
      (f) =>
        /dist\/src\/(platform|dispatch|http|invoke|pool|protocol|config)\//.test(f) ||
        /runtime\/(host|server)\.d\.ts$/.test(f)
    )
  assert.deepEqual(platformFiles, [])
})

test('requiring invocation-gateway/runtime by name (NODE_PATH, exports) loads no platform module and patches no loader', () => {
  const script = `
    const Module = require('node:module')
    const before = Module._resolveFilename
    const sdk = require('invocation-gateway/runtime')
    const loaded = Object.keys(require.cache).filter((f) => !f.includes('node_modules'))
    console.log(JSON.stringify({ loaded, patched: Module._resolveFilename !== before, exports: Object.keys(sdk).sort() }))`
  const out = JSON.parse(
    execFileSync(process.execPath, ['-e', script], {
      cwd: '/',
      env: { ...process.env, NODE_PATH: MODULES_DIR }
    }).toString()
  ) as { loaded: string[]; patched: boolean; exports: string[] }
  assert.equal(out.patched, false)
  const platform = out.loaded.filter(
    (f) => /\/(platform|dispatch|http|invoke|pool|protocol|config)\//.test(f) || /runtime\/(host|server)\.js$/.test(f)
  )
  assert.deepEqual(platform, [])
  for (const name of [
    't',
    'method',
    'service',
    'defineMicroservice',
    'ServiceError',
    'ValueError',
    'runtime',
    'createAlphaXmlSerializer',
    'createAlphaJsonSerializer',
    'createBetaJsonSerializer',
    'createBetaXmlSerializer'
  ]) {
    assert.ok(out.exports.includes(name), `exports ${name}`)
  }
})
