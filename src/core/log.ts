import pino, { type DestinationStream, type Logger } from 'pino'

export type { Logger }
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent'

/**
 * JSON lines (pino): time (ISO 8601), level as a word, pid, component, message and the event's
 * fields. Events go out at once; the access log, one line per request, through `buffered`.
 */
export function createLogger(level: LogLevel, destination: DestinationStream = pino.destination(1)): Logger {
  return pino(
    {
      level,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) }
    },
    destination
  )
}

/**
 * A destination for high-volume lines: written in 16 KiB batches by sonic-boom without blocking the
 * event loop (and flushed when the process exits), so a request costs a string, not a write call.
 */
export function bufferedStdout(): DestinationStream {
  return pino.destination({ dest: 1, sync: false, minLength: 16 * 1024 })
}
