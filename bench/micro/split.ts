// Split stage: RMC bodies cut into argument byte slices (validating as it goes), against the
// native parser of the format (JSON.parse) and fast-xml-parser's validator, at three sizes.
import { XMLValidator } from 'fast-xml-parser'
import { splitArguments } from '../../src/gateway/prepare/split'
import { pair, jsonBody, xmlBody, type Pair } from './common'

const SIZES: Array<[string, number]> = [
  ['100 B', 100],
  ['10 KB', 10 * 1024],
  ['1 MB', 1024 * 1024]
]

export async function run(): Promise<Pair[]> {
  const out: Pair[] = []
  for (const [label, size] of SIZES) {
    const j = jsonBody(size)
    const x = xmlBody(size)
    if (splitArguments(j, 'RMC', 'json').length !== 2 * (JSON.parse(j.toString()) as unknown[]).length)
      throw new Error('JSON split gives a wrong count')
    if (XMLValidator.validate(x.toString()) !== true) throw new Error('XML body is not valid')
    const t = size >= 1 << 20 ? 1000 : 300
    out.push(
      await pair(
        'split JSON',
        label,
        ['splitArguments', () => splitArguments(j, 'RMC', 'json')],
        ['JSON.parse(toString)', () => JSON.parse(j.toString())],
        t
      )
    )
    out.push(
      await pair(
        'split XML',
        label,
        ['splitArguments', () => splitArguments(x, 'RMC', 'xml')],
        ['XMLValidator.validate', () => XMLValidator.validate(x.toString())],
        t
      )
    )
  }
  return out
}
