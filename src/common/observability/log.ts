import pino, { type DestinationStream, type Logger } from 'pino'
import { stdoutLines } from './line-writer'

export type { Logger }
/** A platform event: a message and, for machines, its fields (event, microservice, instance, ...). */
export type EventLog = (msg: string, fields?: Record<string, unknown>) => void

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const
export type LogLevel = (typeof LOG_LEVELS)[number]

/**
 * The platform's one log line format, for pino's events and the access log alike: a JSON object
 * that starts `{"level":"<word>","time":"<ISO 8601>","pid":<pid>,"component":"<name>"`, then the
 * line's fields, and ends with `"msg"`. pino writes the events; the access log writes the same
 * shape itself (gateway/invoke/call-telemetry.ts), starting each line with lineStart().
 */
export function lineStart(level: string, isoTime: string, component: string): string {
  return `{"level":"${level}","time":"${isoTime}","pid":${process.pid},"component":${JSON.stringify(component)}`
}

/**
 * Events as JSON lines (pino) in the format above; a logger's `component` is its child binding.
 * Events are rare and go out at once, through the process's one stdout writer, which the access log
 * shares (line-writer.ts).
 */
export function createLogger(level: LogLevel, destination: DestinationStream = stdoutEvents()): Logger {
  return pino(
    {
      level,
      // pid only: no hostname (a container's is its id; the orchestrator labels the stream).
      base: { pid: process.pid },
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
