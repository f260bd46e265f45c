// npm run fuzz:fidelity -- --runs 100000 [--seed N] [--per-universe 500] [--roots 60] [--survey]
// npm run fuzz:fidelity -- --record   (writes found-cases.json, see found.ts)
// The differential property of fidelity.ts for as long as asked, with progress on stderr. A
// difference stops the run with its seed and the case (also written to reports/fidelity-difference.json).
import { parseArgs } from 'node:util'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Oracle } from '../helpers/oracle'
import { DifferenceError, runFidelity, type Difference } from './fidelity'
import { javaOutcome } from './outcomes'
import { FOUND, FOUND_SOURCES } from './found'
import { FOUND_FILE, disagreement, requestFor, type RecordedCase } from './found-check'
import { descriptorToJson } from './descriptor-json'
import { overCeiling } from './departures'
import { toWire } from '../helpers/oracle'

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string', default: '10000' },
      seed: { type: 'string' },
      'per-universe': { type: 'string', default: '500' },
      roots: { type: 'string', default: '60' },
      survey: { type: 'boolean', default: false },
      record: { type: 'boolean', default: false }
    }
  })
  if (values.record) return record()
  const runs = Number(values.runs)
  const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed)
  if (!Number.isInteger(runs) || runs < 1 || !Number.isInteger(seed)) throw new Error('--runs and --seed take integers')
  const oracle = Oracle.start()
  const started = Date.now()
  const collect: Difference[] | undefined = values.survey ? [] : undefined
  console.error(`fuzz:fidelity seed ${seed}, ${runs} runs`)
  try {
    const report = await runFidelity(oracle, {
      runs,
      seed,
      perUniverse: Number(values['per-universe']),
      roots: Number(values.roots),
      collect,
      progress: (done, r) => {
        const s = (Date.now() - started) / 1000
        const left = ((runs - done) * s) / done
        process.stderr.write(
          `\r${done}/${runs} runs, ${r.universes} universes, ${s.toFixed(0)} s, ~${left.toFixed(0)} s left   `
        )
      }
    })
    console.error('')
    console.log(JSON.stringify({ seed, ...report, seconds: (Date.now() - started) / 1000 }, null, 1))
    if (collect !== undefined) survey(collect)
    const over = overCeiling(report.departures, report.runs)
    for (const line of over) console.error(`fuzz:fidelity seed ${seed}: ${line}`)
    return (collect !== undefined && collect.length > 0) || over.length > 0 ? 1 : 0
  } catch (e) {
    console.error(`\nfuzz:fidelity seed ${seed}: ${(e as Error).message}`)
    const found = e instanceof DifferenceError ? e.difference : findDifference(e)
    if (found !== undefined) {
      const out = join(__dirname, '..', '..', '..', 'reports', 'fidelity-difference.json')
      mkdirSync(join(out, '..'), { recursive: true })
      writeFileSync(out, `${JSON.stringify({ seed, ...found }, null, 1)}\n`)
      console.error(`the case: ${out}`)
    }
    return 1
  } finally {
    await oracle.close()
  }
}

/** --record: asks Java for the found cases (found.ts) and writes them with its answers to found-cases.json. */
async function record(): Promise<number> {
  const oracle = Oracle.start()
  try {
    const versions = await oracle.ask({ op: 'versions' })
    const compiled = await oracle.ask({ op: 'compile', sources: FOUND_SOURCES, aliases: {} })
    if (compiled.error !== undefined) throw new Error(`the found cases' classes did not compile: ${compiled.message}`)
    const cases: RecordedCase[] = FOUND.map((f) => ({
      found: f.found,
      setup: f.setup,
      type: descriptorToJson(f.type),
      ...(f.text !== undefined ? { text: f.text } : { value: toWire(f.value, f.type) }),
      java: {}
    }))
    const answers = await oracle.batch(cases.map(requestFor))
    let differ = 0
    cases.forEach((c, k) => {
      c.java = javaOutcome(answers[k])
      const d = disagreement(c, c.java)
      if (d !== null) {
        differ++
        console.error(`ours differs: ${d}`)
      }
    })
    const file = FOUND_FILE
    const provenance = {
      made: new Date().toISOString().slice(0, 10),
      by: 'npm run fuzz:fidelity -- --record (test/differential/found.ts asked of test/oracle/Oracle.java)',
      java: versions.java,
      xstream: versions.xstream,
      jackson: versions.jackson,
      note: "Java's answers to the cases of each class of difference the differential tests found; checked without Java by found-cases.test.ts and against live Java by fidelity.test.ts."
    }
    writeFileSync(file, `${JSON.stringify({ provenance, sources: FOUND_SOURCES, cases }, null, 1)}\n`)
    console.log(`${cases.length} cases written to ${file}; ours differs from Java in ${differ}`)
    return differ === 0 ? 0 : 1
  } finally {
    await oracle.close()
  }
}

/** --survey: the differences grouped by class (setup family, direction, what each side did), with an example each. */
function survey(found: Difference[]): void {
  const classes = new Map<string, Difference[]>()
  for (const d of found) {
    const side = (o: Difference['java']): string =>
      o.error !== undefined ? `refused (${o.error}, ${o.refusal ?? '?'})` : 'accepted'
    const key = `${d.setup.replace('+aliases', '')} ${d.direction} ${d.kind}: Java ${side(d.java)}, ours ${side(d.ours)}`
    classes.set(key, [...(classes.get(key) ?? []), d])
  }
  const out = join(__dirname, '..', '..', '..', 'reports', 'fidelity-survey.json')
  mkdirSync(join(out, '..'), { recursive: true })
  writeFileSync(
    out,
    `${JSON.stringify(Object.fromEntries([...classes].map(([k, v]) => [k, v.slice(0, 5)])), null, 1)}\n`
  )
  for (const [k, v] of [...classes].sort((a, b) => b[1].length - a[1].length)) console.log(`${v.length}\t${k}`)
  console.log(`examples: ${out}`)
}

/** fast-check wraps the property's error: the difference is its cause. */
function findDifference(e: unknown): DifferenceError['difference'] | undefined {
  for (let x: unknown = e; x instanceof Error; x = x.cause) if (x instanceof DifferenceError) return x.difference
  return undefined
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(e)
    process.exit(2)
  }
)
