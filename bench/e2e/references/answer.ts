// What every reference server answers for a benchmark request: the body parsed once (JSON.parse, or
// fast-xml-parser for XML), the result computed, written in the same shape as the gateway's.
import { XMLParser } from 'fast-xml-parser'

const xml = new XMLParser({ parseTagValue: true })

export function answer(method: string, isXml: boolean, body: string): string {
  switch (method) {
    case 'multiply': {
      const input = JSON.parse(body) as { a: number; b: number }
      return JSON.stringify({ result: Math.imul(input.a, input.b) })
    }
    case 'multiplyInts': {
      if (isXml) {
        const ints = (xml.parse(body) as { paramArray: { int: number[] } }).paramArray.int
        return `<int>${Math.imul(ints[0]!, ints[1]!)}</int>`
      }
      const [a, b] = JSON.parse(body) as [number, number]
      return String(Math.imul(a, b))
    }
    case 'sumProducts': {
      const [list, factor] = JSON.parse(body) as [Array<{ a: number; b: number }>, number]
      let sum = 0
      for (const x of list) sum += x.a * x.b * factor
      return String(sum)
    }
    default:
      throw new Error(`unknown method ${method}`)
  }
}
