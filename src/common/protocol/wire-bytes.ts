import type { FastBuffer } from '../bytes/fast-buffer'
import { varintLength } from './frame'

/**
 * Byte-level helpers of the hand-written frame encoders (invoke-frame, result-frame): the hot
 * frames are written straight into one buffer whose size is measured first.
 */

/** UTF-8 length of s; ASCII (every name and id the gateway makes) without a call into the runtime. */
export function utf8Length(s: string): number {
  for (let k = 0; k < s.length; k++) if (s.charCodeAt(k) >= 0x80) return Buffer.byteLength(s, 'utf8')
  return s.length
}

/**
 * Short ASCII strings (ids, addresses) are copied by a loop: a call into Node's latin1Write costs
 * more than the copy below about 64 characters.
 */
export const LOOP_COPY_MAX = 64

/** Writes s, whose UTF-8 length is `bytes`, at `at`; returns where it ends. */
export function writeString(to: FastBuffer, at: number, s: string, bytes: number): number {
  if (bytes !== s.length) to.set(Buffer.from(s, 'utf8'), at)
  else if (bytes <= LOOP_COPY_MAX) for (let k = 0; k < bytes; k++) to[at + k] = s.charCodeAt(k)
  else to.latin1Write(s, at, bytes)
  return at + bytes
}

/** Copies from[start, end) to `at`; returns where it ends. A loop below 64 bytes: see LOOP_COPY_MAX. */
export function copyBytes(to: Uint8Array, at: number, from: Uint8Array, start: number, end: number): number {
  if (end - start <= LOOP_COPY_MAX) for (let k = start; k < end; k++) to[at++] = from[k]!
  else {
    to.set(from.subarray(start, end), at)
    at += end - start
  }
  return at
}

/** Bytes a length-delimited field of n bytes takes: its one-byte key, the length, the bytes. */
export function delimitedSize(n: number): number {
  return 1 + varintLength(n) + n
}
