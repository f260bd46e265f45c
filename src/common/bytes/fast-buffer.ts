/**
 * Buffer's encoders and decoders without toString's and write()'s argument handling: Node has
 * them on every Buffer (they are what those methods call), its typings do not. For the hot paths
 * that decode or write many short strings (the beta JSON reader, the Invoke frame writer).
 */
export interface FastBuffer extends Buffer {
  latin1Slice(start: number, end: number): string
  utf8Slice(start: number, end: number): string
  latin1Write(s: string, offset: number, length: number): number
}
