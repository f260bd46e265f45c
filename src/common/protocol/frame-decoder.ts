import { gateway } from './generated/gateway'
import type { FastBuffer } from '../bytes/fast-buffer'
import { CONTEXT_FIELDS, ContextField, ErrorKey, FrameKey, InvokeKey, ResultKey, contextKey } from './wire-keys'

/**
 * Decodes a frame's message (the bytes after its length prefix). The two frames of every call,
 * Invoke (read by the microservice) and Result (read by the gateway), are read by hand into the
 * same protobufjs message classes protobufjs's decode makes; anything else, and anything in them
 * this reader does not expect (an unknown field, a field of another wire type, a varint past 32
 * bits, a length past the end), goes to protobufjs, which decodes it or throws as before.
 * test/protocol/hot-frames.test.ts holds the two readers together.
 *
 * Why: protobufjs's Reader, a reader object per frame and a call per field through it, and
 * utf8Slice for every short name, were a large share of the microservice's CPU per small call.
 */
export function decodeFrame(b: Buffer): gateway.Frame {
  return readHot(b as FastBuffer) ?? gateway.Frame.decode(b)
}

/** The read position of the decode under way (decoding is synchronous: one at a time). */
let at = 0

/**
 * The hand reader alone: the frame, or null where it hands the bytes to protobufjs. Exported for the
 * tests, which hold that it reads every well-formed Invoke and Result itself (a reader that gave up
 * would still decode right, through protobufjs, and only cost more).
 */
export function readHot(b: FastBuffer): gateway.Frame | null {
  const key = b[0]
  if (key !== FrameKey.Invoke && key !== FrameKey.Result) return null
  at = 1
  const length = varint32(b, b.length)
  // One field filling the frame: a frame with more in it (a second oneof member) is protobufjs's.
  if (length < 0 || at + length !== b.length) return null
  const frame = new gateway.Frame()
  if (key === FrameKey.Invoke) {
    const invoke = readInvoke(b, b.length)
    if (invoke === null) return null
    frame.invoke = invoke
  } else {
    const result = readResult(b, b.length)
    if (result === null) return null
    frame.result = result
  }
  return frame
}

/**
 * A varint read as protobufjs's uint32() reads it (a fifth byte gives its low 4 bits), or -1 for
 * one longer than five bytes or running past `end`.
 */
function varint32(b: Uint8Array, end: number): number {
  let value = 0
  for (let shift = 0; shift < 35; shift += 7) {
    if (at >= end) return -1
    const c = b[at++]!
    if (shift === 28) return c > 0x7f ? -1 : (value | ((c & 15) << 28)) >>> 0
    value |= (c & 0x7f) << shift
    if (c < 0x80) return value
  }
  return -1
}

/** The end of a length-delimited field starting at `at` (its length), or -1 past `end`. */
function delimitedEnd(b: Uint8Array, end: number): number {
  const n = varint32(b, end)
  return n < 0 || at + n > end ? -1 : at + n
}

/** bytes as protobufjs reads them from a Buffer: a view, or a new empty Buffer. */
function bytesTo(b: FastBuffer, stop: number): Buffer {
  const start = at
  at = stop
  return start === stop ? Buffer.alloc(0) : b.subarray(start, stop)
}

/**
 * The strings of the endpoint (service, method, sequence) are the same call after call: the text
 * decoded last for each is kept with its bytes and given again while the bytes are the same (one
 * entry each, so nothing grows). The same string each time also keeps its hash for the lookups.
 */
const ENDPOINT_SLOTS = 3
const ENDPOINT_MAX_BYTES = 128
const lastBytes: Uint8Array[] = Array.from({ length: ENDPOINT_SLOTS }, () => new Uint8Array(0))
const lastText: string[] = new Array<string>(ENDPOINT_SLOTS).fill('')

function endpointString(b: FastBuffer, stop: number, slot: number): string {
  const start = at
  at = stop
  const n = stop - start
  const seen = lastBytes[slot]!
  if (seen.length === n) {
    let k = 0
    while (k < n && seen[k] === b[start + k]) k++
    if (k === n) return lastText[slot]!
  }
  const text = b.utf8Slice(start, stop)
  if (n <= ENDPOINT_MAX_BYTES) {
    // A copy: the frame's memory is a socket chunk or a pooled buffer used again.
    lastBytes[slot] = Uint8Array.prototype.slice.call(b, start, stop)
    lastText[slot] = text
  }
  return text
}

function text(b: FastBuffer, stop: number): string {
  const start = at
  at = stop
  return b.utf8Slice(start, stop)
}

function readInvoke(b: FastBuffer, end: number): gateway.Invoke | null {
  const m = new gateway.Invoke()
  while (at < end) {
    const key = b[at++]
    let stop = -1
    let v = -1
    switch (key) {
      case InvokeKey.Id:
        if ((v = varint32(b, end)) < 0) return null
        m.id = v
        break
      case InvokeKey.Service:
        if ((stop = delimitedEnd(b, end)) < 0) return null
        m.service = endpointString(b, stop, 0)
        break
      case InvokeKey.Method:
        if ((stop = delimitedEnd(b, end)) < 0) return null
        m.method = endpointString(b, stop, 1)
        break
      case InvokeKey.Sequence:
        if ((stop = delimitedEnd(b, end)) < 0) return null
        m.sequence = endpointString(b, stop, 2)
        break
      case InvokeKey.Mode:
        if ((v = varint32(b, end)) < 0) return null
        m.mode = v | 0
        break
      case InvokeKey.Argument:
        if ((stop = delimitedEnd(b, end)) < 0) return null
        m.arguments.push(bytesTo(b, stop))
        break
      case InvokeKey.Context: {
        if ((stop = delimitedEnd(b, end)) < 0) return null
        const context = readContext(b, stop)
        if (context === null) return null
        m.context = context
        break
      }
      case InvokeKey.TimeoutMs:
        if ((v = varint32(b, end)) < 0) return null
        m.timeoutMs = v
        break
      default:
        return null
    }
  }
  return m
}

function readContext(b: FastBuffer, end: number): gateway.CallContext | null {
  const c = new gateway.CallContext()
  while (at < end) {
    const key = b[at++]!
    // Every field is a string (2, privilege_names, repeated).
    const field = key >> 3
    if (key !== contextKey(field) || field < 1 || field > CONTEXT_FIELDS) return null
    const stop = delimitedEnd(b, end)
    if (stop < 0) return null
    const s = text(b, stop)
    switch (field) {
      case ContextField.Locale:
        c.locale = s
        break
      case ContextField.PrivilegeNames:
        c.privilegeNames.push(s)
        break
      case ContextField.RequestId:
        c.requestId = s
        break
      case ContextField.SessionId:
        c.sessionId = s
        break
      case ContextField.User:
        c.user = s
        break
      case ContextField.ClientApplicationName:
        c.clientApplicationName = s
        break
      case ContextField.Ip:
        c.ip = s
        break
      case ContextField.Traceparent:
        c.traceparent = s
        break
      case ContextField.Tracestate:
        c.tracestate = s
        break
      default: // ContextField.CertificateSubject, the last
        c.certificateSubject = s
    }
  }
  return c
}

function readResult(b: FastBuffer, end: number): gateway.Result | null {
  const r = new gateway.Result()
  while (at < end) {
    const key = b[at++]
    let stop = -1
    let v = -1
    switch (key) {
      case ResultKey.Id:
        if ((v = varint32(b, end)) < 0) return null
        r.id = v
        break
      case ResultKey.Body:
        if ((stop = delimitedEnd(b, end)) < 0) return null
        r.body = bytesTo(b, stop)
        break
      case ResultKey.IsVoid:
        if ((v = varint32(b, end)) < 0) return null
        r.isVoid = v !== 0
        break
      case ResultKey.Error: {
        if ((stop = delimitedEnd(b, end)) < 0) return null
        const error = readError(b, stop)
        if (error === null) return null
        r.error = error
        break
      }
      default:
        return null
    }
  }
  return r
}

function readError(b: FastBuffer, end: number): gateway.Error | null {
  const e = new gateway.Error()
  while (at < end) {
    const key = b[at++]
    let stop = -1
    let v = -1
    switch (key) {
      case ErrorKey.Code:
        if ((stop = delimitedEnd(b, end)) < 0) return null
        e.code = text(b, stop)
        break
      case ErrorKey.Detail:
        if ((stop = delimitedEnd(b, end)) < 0) return null
        e.detail = text(b, stop)
        break
      case ErrorKey.Status:
        if ((v = varint32(b, end)) < 0) return null
        e.status = v
        break
      default:
        return null
    }
  }
  return e
}
