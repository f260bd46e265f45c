/**
 * The protobuf keys (field number << 3 | wire type: 0 varint, 2 length-delimited) of
 * proto/gateway.proto's two hot frames, in one place for their hand-written writers (invoke-frame,
 * result-frame) and reader (frame-decoder). Every field here is numbered below 16, so each key is
 * one byte. Const enums: the compiler writes the numbers in, so the hot code reads no property to
 * get a key, as fast as the literals they replaced.
 */

/** Frame's oneof members that carry a call. */
export const enum FrameKey {
  Invoke = (3 << 3) | 2,
  Result = (4 << 3) | 2
}

export const enum InvokeKey {
  Id = (1 << 3) | 0,
  Service = (2 << 3) | 2,
  Method = (3 << 3) | 2,
  Sequence = (4 << 3) | 2,
  Mode = (5 << 3) | 0,
  Argument = (6 << 3) | 2,
  Context = (7 << 3) | 2,
  TimeoutMs = (8 << 3) | 0
}

/** CallContext's fields, every one a string (PrivilegeNames repeated). */
export const enum ContextField {
  Locale = 1,
  PrivilegeNames = 2,
  RequestId = 3,
  SessionId = 4,
  User = 5,
  ClientApplicationName = 6,
  Ip = 7,
  Traceparent = 8,
  Tracestate = 9,
  CertificateSubject = 10
}
export const CONTEXT_FIELDS = 10
export const CONTEXT_PRIVILEGE_NAME_FIELD = ContextField.PrivilegeNames

export function contextKey(field: number): number {
  return (field << 3) | 2
}

export const enum ResultKey {
  Id = (1 << 3) | 0,
  Body = (2 << 3) | 2,
  IsVoid = (3 << 3) | 0,
  Error = (4 << 3) | 2
}

export const enum ErrorKey {
  Code = (1 << 3) | 2,
  Detail = (2 << 3) | 2,
  Status = (3 << 3) | 0
}
