/** What `microservice bench` measured: the JSON it writes (`--json`, `--save`) and reads (`--baseline`). */
export const RESULT_FORMAT = 'invocation-gateway/bench-result@1'

/** The calls a run made: answered, cut off, timed out, or due and never sent. */
export function callsOf(r: RunResult): number {
  return r.requests + r.errors.unsent + r.errors.transport + r.errors.timeouts
}

/** "1 connection", "8 connections". */
export function connectionsText(n: number): string {
  return n === 1 ? '1 connection' : `${n} connections`
}

export interface BenchResult {
  format: typeof RESULT_FORMAT
  tool: { name: 'microservice bench'; version: string }
  startedAt: string
  target: {
    url: string
    route: string
    method: 'POST'
    contentType: string
    headers: Record<string, string>
    bodyBytes: number
    /** Where the body came from: 'argument', 'file', or 'example' (the method's API description). */
    bodySource: 'argument' | 'file' | 'example'
  }
  settings: {
    durationMs: number | null
    requests: number | null
    warmupMs: number
    rate: number | null
    rounds: number
    timeoutMs: number
    checkAnswers: boolean
    /** Error answers reported without failing the run. */
    allowErrors: boolean
    reference: boolean
  }
  runs: RunResult[]
  comparison: Comparison | null
  /** What makes this run fail, in words (errors, differing answers, a regression); empty when it passed. */
  problems: string[]
  warnings: string[]
  ok: boolean
}

export interface RunResult {
  connections: number
  durationMs: number
  requests: number
  rps: number
  latencyMs: { mean: number; p50: number; p90: number; p99: number; p999: number; max: number }
  errors: {
    total: number
    byStatus: Record<string, number>
    byCode: Record<string, number>
    mismatched: number
    mismatchSample: string | null
    transport: number
    timeouts: number
    unsent: number
  }
  bytes: { sent: number; received: number }
  /** The load generator's CPU over wall time (1 = a whole core). */
  generatorCpu: number
  /** The platform's CPU time per call (the gateway's and the microservice's main threads), when it runs here. */
  cpuUsPerCall: number | null
  /** The latency distribution: [upper bound in ms, answers in the bucket]. */
  histogram: Array<[number, number]>
  reference: {
    rps: number
    /** Median over the rounds of the target's req/s over the reference's in the same round. */
    ratio: number
    /** Median over the rounds of the platform's CPU per call over the reference server's (local only). */
    cpuRatio: number | null
    rounds: ReferenceRound[]
  } | null
}

export interface ReferenceRound {
  rps: number
  referenceRps: number
  ratio: number
  cpuUsPerCall: number | null
  referenceCpuUsPerCall: number | null
  cpuRatio: number | null
}

export interface Comparison {
  baseline: string
  tolerancePercent: number
  runs: Array<{
    connections: number
    /** What is compared: CPU per call against the reference's (the platform runs here), else req/s against its. */
    measure: 'cpu' | 'throughput'
    baselineRatio: number
    ratio: number
    /** The change in speed, in percent (negative: slower): req/s ratio now / then − 1; CPU ratio then / now − 1. */
    changePercent: number
    regressed: boolean
  }>
  regressed: boolean
}

const num = { type: 'number', minimum: 0 }
const count = { type: 'integer', minimum: 0 }
const counts = { type: 'object', additionalProperties: count }

/** The JSON Schema (2020-12) of BenchResult, for consumers and for `--baseline` to check what it reads. */
export const RESULT_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://invocation-gateway.dev/schemas/bench-result-1.json',
  title: 'microservice bench result',
  type: 'object',
  required: ['format', 'tool', 'startedAt', 'target', 'settings', 'runs', 'comparison', 'problems', 'warnings', 'ok'],
  additionalProperties: false,
  properties: {
    format: { const: RESULT_FORMAT },
    tool: {
      type: 'object',
      required: ['name', 'version'],
      additionalProperties: false,
      properties: { name: { const: 'microservice bench' }, version: { type: 'string' } }
    },
    startedAt: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?Z$' },
    target: {
      type: 'object',
      required: ['url', 'route', 'method', 'contentType', 'headers', 'bodyBytes', 'bodySource'],
      additionalProperties: false,
      properties: {
        url: { type: 'string' },
        route: { type: 'string' },
        method: { const: 'POST' },
        contentType: { type: 'string' },
        headers: { type: 'object', additionalProperties: { type: 'string' } },
        bodyBytes: count,
        bodySource: { enum: ['argument', 'file', 'example'] }
      }
    },
    settings: {
      type: 'object',
      required: [
        'durationMs',
        'requests',
        'warmupMs',
        'rate',
        'rounds',
        'timeoutMs',
        'checkAnswers',
        'allowErrors',
        'reference'
      ],
      additionalProperties: false,
      properties: {
        durationMs: { type: ['number', 'null'], minimum: 0 },
        requests: { type: ['integer', 'null'], minimum: 1 },
        warmupMs: num,
        rate: { type: ['number', 'null'], exclusiveMinimum: 0 },
        rounds: { type: 'integer', minimum: 1 },
        timeoutMs: num,
        checkAnswers: { type: 'boolean' },
        allowErrors: { type: 'boolean' },
        reference: { type: 'boolean' }
      }
    },
    runs: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: [
          'connections',
          'durationMs',
          'requests',
          'rps',
          'latencyMs',
          'errors',
          'bytes',
          'generatorCpu',
          'cpuUsPerCall',
          'histogram',
          'reference'
        ],
        additionalProperties: false,
        properties: {
          connections: { type: 'integer', minimum: 1 },
          durationMs: num,
          requests: count,
          rps: num,
          latencyMs: {
            type: 'object',
            required: ['mean', 'p50', 'p90', 'p99', 'p999', 'max'],
            additionalProperties: false,
            properties: { mean: num, p50: num, p90: num, p99: num, p999: num, max: num }
          },
          errors: {
            type: 'object',
            required: [
              'total',
              'byStatus',
              'byCode',
              'mismatched',
              'mismatchSample',
              'transport',
              'timeouts',
              'unsent'
            ],
            additionalProperties: false,
            properties: {
              total: count,
              byStatus: counts,
              byCode: counts,
              mismatched: count,
              mismatchSample: { type: ['string', 'null'] },
              transport: count,
              timeouts: count,
              unsent: count
            }
          },
          bytes: {
            type: 'object',
            required: ['sent', 'received'],
            additionalProperties: false,
            properties: { sent: count, received: count }
          },
          generatorCpu: num,
          cpuUsPerCall: { type: ['number', 'null'], minimum: 0 },
          histogram: { type: 'array', items: { type: 'array', prefixItems: [num, count], minItems: 2, maxItems: 2 } },
          reference: {
            oneOf: [
              { type: 'null' },
              {
                type: 'object',
                required: ['rps', 'ratio', 'cpuRatio', 'rounds'],
                additionalProperties: false,
                properties: {
                  rps: num,
                  ratio: num,
                  cpuRatio: { type: ['number', 'null'], minimum: 0 },
                  rounds: {
                    type: 'array',
                    items: {
                      type: 'object',
                      required: ['rps', 'referenceRps', 'ratio', 'cpuUsPerCall', 'referenceCpuUsPerCall', 'cpuRatio'],
                      additionalProperties: false,
                      properties: {
                        rps: num,
                        referenceRps: num,
                        ratio: num,
                        cpuUsPerCall: { type: ['number', 'null'], minimum: 0 },
                        referenceCpuUsPerCall: { type: ['number', 'null'], minimum: 0 },
                        cpuRatio: { type: ['number', 'null'], minimum: 0 }
                      }
                    }
                  }
                }
              }
            ]
          }
        }
      }
    },
    comparison: {
      oneOf: [
        { type: 'null' },
        {
          type: 'object',
          required: ['baseline', 'tolerancePercent', 'runs', 'regressed'],
          additionalProperties: false,
          properties: {
            baseline: { type: 'string' },
            tolerancePercent: num,
            regressed: { type: 'boolean' },
            runs: {
              type: 'array',
              items: {
                type: 'object',
                required: ['connections', 'measure', 'baselineRatio', 'ratio', 'changePercent', 'regressed'],
                additionalProperties: false,
                properties: {
                  connections: { type: 'integer', minimum: 1 },
                  measure: { enum: ['cpu', 'throughput'] },
                  baselineRatio: num,
                  ratio: num,
                  changePercent: { type: 'number' },
                  regressed: { type: 'boolean' }
                }
              }
            }
          }
        }
      ]
    },
    problems: { type: 'array', items: { type: 'string' } },
    warnings: { type: 'array', items: { type: 'string' } },
    ok: { type: 'boolean' }
  }
} as const
