import { RandomTexts, dashesAt, writeHex } from '../bytes/random-texts'

/**
 * W3C Trace Context (https://www.w3.org/TR/trace-context/): checking a traceparent as sent and making
 * a new one. A valid header travels unchanged; an invalid one is treated as absent, as the
 * recommendation asks of a participant that cannot parse it.
 */
const HEX = /^[0-9a-f]+$/
const ZERO_TRACE = '00000000000000000000000000000000'
const ZERO_SPAN = '0000000000000000'

export function isValidTraceparent(h: string): boolean {
  if (h.length < 55 || h[2] !== '-' || h[35] !== '-' || h[52] !== '-') return false
  const version = h.slice(0, 2)
  // Version 00 is exactly 55 characters; a later version may append fields after a dash.
  if (version === 'ff' || (version === '00' ? h.length !== 55 : h.length > 55 && h[55] !== '-')) return false
  const traceId = h.slice(3, 35)
  const parentId = h.slice(36, 52)
  return (
    HEX.test(version) &&
    HEX.test(traceId) &&
    HEX.test(parentId) &&
    HEX.test(h.slice(53, 55)) &&
    traceId !== ZERO_TRACE &&
    parentId !== ZERO_SPAN
  )
}

/** tracestate: at most 512 characters of printable ASCII (its list syntax is the vendors' business). */
export function isValidTracestate(h: string): boolean {
  return h.length <= 512 && /^[\x20-\x7e]*$/.test(h)
}

/**
 * New traceparents are made a batch at a time (RandomTexts): cheaper than two hex conversions and a
 * template per call, whose joined string was flattened again when the Invoke frame was written. One
 * traceparent is 16 + 8 random bytes.
 */
const SPAN_DASH = dashesAt(16)
const traceparents = new RandomTexts(55, 24, (text, at, random, r) => {
  at += text.latin1Write('00-', at, 3)
  at = writeHex(text, at, random, r, 24, SPAN_DASH)
  return at + text.latin1Write('-01', at, 3)
})

/** A new sampled traceparent with random trace and span ids (never all zero in practice: 2^-128). */
export function newTraceparent(): string {
  return traceparents.next()
}
