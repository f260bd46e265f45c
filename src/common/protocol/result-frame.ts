import { varintLength, writeVarint } from './frame'
import type { gateway } from './generated/gateway'
import type { FastBuffer } from '../bytes/fast-buffer'
import { copyBytes, delimitedSize, utf8Length, writeString } from './wire-bytes'
import { ErrorKey, FrameKey, ResultKey } from './wire-keys'

/**
 * The Result frame, every call's answer, encoded by hand: the bytes protobufjs's encodeDelimited
 * makes for Frame{result} (fields in the same order, a field written when it is not null or
 * undefined, as protobufjs writes a plain object's own properties; test/protocol/hot-frames.test.ts
 * holds the two together). protobufjs's Writer queues an operation object per field and forks a
 * writer per nested message; writing straight into a buffer measured first costs a fraction of it.
 *
 * Takes plain objects (what the executor and fail() make): a value on a prototype would be written
 * here and not by protobufjs.
 */

/** Varint length prefix + Frame{result}. */
export function encodeResultFrame(r: gateway.IResult): Uint8Array {
  // protobufjs writes uint32 fields as value >>> 0.
  const id = r.id == null ? -1 : r.id >>> 0
  const body = r.body
  const isVoid = r.isVoid
  const error = r.error
  let codeBytes = -1
  let detailBytes = -1
  let status = -1
  let errorLength = 0
  if (error != null) {
    if (error.code != null) errorLength += delimitedSize((codeBytes = utf8Length(error.code)))
    if (error.detail != null) errorLength += delimitedSize((detailBytes = utf8Length(error.detail)))
    if (error.status != null) errorLength += 1 + varintLength((status = error.status >>> 0))
  }
  let resultLength = 0
  if (id >= 0) resultLength += 1 + varintLength(id)
  if (body != null) resultLength += delimitedSize(body.length)
  if (isVoid != null) resultLength += 2
  if (error != null) resultLength += delimitedSize(errorLength)
  const frameLength = delimitedSize(resultLength)

  const out = Buffer.allocUnsafe(varintLength(frameLength) + frameLength) as FastBuffer
  let at = writeVarint(out, 0, frameLength)
  out[at++] = FrameKey.Result
  at = writeVarint(out, at, resultLength)
  if (id >= 0) {
    out[at++] = ResultKey.Id
    at = writeVarint(out, at, id)
  }
  if (body != null) {
    out[at++] = ResultKey.Body
    at = writeVarint(out, at, body.length)
    at = copyBytes(out, at, body, 0, body.length)
  }
  if (isVoid != null) {
    out[at++] = ResultKey.IsVoid
    out[at++] = isVoid ? 1 : 0
  }
  if (error != null) {
    out[at++] = ResultKey.Error
    at = writeVarint(out, at, errorLength)
    if (codeBytes >= 0) {
      out[at++] = ErrorKey.Code
      at = writeVarint(out, at, codeBytes)
      at = writeString(out, at, error.code!, codeBytes)
    }
    if (detailBytes >= 0) {
      out[at++] = ErrorKey.Detail
      at = writeVarint(out, at, detailBytes)
      at = writeString(out, at, error.detail!, detailBytes)
    }
    if (status >= 0) {
      out[at++] = ErrorKey.Status
      at = writeVarint(out, at, status)
    }
  }
  return out
}
