// Generates the protobuf code (src/common/protocol/generated) from proto/gateway.proto when it is missing or
// older than the schema. Build and typecheck both run it first, so a clean clone type-checks.
import { execFileSync } from 'node:child_process'
import { mkdirSync, statSync, existsSync } from 'node:fs'
import { join, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'

export const root = join(dirname(fileURLToPath(import.meta.url)), '..')
export const bin = (name) => join(root, 'node_modules', '.bin', name)
export const generatedJs = join(root, 'src', 'common', 'protocol', 'generated', 'gateway.js')

export function generateProto() {
  const proto = join(root, 'proto', 'gateway.proto')
  const dts = join(root, 'src', 'common', 'protocol', 'generated', 'gateway.d.ts')
  mkdirSync(dirname(dts), { recursive: true })
  if (existsSync(dts) && statSync(dts).mtimeMs >= statSync(proto).mtimeMs) return
  const pbjs = [
    '-t',
    'static-module',
    '-w',
    'commonjs',
    '--force-number',
    '--no-verify',
    '--no-convert',
    '-o',
    generatedJs,
    proto
  ]
  execFileSync(bin('pbjs'), pbjs, { stdio: 'inherit' })
  execFileSync(bin('pbts'), ['-o', dts, generatedJs], { stdio: 'inherit' })
}

if (process.argv[1] === fileURLToPath(import.meta.url)) generateProto()
