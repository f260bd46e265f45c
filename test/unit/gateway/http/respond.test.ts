// One place per concern (docs/development.md, "One place per concern"): every status and header of
// the gateway's and the edge's answers is written by src/gateway/http/respond.ts, and the names of
// those headers are spelled once, in http-names.ts (HEADER). Adding a header to every answer means one
// file. The admin listener (src/platform/admin.ts, node:http) and the bench's reference server are
// other servers and keep their own.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { HEADER } from '../../../../src/common/contract/http-names'
import { ROOT } from '../../../helpers/root'

const WRITER = 'src/gateway/http/respond.ts'
const NAMES = 'src/common/contract/http-names.ts'

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n)
    if (statSync(p).isDirectory()) return n === 'generated' ? [] : sources(p)
    return n.endsWith('.ts') ? [relative(ROOT, p)] : []
  })
}
const FILES = ['src/gateway', 'src/common'].flatMap((d) => sources(join(ROOT, d)))

/** Where `files` write a status or a header, and where they spell one of HEADER's names. */
function scattered(files: readonly string[], read: (file: string) => string): string[] {
  const found: string[] = []
  for (const file of files) {
    const text = read(file)
    if (file !== WRITER && /\.write(Status|Header)\(/.test(text)) found.push(`${file} writes a status or a header`)
    if (file === NAMES) continue
    for (const name of Object.values(HEADER))
      if (text.includes(`'${name}'`) || text.includes(`"${name}"`)) found.push(`${file} spells '${name}'`)
  }
  return found
}

test("the gateway's and the edge's answers are written by respond.ts alone, with names spelled in http-names.ts", () => {
  const read = (file: string): string => readFileSync(join(ROOT, file), 'utf8')
  assert.ok(FILES.includes(WRITER) && FILES.includes('src/gateway/edge/edge.ts'))
  assert.deepEqual(scattered(FILES, read), [])
  // Not vacuous: the edge writing a header of its own, or a refusal spelling Retry-After, is found.
  const edge = (file: string): string =>
    file.endsWith('edge.ts') ? `${read(file)}\nres.writeHeader('Retry-After', '1')` : read(file)
  assert.deepEqual(scattered(FILES, edge), [
    'src/gateway/edge/edge.ts writes a status or a header',
    "src/gateway/edge/edge.ts spells 'Retry-After'"
  ])
})
