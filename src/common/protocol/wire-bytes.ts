import type { FastBuffer } from '../bytes/fast-buffer'
import { varintLength } from './frame'

/**
 * Byte-level helpers of the hand-written frame encoders (invoke-frame, result-frame): the hot
 * frames are written straight into one buffer whose size is measured first.
 */

/**
 * Strings and byte ranges up to this length are measured and copied by a loop; longer ones by one
 * call into the runtime (Buffer.byteLength, latin1Write, TypedArray set), whose fixed price the loop
 * passes at about this length (docs/performance.md, "The frame written by the runtime").
 */
export const LOOP_COPY_MAX = 32

/** UTF-8 length of s; a short ASCII one (an address, a locale) without a call into the runtime. */
export function utf8Length(s: string): number {
  if (s.length > LOOP_COPY_MAX) return Buffer.byteLength(s, 'utf8')
  for (let k = 0; k < s.length; k++) if (s.charCodeAt(k) >= 0x80) return Buffer.byteLength(s, 'utf8')
  return s.length
}

/** Writes s, whose UTF-8 length is `bytes`, at `at`; returns where it ends. */
export function writeString(to: FastBuffer, at: number, s: string, bytes: number): number {
  if (bytes !== s.length) to.set(Buffer.from(s, 'utf8'), at)
  else if (bytes <= LOOP_COPY_MAX) for (let k = 0; k < bytes; k++) to[at + k] = s.charCodeAt(k)
  else to.latin1Write(s, at, bytes)
  return at + bytes
}

/**
 * Copies from[start, end) to `at`; returns where it ends. All of `from` by one `set` at any length;
 * a part of it by a loop up to LOOP_COPY_MAX bytes, as a part needs a view made first.
 */
export function copyBytes(to: Uint8Array, at: number, from: Uint8Array, start: number, end: number): number {
  if (start === 0 && end === from.length) to.set(from, at)
  else if (end - start <= LOOP_COPY_MAX) for (let k = start; k < end; k++) to[at + k - start] = from[k]!
  else to.set(from.subarray(start, end), at)
  return at + end - start
}

/** Bytes a length-delimited field of n bytes takes: its one-byte key, the length, the bytes. */
export function delimitedSize(n: number): number {
  return 1 + varintLength(n) + n
}
