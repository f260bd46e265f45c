/**
 * The Java host's JVM writes java.util.logging records (Spring's among them) to stderr, one line each
 * as `LEVEL: message` (JUL_ONE_LINE, set on the instance's JVM). The platform logs a line at its
 * record's level rather than at `warn` for all of stderr, so warn-level alerting does not fire on
 * Spring's INFO lines at every start and stop.
 */
export const JUL_ONE_LINE = '-Djava.util.logging.SimpleFormatter.format=%4$s: %5$s%6$s%n'

export type LineLevel = 'error' | 'warn' | 'info' | 'debug'

/** JUL's level names (java.util.logging.Level) → the platform's. */
const LEVELS: Readonly<Record<string, LineLevel>> = {
  SEVERE: 'error',
  WARNING: 'warn',
  INFO: 'info',
  CONFIG: 'debug',
  FINE: 'debug',
  FINER: 'debug',
  FINEST: 'debug'
}

const RECORD = /^(SEVERE|WARNING|INFO|CONFIG|FINE|FINER|FINEST): /

/** The level of an instance's stderr line: its JUL record's, else `warn` (what a Node instance's stderr is). */
export function stderrLineLevel(line: string): LineLevel {
  const m = RECORD.exec(line)
  return m === null ? 'warn' : LEVELS[m[1]!]!
}
