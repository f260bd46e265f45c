// node install-uws.mjs SPEC INTEGRITY DIR: puts the uWebSockets.js build SPEC (an npm spec or a
// tarball URL, checked against INTEGRITY) into DIR, normally node_modules/uWebSockets.js, in place of
// the Node 20 build the lock file installs. Only the binary for this Node's ABI and architecture is
// kept, and PROVENANCE.json records where it came from (the gateway logs it at start).
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, cpSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fetchPacked } from './npm-fetch.mjs'

const [spec, integrity, dir] = process.argv.slice(2)
if (spec === undefined || integrity === undefined || dir === undefined) {
  console.error('usage: node install-uws.mjs SPEC INTEGRITY|- DIR')
  process.exit(2)
}
const tmp = mkdtempSync(join(tmpdir(), 'install-uws-'))
try {
  const tarball = fetchPacked(spec, integrity, tmp)
  const unpacked = join(tmp, 'unpacked')
  execFileSync('mkdir', ['-p', unpacked])
  // npm's tarballs hold package/; GitHub's archives hold <repo>-<tag>/: strip whichever it is.
  execFileSync('tar', ['-xzf', tarball, '-C', unpacked, '--strip-components=1'])
  const binary = `uws_${process.platform}_${process.arch}_${process.versions.modules}.node`
  if (!existsSync(join(unpacked, binary))) {
    throw new Error(
      `${spec} has no ${binary} (Node ${process.versions.node}); its binaries: ${readdirSync(unpacked)
        .filter((f) => f.endsWith('.node'))
        .join(', ')}`
    )
  }
  const pkg = JSON.parse(readFileSync(join(unpacked, 'package.json'), 'utf8'))
  rmSync(dir, { recursive: true, force: true })
  for (const f of readdirSync(unpacked)) {
    if (
      f.endsWith('.node') ? f === binary : /^(uws\.js|ESM_wrapper\.mjs|index\.d\.ts|package\.json|LICENSE.*)$/.test(f)
    )
      cpSync(join(unpacked, f), join(dir, f))
  }
  const provenance = {
    spec,
    integrity: `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`,
    integrityPinned: integrity !== '-',
    package: `${pkg.name}@${pkg.version}`,
    binary,
    binarySha256: createHash('sha256')
      .update(readFileSync(join(dir, binary)))
      .digest('hex')
  }
  writeFileSync(join(dir, 'PROVENANCE.json'), `${JSON.stringify(provenance, null, 2)}\n`)
  console.log(`uWebSockets.js ${pkg.version} from ${spec}: ${binary} (sha256 ${provenance.binarySha256})`)
} finally {
  rmSync(tmp, { recursive: true, force: true })
}
