// What a Stryker run's mutants come to per module, and whether that module holds (scripts/mutation.mjs).
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join, relative } from 'node:path'

/** The floor every module's score must reach (issue 58), survivors named as equivalent left out. */
export const FLOOR = 85

const sources = new Map()
/** A file's lines, trimmed (each file is read once per run). */
export function linesOf(path) {
  let lines = sources.get(path)
  if (lines === undefined) {
    lines = readFileSync(path, 'utf8')
      .split('\n')
      .map((l) => l.trim())
    sources.set(path, lines)
  }
  return lines
}

/**
 * A mutant as test/mutation/equivalent.json names it: `file | the line's text | mutator → replacement`.
 * The line's text rather than its number, so that an edit above it does not orphan its entry; the entry
 * goes only when the line itself changes, which is when its reason has to be thought again.
 */
export function mutantKey(r, root = process.cwd()) {
  const file = relative(root, r.fileName).replaceAll('\\', '/')
  return `${file} | ${linesOf(join(root, file))[r.location.start.line - 1] ?? ''} | ${r.mutatorName} → ${r.replacement}`
}

/**
 * A key's three parts. The line's text may hold ' | ' itself: the file is before the first, the change
 * (`mutator → replacement`) after the last.
 */
export function keyParts(key) {
  const first = key.indexOf(' | ')
  const last = key.lastIndexOf(' | ')
  return { file: key.slice(0, first), line: key.slice(first + 3, last), change: key.slice(last + 3) }
}

/**
 * Killed, survived, equivalent, no coverage and timeout; the score is what was killed (or timed out) of
 * all but the equivalents, in percent. Mutants that could not run (compile or runtime errors, ignored)
 * count in none.
 */
export function summarise(results, equivalent, root = process.cwd()) {
  const c = { killed: 0, survived: 0, equivalent: 0, noCoverage: 0, timeout: 0 }
  for (const r of results) {
    if (r.status === 'Killed') c.killed++
    else if (r.status === 'Timeout') c.timeout++
    else if (r.status === 'NoCoverage') c.noCoverage++
    else if (r.status === 'Survived') {
      if (equivalent[mutantKey(r, root)] === undefined) c.survived++
      else c.equivalent++
    }
  }
  const counted = c.killed + c.timeout + c.survived + c.noCoverage
  return { ...c, score: counted === 0 ? 100 : Math.floor((1000 * (c.killed + c.timeout)) / counted) / 10 }
}

/**
 * Why a module does not hold: below the score its baseline recorded, or below the floor unless it is
 * one of the modules still being `raising` to it.
 */
export function verdict(name, counts, base, raising = false) {
  const out = []
  if (counts.score < FLOOR && !raising) out.push(`${name}: ${counts.score} % killed, below the floor of ${FLOOR} %`)
  if (base !== undefined && counts.score < base.score)
    out.push(`${name}: ${counts.score} % killed, below its baseline of ${base.score} %`)
  return out
}

/**
 * sha256 of a module's source and test files, names and contents: what its counts were measured on.
 * The baseline keeps it beside the counts, so that --changed runs exactly the modules whose files differ.
 * The two lists are hashed apart: a file moved from one to the other changes what is measured.
 */
export function filesDigest(module, root = process.cwd()) {
  const hash = createHash('sha256')
  for (const [list, files] of [
    ['mutate', module.mutate],
    ['tests', module.tests]
  ])
    for (const file of [...files].sort())
      hash
        .update(`${list}:${file}`)
        .update('\0')
        .update(readFileSync(join(root, file)))
        .update('\0')
  return hash.digest('hex')
}
