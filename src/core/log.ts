import pino, { type DestinationStream, type Logger } from 'pino'

export type { Logger }
/** A platform event: a message and, for machines, its fields (event, microservice, instance, ...). */
export type EventLog = (msg: string, fields?: Record<string, unknown>) => void

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const
export type LogLevel = (typeof LOG_LEVELS)[number]

/**
 * JSON lines (pino): time (ISO 8601), level as a word, pid, component, message and the event's
 * fields. Events are rare and go out at once; the access log has its own writer (line-writer.ts).
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
