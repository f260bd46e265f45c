/** The most of a client's input a problem body repeats: a 100 kB URL must not make a 100 kB answer. */
export const ECHO_LIMIT = 200

/** `s`, cut to ECHO_LIMIT characters with an ellipsis when longer. */
export function bounded(s: string): string {
  return s.length > ECHO_LIMIT ? `${s.slice(0, ECHO_LIMIT)}…` : s
}
