// Every hot-path stage against its baseline, each pair in one Bench: head, plan, split, frame,
// pool vs inline, serializers. Run: npm run bench:micro [-- --json FILE]
import { writeFileSync } from 'node:fs'
import { run as head } from './head'
import { run as plan } from './plan'
import { run as split } from './split'
import { run as frame } from './frame'
import { run as poolVsInline } from './pool-vs-inline'
import { run as serializers } from './serializers'
import { table, type Pair } from './common'

async function main(): Promise<void> {
  const rows: Pair[] = []
  for (const [name, stage] of [
    ['head', head],
    ['plan', plan],
    ['split', split],
    ['frame', frame]
  ] as const) {
    process.stderr.write(`micro: ${name}\n`)
    rows.push(...(await stage()))
  }
  console.log(table(rows))
  process.stderr.write('micro: pool vs inline\n')
  const pool = await poolVsInline()
  console.log('\nbody bytes | inline µs/op | pool µs/op | pool/inline')
  for (const r of pool)
    console.log(
      `${String(r.size).padStart(10)} | ${r.inlineUs.toFixed(1).padStart(12)} | ${r.poolUs.toFixed(1).padStart(10)} | ${(r.poolUs / r.inlineUs).toFixed(2)}`
    )
  process.stderr.write('micro: serializers\n')
  const ser = await serializers(process.argv.includes('--quick'))
  console.log('\nserializer           | input        | direction   | ours/baseline')
  for (const r of ser)
    console.log(
      `${r.bean.padEnd(20)} | ${r.input.padEnd(12)} | ${r.direction.padEnd(11)} | ${r.ratio.toFixed(2).padStart(6)}`
    )
  const k = process.argv.indexOf('--json')
  if (k > 0) writeFileSync(process.argv[k + 1]!, JSON.stringify({ stages: rows, pool, serializers: ser }, null, 2))
}

main().catch((err: unknown) => {
  console.error(err)
  process.exit(1)
})
