import pino, { type DestinationStream, type Logger } from 'pino'
import { stdoutLines } from './line-writer'

export type { Logger }
/** A platform event: a message and, for machines, its fields (event, microservice, instance, ...). */
export type EventLog = (msg: string, fields?: Record<string, unknown>) => void

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const
export type LogLevel = (typeof LOG_LEVELS)[number]

/**
 * JSON lines (pino): time (ISO 8601), level as a word, pid, component, message and the event's
 * fields. Events are rare and go out at once, through the process's one stdout writer, which the
 * access log shares (line-writer.ts).
 */
export function createLogger(level: LogLevel, destination: DestinationStream = stdoutEvents()): Logger {
  return pino(
    {
      level,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) }
    },
    destination
  )
}

/** Platform events on stdout: each written at once, in order with the access log's lines. */
function stdoutEvents(): DestinationStream & { flush(done?: () => void): void } {
  const out = stdoutLines()
  return {
    write: (line: string) => out.writeNow(line),
    // logger.flush(): what is buffered, written before returning.
    flush: (done) => {
      out.flushSync()
      done?.()
    }
  }
}
