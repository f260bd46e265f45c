import { randomFillSync } from 'node:crypto'
import type { FastBuffer } from './fast-buffer'
import { InternalError } from '../errors/internal'

/**
 * Texts of random hex digits (request ids, traceparents), made a batch at a time: one getrandom
 * call and the texts written by hand into one buffer; each is read out as a flat string of its own.
 * Per text that is one small string, where crypto.randomUUID joins twenty-odd pieces (the largest
 * single share of a gateway call's garbage). Not slices of one string of the whole batch: a sliced
 * string is dearer to write out than a flat one, and every id is written into a frame and a header.
 */
export class RandomTexts {
  private readonly random: Buffer
  private readonly text: FastBuffer
  private taken: number

  /**
   * `write` lays out one text of `length` characters at `at` from `bytes` random bytes at
   * `random[r]` and returns where it ended.
   */
  constructor(
    private readonly length: number,
    private readonly bytes: number,
    private readonly write: (text: FastBuffer, at: number, random: Buffer, r: number) => number,
    private readonly size = 128
  ) {
    this.random = Buffer.alloc(bytes * size)
    this.text = Buffer.alloc(length * size) as FastBuffer
    this.taken = size
  }

  next(): string {
    if (this.taken === this.size) this.refill()
    const start = this.taken++ * this.length
    return this.text.latin1Slice(start, start + this.length)
  }

  private refill(): void {
    randomFillSync(this.random)
    let at = 0
    for (let k = 0; k < this.size; k++) {
      const end = this.write(this.text, at, this.random, k * this.bytes)
      if (end - at !== this.length)
        throw new InternalError('IGW_ASSERTION', `a random text of ${end - at} characters, not ${this.length}`)
      at = end
    }
    this.taken = 0
  }
}

const HEX_DIGITS = Buffer.from('0123456789abcdef', 'latin1')

/** The bit mask of dashesBefore for writeHex: a dash before each byte index listed (0 to 31). */
export function dashesAt(...indexes: number[]): number {
  let mask = 0
  for (const j of indexes) {
    if (!Number.isInteger(j) || j < 0 || j > 31)
      throw new RangeError(`a dash goes before a byte index from 0 to 31, not ${j}`)
    mask |= 1 << j
  }
  return mask
}

/**
 * Writes `count` bytes from `random[r]` as two lower-case hex digits each, a dash before the bytes
 * whose bit is set in `dashesBefore` (dashesAt); returns where the text ended. A bit mask rather
 * than a Set: a Set's look-up per byte showed in a gateway call's instruction profile
 * (docs/performance.md, "The hot thread lighter").
 */
export function writeHex(
  text: Buffer,
  at: number,
  random: Buffer,
  r: number,
  count: number,
  dashesBefore: number
): number {
  for (let j = 0; j < count; j++) {
    if (((dashesBefore >>> j) & 1) === 1) text[at++] = 0x2d
    const v = random[r + j]!
    text[at++] = HEX_DIGITS[v >> 4]!
    text[at++] = HEX_DIGITS[v & 15]!
  }
  return at
}
