// Build: generate the protobuf code from proto/, compile TypeScript, copy the non-TS assets
// (generated JS, microservice config files) next to the compiled code in dist/.
import { execFileSync } from 'node:child_process'
import { cpSync, mkdirSync, readdirSync, statSync, existsSync } from 'node:fs'
import { join, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const bin = (name) => join(root, 'node_modules', '.bin', name)
const gen = join(root, 'src', 'protocol', 'generated')
mkdirSync(gen, { recursive: true })

const proto = join(root, 'proto', 'gateway.proto')
const js = join(gen, 'gateway.js')
const dts = join(gen, 'gateway.d.ts')
const stale = !existsSync(dts) || statSync(dts).mtimeMs < statSync(proto).mtimeMs
if (stale) {
  execFileSync(bin('pbjs'), ['-t', 'static-module', '-w', 'commonjs', '--force-number', '--no-verify', '--no-convert', '-o', js, proto], { stdio: 'inherit' })
  execFileSync(bin('pbts'), ['-o', dts, js], { stdio: 'inherit' })
}
execFileSync(bin('tsc'), ['-p', join(root, 'tsconfig.json')], { stdio: 'inherit' })

cpSync(js, join(root, 'dist', 'src', 'protocol', 'generated', 'gateway.js'))
// Microservice folders keep their config files beside the compiled entry module.
function copyJson (from, to) {
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const src = join(from, entry.name)
    const dst = join(to, entry.name)
    if (entry.isDirectory()) copyJson(src, dst)
    else if (entry.name.endsWith('.json')) { mkdirSync(to, { recursive: true }); cpSync(src, dst) }
  }
}
copyJson(join(root, 'examples'), join(root, 'dist', 'examples'))
copyJson(join(root, 'test', 'fixtures'), join(root, 'dist', 'test', 'fixtures'))
