// Build: generate the protobuf code from proto/, compile TypeScript, copy the non-TS assets
// (generated JS, microservice config files) next to the compiled code in dist/, and drop compiled
// files whose source is gone (a moved test must not keep running from a stale copy).
import { execFileSync } from 'node:child_process'
import { cpSync, mkdirSync, readdirSync, existsSync, rmSync, symlinkSync, lstatSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { root, bin, generatedJs, generateProto } from './gen-proto.mjs'
import { BUILD_STAMP } from './build-stamp.mjs'

generateProto()
execFileSync(bin('tsc'), ['-p', join(root, 'tsconfig.json')], { stdio: 'inherit' })

const dist = join(root, 'dist')
cpSync(generatedJs, join(dist, 'src', 'common', 'protocol', 'generated', 'gateway.js'))
// Microservice folders keep their config files beside the compiled entry module.
function copyJson(from, to) {
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const src = join(from, entry.name)
    const dst = join(to, entry.name)
    if (entry.isDirectory()) copyJson(src, dst)
    else if (entry.name.endsWith('.json')) {
      mkdirSync(to, { recursive: true })
      cpSync(src, dst)
    }
  }
}
copyJson(join(root, 'examples'), join(dist, 'examples'))
copyJson(join(root, 'test', 'fixtures'), join(dist, 'test', 'fixtures'))

function prune(dir) {
  if (!existsSync(dir)) return
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name)
    if (entry.isDirectory()) {
      prune(p)
      continue
    }
    const m = /^(.*)\.(js|d\.ts|js\.map)$/.exec(entry.name)
    if (m === null || p === join(dist, 'src', 'common', 'protocol', 'generated', 'gateway.js')) continue
    const source = join(root, relative(dist, dir), `${m[1]}.ts`)
    if (!existsSync(source)) rmSync(p)
  }
}
for (const top of ['src', 'workers', 'test', 'bench', 'examples']) prune(join(dist, top))

// Microservice hosts resolve 'invocation-gateway/runtime' through NODE_PATH=dist/modules
// (src/microservice/host/host-env.ts): link the package name to this project, whose "exports" name the entry.
const link = join(dist, 'modules', 'invocation-gateway')
mkdirSync(join(dist, 'modules'), { recursive: true })
if (!existsSync(link) && !isLink(link)) symlinkSync(join('..', '..'), link, 'dir')
function isLink(p) {
  try {
    return lstatSync(p).isSymbolicLink()
  } catch {
    return false
  }
}

// Last: `npm start` rebuilds only when a source is newer than this.
writeFileSync(join(root, BUILD_STAMP), `${new Date().toISOString()}\n`)
