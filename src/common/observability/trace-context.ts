import { randomFillSync } from 'node:crypto'
import type { FastBuffer } from '../bytes/fast-buffer'

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
 * New traceparents are made 128 at a time: one getrandom call, the text written by hand into one
 * buffer and read out as one string, each traceparent a slice of it: cheaper than two hex
 * conversions and a template per call, whose joined string was flattened again when the Invoke
 * frame was written. One traceparent is 16 + 8 random bytes.
 */
const BATCH = 128
const LENGTH = 55
const random = Buffer.alloc(24 * BATCH)
const text = Buffer.alloc(LENGTH * BATCH) as FastBuffer
const HEX_DIGITS = Buffer.from('0123456789abcdef', 'latin1')
let batch = ''
let taken = BATCH

function refill(): void {
  randomFillSync(random)
  let at = 0
  let r = 0
  for (let k = 0; k < BATCH; k++) {
    at += text.latin1Write('00-', at, 3)
    for (let j = 0; j < 24; j++) {
      if (j === 16) text[at++] = 0x2d
      const v = random[r++]!
      text[at++] = HEX_DIGITS[v >> 4]!
      text[at++] = HEX_DIGITS[v & 15]!
    }
    at += text.latin1Write('-01', at, 3)
  }
  batch = text.latin1Slice(0, LENGTH * BATCH)
  taken = 0
}

/** A new sampled traceparent with random trace and span ids (never all zero in practice: 2^-128). */
export function newTraceparent(): string {
  if (taken === BATCH) refill()
  const start = taken++ * LENGTH
  return batch.slice(start, start + LENGTH)
}
