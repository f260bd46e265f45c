// The descriptor factories as a plain-JS author meets them: a wrong call is refused where it is
// written, naming the call as given, the factory's signature and the file:line:column of the call,
// and `microservice pack` passes that on unchanged; docs/descriptors.md lists every signature.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { t } from '../../../../src/microservice/descriptors/descriptors'
import { ROOT } from '../../../helpers/root'

/** What an author is told and what the docs list: written out here, so a change to either is a decision. */
const SIGNATURES = {
  object: {
    signature:
      't.object(className: string, shape: { [field: string]: Descriptor | FieldSpec }, options?: { alias?: string, extends?: ObjectDescriptor })',
    example: "t.object('com.example.In', { a: t.Integer, b: t.Integer })"
  },
  field: {
    signature:
      't.field(type: Descriptor, options: { attribute?: boolean, alias?: string, omit?: boolean, implicit?: string })',
    example: "t.field(t.String, { alias: 'label' })"
  },
  list: {
    signature:
      "t.list(item: Descriptor, className?: 'java.util.List' | 'java.util.ArrayList' | 'java.util.LinkedList' | 'java.util.Arrays$ArrayList' | 'java.util.ImmutableCollections$ListN')",
    example: 't.list(t.String)'
  },
  array: { signature: 't.array(item: Descriptor)', example: 't.array(t.Integer)' },
  map: {
    signature:
      "t.map(value: Descriptor, className?: 'java.util.Map' | 'java.util.HashMap' | 'java.util.LinkedHashMap')",
    example: 't.map(t.Integer)'
  },
  Object: { signature: 't.Object(allowed?: Descriptor[])', example: 't.Object()' },
  typed: {
    signature: 't.typed(type: Descriptor, value: unknown)',
    example: "t.typed(t.list(t.Integer, 'java.util.LinkedList'), [1, 2])"
  }
}

type Factory = keyof typeof SIGNATURES
/** `t` without its TypeScript types, as JavaScript calls it. */
const js = t as unknown as Record<Factory, (...args: unknown[]) => unknown>

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
const OWN_LINES = readFileSync(__filename, 'utf8').split('\n')

function refusal(call: () => unknown): TypeError {
  try {
    call()
  } catch (err) {
    assert.ok(err instanceof TypeError, String(err))
    return err
  }
  assert.fail('the call was not refused')
}

/**
 * The message ends with this file's place of the call, and the source there is the factory's call
 * itself, not a frame of the SDK or of node:test.
 */
function assertPlacedHere(message: string, factory: Factory): void {
  const at = new RegExp(`\\(at ${escape(__filename)}:(\\d+):(\\d+)\\)$`).exec(message)
  assert.ok(at !== null, `no place in this file at the end of: ${message}`)
  const source = OWN_LINES[Number(at[1]) - 1] ?? ''
  assert.ok(source.slice(Number(at[2]) - 1).startsWith(`${factory}(`), `${at[1]}:${at[2]} is not the call: ${source}`)
}

function assertRefused(factory: Factory, call: () => unknown, given: string, problem: RegExp): void {
  const { message } = refusal(call)
  const { signature, example } = SIGNATURES[factory]
  assert.ok(
    message.startsWith(`${given}: expected ${signature}, e.g. ${example}; `),
    `not the call and signature: ${message}`
  )
  assert.match(message, problem)
  assertPlacedHere(message, factory)
}

test('t.map(t.String, t.Integer): refused with the signature of t.map and the place of the call', () => {
  assertRefused(
    'map',
    () => js.map(t.String, t.Integer),
    't.map(t.String, t.Integer)',
    /; className is t\.Integer: a map's keys are always String, so give only its value type \(at /
  )
  assertRefused('map', () => js.map(), 't.map()', /; value is missing/)
  assertRefused(
    'map',
    () => js.map(t.Integer, 'java.util.TreeMap'),
    "t.map(t.Integer, 'java.util.TreeMap')",
    /not one of those classes/
  )
})

test('t.list and t.array: a number, an uncalled factory, a missing item, a class not listed, an argument too many', () => {
  assertRefused('list', () => js.list(5), 't.list(5)', /; item is 5, not a descriptor such as t\.String/)
  assertRefused(
    'list',
    () => js.list(t.Object),
    't.list(t.Object)',
    /; item is t\.Object, a factory: call it, e\.g\. t\.Object\(\)/
  )
  assertRefused(
    'list',
    () => js.list(t.String, 'java.util.Vector'),
    "t.list(t.String, 'java.util.Vector')",
    /not one of those classes/
  )
  assertRefused('array', () => js.array(), 't.array()', /; item is missing/)
  assertRefused(
    'array',
    () => js.array(t.Integer, t.Integer),
    't.array(t.Integer, t.Integer)',
    /; it takes one argument/
  )
  assertRefused(
    'array',
    () => js.array(t.void),
    't.array(t.void)',
    /; item is t\.void, which only a method's returns can be/
  )
})

test('t.object: a class name that is not a string, a field used before it was defined, an unknown option', () => {
  assertRefused(
    'object',
    () => js.object(t.Integer, {}),
    't.object(t.Integer, {})',
    /; className is t\.Integer, not a Java class name/
  )
  assertRefused(
    'object',
    () => js.object('com.example.In', { a: t.Integer, b: undefined }),
    "t.object('com.example.In', { a, b })",
    /; field b is missing, or undefined where a descriptor was meant \(used before it was defined\?\)/
  )
  assertRefused(
    'object',
    () => js.object('com.example.In'),
    "t.object('com.example.In')",
    /; shape is undefined, not an object of fields/
  )
  assertRefused(
    'object',
    () => js.object('com.example.In', { a: t.Integer }, { extend: t.object('com.example.Base', {}) }),
    "t.object('com.example.In', { a }, { extend })",
    /; options\.extend is not an option; the options are alias, extends/
  )
  // A mistake in a field's options is the object's, and placed the same way.
  const { message } = refusal(() => js.object('com.example.In', { a: t.field(t.list(t.Integer), { attribute: true }) }))
  assert.match(message, /^com\.example\.In\.a: only scalar fields can be attributes \(at /)
  assertPlacedHere(message, 'object')
})

test('t.field, t.Object and t.typed: missing options, a descriptor where an array of them goes, a number for a type', () => {
  assertRefused('field', () => js.field(t.Integer), 't.field(t.Integer)', /; options is missing: give \{\} for none/)
  assertRefused(
    'field',
    () => js.field(t.Integer, { attribute: 'yes' }),
    't.field(t.Integer, { attribute })',
    /options\.attribute is 'yes', not true or false/
  )
  assertRefused(
    'Object',
    () => js.Object(t.String),
    't.Object(t.String)',
    /; allowed is one descriptor, not an array of them: t\.Object\(\[t\.String\]\)/
  )
  assertRefused(
    'Object',
    () => js.Object([t.String, 3]),
    't.Object([t.String, 3])',
    /; allowed\[1\] is 3, not a descriptor/
  )
  assertRefused('typed', () => js.typed(42, 1), 't.typed(42, 1)', /; type is 42, not a descriptor/)
})

test('the place survives Error.stackTraceLimit = 0 set by an author', () => {
  const limit = Error.stackTraceLimit
  Error.stackTraceLimit = 0
  try {
    assertPlacedHere(refusal(() => js.array(7)).message, 'array')
  } finally {
    Error.stackTraceLimit = limit
  }
})

test('docs/descriptors.md gives every factory of t its signature, as the refusals state it', () => {
  const factories = Object.keys(t).filter((k) => typeof (t as Record<string, unknown>)[k] === 'function')
  assert.deepEqual(factories.sort(), Object.keys(SIGNATURES).sort())
  const doc = readFileSync(join(ROOT, 'docs', 'descriptors.md'), 'utf8')
  for (const { signature } of Object.values(SIGNATURES)) assert.ok(doc.includes(`\`${signature}\``), signature)
})

test('microservice pack: a wrong descriptor is refused with the file:line:column of the call and the signature', async () => {
  const dir = join(realpathSync(mkdtempSync(join(tmpdir(), 'descriptor-'))), 'counter')
  mkdirSync(dir)
  writeFileSync(
    join(dir, 'microservice.json'),
    JSON.stringify({ name: 'counter', version: '1.0.0', entry: 'index.js' })
  )
  const code = [
    "const { t, method, service, defineMicroservice } = require('invocation-gateway/runtime')",
    '',
    'const Counts = t.map(t.String, t.Integer)',
    'module.exports = defineMicroservice({',
    "  services: [service('counter', [method('total', { params: [Counts], returns: t.Integer, handler: () => 0, operation: { summary: 'sum' } })])],",
    "  platformRegularExpressionToRemotelyEnabled: ['counter']",
    '})',
    ''
  ]
  writeFileSync(join(dir, 'index.js'), code.join('\n'))
  const place = `3:${code[2]!.indexOf('map(') + 1}`
  const cli = join(ROOT, 'bin', 'microservice')
  const run = promisify(execFile)(process.execPath, [cli, 'pack', dir, join(dir, '..', 'counter.zip')])
  const failed = (await run.then(
    () => assert.fail('packed'),
    (err: unknown) => err
  )) as { code: number; stderr: string }
  assert.notEqual(failed.code, 0)
  assert.equal(
    failed.stderr.trim(),
    `microservice: cannot load the microservice to describe its API: index.js:${place}: TypeError: ` +
      `t.map(t.String, t.Integer): expected ${SIGNATURES.map.signature}, e.g. ${SIGNATURES.map.example}; ` +
      "className is t.Integer: a map's keys are always String, so give only its value type"
  )
})
