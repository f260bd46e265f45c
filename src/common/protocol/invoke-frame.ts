import { varintLength, writeVarint, type FramePieces } from './frame'
import type { gateway } from './generated/gateway'
import type { FastBuffer } from '../bytes/fast-buffer'
import { copyBytes, delimitedSize, utf8Length, writeString } from './wire-bytes'
import {
  CONTEXT_FIELDS,
  CONTEXT_PRIVILEGE_NAME_FIELD,
  ContextField,
  FrameKey,
  InvokeKey,
  contextKey
} from './wire-keys'

/**
 * The Invoke frame of a small call, encoded by hand: the bytes protobufjs makes for it (fields in
 * the same order, zeros and empty strings written as it writes them; test/protocol/invoke-frame.test.ts
 * holds the two together), written into one buffer whose size is known first. protobufjs's Writer
 * builds a list of operations, one object per field, before it writes: several times the cost.
 *
 * The fields that are the same for every call of an endpoint (service, method, sequence, mode) are
 * encoded once per endpoint and copied.
 */

/** What an Invoke carries, as the pipeline has it. */
export interface InvokeFields {
  id: number
  service: string
  method: string
  sequence: string
  mode: gateway.Mode
  context: gateway.ICallContext
  timeoutMs: number
}

/** The endpoint's constant fields, encoded: service → method → sequence → mode. */
const endpoints = new Map<string, Map<string, Map<string, Uint8Array[]>>>()

function endpointFields(f: InvokeFields): Uint8Array {
  let byMethod = endpoints.get(f.service)
  if (byMethod === undefined) endpoints.set(f.service, (byMethod = new Map()))
  let bySequence = byMethod.get(f.method)
  if (bySequence === undefined) byMethod.set(f.method, (bySequence = new Map()))
  let byMode = bySequence.get(f.sequence)
  if (byMode === undefined) bySequence.set(f.sequence, (byMode = []))
  let bytes = byMode[f.mode]
  if (bytes === undefined) {
    bytes = Buffer.concat([
      stringField(InvokeKey.Service, f.service),
      stringField(InvokeKey.Method, f.method),
      stringField(InvokeKey.Sequence, f.sequence),
      Uint8Array.from([InvokeKey.Mode, f.mode])
    ])
    // Names come from the catalog, a bounded set; a client cannot grow this beyond it.
    byMode[f.mode] = bytes
  }
  return bytes
}

function stringField(key: number, s: string): Uint8Array {
  const text = Buffer.from(s, 'utf8')
  const out = new Uint8Array(delimitedSize(text.length))
  out.set(text, writeVarint(out, writeVarint(out, 0, key), text.length))
  return out
}

/**
 * The context's strings in field order (1 … 10; 2, the repeated privilege names, is written apart)
 * and their UTF-8 lengths: scratch space reused by every frame (a frame is written in one go), as
 * two arrays made per frame were a measurable part of writeInvoke's time (docs/performance.md).
 */
const contextStrings: Array<string | null | undefined> = new Array<string | null | undefined>(CONTEXT_FIELDS).fill(null)
const contextLengths = new Array<number>(CONTEXT_FIELDS).fill(0)

/** Fills the scratch arrays from c; returns the context message's length. */
function measureContext(c: gateway.ICallContext): number {
  const strings = contextStrings
  strings[ContextField.Locale - 1] = c.locale
  strings[ContextField.RequestId - 1] = c.requestId
  strings[ContextField.SessionId - 1] = c.sessionId
  strings[ContextField.User - 1] = c.user
  strings[ContextField.ClientApplicationName - 1] = c.clientApplicationName
  strings[ContextField.Ip - 1] = c.ip
  strings[ContextField.Traceparent - 1] = c.traceparent
  strings[ContextField.Tracestate - 1] = c.tracestate
  strings[ContextField.CertificateSubject - 1] = c.certificateSubject
  let length = 0
  for (let k = 0; k < CONTEXT_FIELDS; k++) {
    const s = strings[k]
    if (s == null) continue
    const n = utf8Length(s)
    contextLengths[k] = n
    length += delimitedSize(n)
  }
  const names = c.privilegeNames
  if (names != null) {
    for (let j = 0; j < names.length; j++) {
      const n = utf8Length(names[j]!)
      length += delimitedSize(n)
    }
  }
  return length
}

/** Writes the context's fields (measureContext first); returns where they end. */
function writeContext(out: FastBuffer, at: number, c: gateway.ICallContext): number {
  for (let k = 0; k < CONTEXT_FIELDS; k++) {
    if (k === CONTEXT_PRIVILEGE_NAME_FIELD - 1) {
      const names = c.privilegeNames
      if (names == null) continue
      for (let j = 0; j < names.length; j++) {
        const name = names[j]!
        const n = utf8Length(name)
        out[at++] = contextKey(CONTEXT_PRIVILEGE_NAME_FIELD)
        at = writeVarint(out, at, n)
        at = writeString(out, at, name, n)
      }
      continue
    }
    const s = contextStrings[k]
    if (s == null) continue
    const n = contextLengths[k]!
    out[at++] = contextKey(k + 1)
    at = writeVarint(out, at, n)
    at = writeString(out, at, s, n)
  }
  return at
}

/**
 * An Invoke frame whose arguments stay where they are in the body (a large call's): `head` holds
 * every other byte, and `layout` says how the pieces follow each other: [headStart, headEnd,
 * bodyStart, bodyEnd, ..., headStart, headEnd]. Written in order (one writev), the pieces are the
 * bytes of encodeInvokeFrame. Why: a large argument was copied into the frame and the frame was one
 * more large buffer for the garbage collector of the main thread.
 */
export interface SlicedFrame {
  head: Uint8Array
  body: Uint8Array
  layout: number[]
}

/** The pieces of a SlicedFrame, in the order they are written; `onWritten` when they were (or never will be). */
export function framePieces(p: SlicedFrame, onWritten: (() => void) | null = null): FramePieces {
  const out: Uint8Array[] & { onWritten?: () => void } = []
  for (let k = 0; k < p.layout.length; k += 2) {
    const from = k % 4 === 0 ? p.head : p.body
    out.push(from.subarray(p.layout[k], p.layout[k + 1]))
  }
  if (onWritten !== null) out.onWritten = onWritten
  return out
}

/** Varint length prefix + Frame{invoke}, the arguments being body[slices[2k], slices[2k+1]), copied in. */
export function encodeInvokeFrame(f: InvokeFields, body: Uint8Array, slices: number[]): Uint8Array {
  return writeInvoke(f, body, slices, null)
}

/** The same frame with the arguments left in the body. */
export function slicedInvokeFrame(f: InvokeFields, body: Uint8Array, slices: number[]): SlicedFrame {
  const layout: number[] = []
  return { head: writeInvoke(f, body, slices, layout), body, layout }
}

/**
 * Writes the frame; with `layout`, leaves out the argument bytes (the buffer holds only the rest)
 * and records the pieces there.
 */
function writeInvoke(f: InvokeFields, body: Uint8Array, slices: number[], layout: number[] | null): Uint8Array {
  const endpoint = endpointFields(f)
  const contextLength = measureContext(f.context)

  let invokeLength = 1 + varintLength(f.id) + endpoint.length
  let argumentBytes = 0
  for (let k = 0; k < slices.length; k += 2) {
    const n = slices[k + 1]! - slices[k]!
    invokeLength += delimitedSize(n)
    argumentBytes += n
  }
  invokeLength += delimitedSize(contextLength) + 1 + varintLength(f.timeoutMs)
  const frameLength = delimitedSize(invokeLength)
  const size = varintLength(frameLength) + frameLength - (layout === null ? 0 : argumentBytes)

  // The head of a large call's frame crosses threads: a buffer of its own, not a piece of Node's slab.
  const out = (layout === null ? Buffer.allocUnsafe(size) : Buffer.allocUnsafeSlow(size)) as FastBuffer
  let at = writeVarint(out, 0, frameLength)
  out[at++] = FrameKey.Invoke
  at = writeVarint(out, at, invokeLength)
  out[at++] = InvokeKey.Id
  at = writeVarint(out, at, f.id)
  at = copyBytes(out, at, endpoint, 0, endpoint.length)
  let piece = 0
  for (let k = 0; k < slices.length; k += 2) {
    const start = slices[k]!
    const end = slices[k + 1]!
    out[at++] = InvokeKey.Argument
    at = writeVarint(out, at, end - start)
    if (layout === null) {
      at = copyBytes(out, at, body, start, end)
    } else {
      layout.push(piece, at, start, end)
      piece = at
    }
  }
  out[at++] = InvokeKey.Context
  at = writeVarint(out, at, contextLength)
  at = writeContext(out, at, f.context)
  out[at++] = InvokeKey.TimeoutMs
  at = writeVarint(out, at, f.timeoutMs)
  layout?.push(piece, at)
  return out
}
