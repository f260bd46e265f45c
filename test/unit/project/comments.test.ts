// Comments in src/ say why; measured figures go stale where the code cannot check them, so they live
// in docs/performance.md. This keeps them from drifting back: a comment line quoting a time in µs or
// ns, a percentage, "perf", "best of" or a rate in req/s counts, and at most five may.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { ROOT } from '../../helpers/root'

const SRC = join(ROOT, 'src')
const FIGURE = /([0-9.]+ ?(µs|ns)\b|[0-9.]+ ?%|best of|\bperf\b|[0-9,]+ req\/s)/
const COMMENT = /^\s*(\/\/|\*|\/\*)/

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (name === 'generated') return []
    return statSync(path).isDirectory() ? sources(path) : name.endsWith('.ts') ? [path] : []
  })
}

test('at most five comment lines in src/ carry measured figures (the rest are in docs/performance.md)', () => {
  const found: string[] = []
  for (const file of sources(SRC))
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, k) => {
        if (COMMENT.test(line) && FIGURE.test(line)) found.push(`${relative(ROOT, file)}:${k + 1}: ${line.trim()}`)
      })
  assert.ok(found.length <= 5, `${found.length} comment lines with figures:\n${found.join('\n')}`)
  // The rule is not vacuous: it counts a line of the kind it is meant to catch.
  assert.ok(COMMENT.test(' * a write per call: 15% of the CPU (perf)') && FIGURE.test('15% of the CPU'))
})
