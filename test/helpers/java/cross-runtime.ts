// The cross-runtime differential test's packages and comparisons (test/integration/contract/cross-runtime.test.ts):
// one universe of random types (test/differential/universe.ts) deployed twice, as a Java package (the
// universe's classes and an `echo` bean, built by scripts/build-java-package.sh) and as a JavaScript one
// (the same classes as descriptors, the same `echo` service), each method `T echoN(T v) { return v; }`.
// Neither registers aliases: the class and field annotations (@XStreamAlias, t.object's alias, ...)
// are the only names either side knows.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import type { Descriptor, ObjectDescriptor } from '../../../src/microservice/descriptors/descriptors'
import { javaTypeOf, type Universe } from '../../differential/universe'
import { builtPackage } from './java-package'

export const JAVA_NAME = 'cross-java'
export const JS_NAME = 'cross-js'
export const SERVICE = 'echo'

export interface CrossPackages {
  /** The built Java package (microservice.json, its jar). */
  readonly java: string
  /** The JavaScript package (microservice.json, index.js). */
  readonly js: string
  /** The Java sources and the JavaScript entry, for a failure's report. */
  readonly javaSources: Record<string, string>
  readonly jsSource: string
}

export const methodName = (root: number): string => `echo${root}`

/** The Java class of the echo bean: one method per root type, each returning its argument. */
export function echoJava(u: Universe): string {
  const methods = u.roots.map((d, k) => {
    const type = javaTypeOf(d)
    return `  public ${type} ${methodName(k)}(${type} v) {\n    return v;\n  }`
  })
  return `package ${u.pkg};\n\npublic class Echo {\n${methods.join('\n\n')}\n}\n`
}

function contextXml(u: Universe): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<!-- The cross-runtime test's context: the echo bean, remotely enabled; the default serializers. -->
<beans xmlns="http://www.springframework.org/schema/beans"
       xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
       xmlns:util="http://www.springframework.org/schema/util"
       xsi:schemaLocation="http://www.springframework.org/schema/beans http://www.springframework.org/schema/beans/spring-beans.xsd
                           http://www.springframework.org/schema/util http://www.springframework.org/schema/util/spring-util.xsd">
  <bean id="${SERVICE}" class="${u.pkg}.Echo"/>
  <util:list id="platformRegularExpressionToRemotelyEnabled" value-type="java.lang.String">
    <value>${SERVICE}</value>
  </util:list>
</beans>
`
}

/** A JavaScript expression for a descriptor; classes are looked up in the map `C`, defined before. */
function expr(d: Descriptor): string {
  switch (d.kind) {
    case 'scalar':
      return `t.${d.type}`
    case 'date':
      return 't.Date'
    case 'localDate':
      return 't.LocalDate'
    case 'object':
      return `C.get(${JSON.stringify(d.className)})`
    case 'list':
      return `t.list(${expr(d.item)}, ${JSON.stringify(d.className)})`
    case 'array':
      return `t.array(${expr(d.item)})`
    case 'map':
      return `t.map(${expr(d.value)}, ${JSON.stringify(d.className)})`
    case 'any':
      return `t.Object([${d.allowed.map(expr).join(', ')}])`
    default:
      throw new Error(`no descriptor expression for ${d.kind}`)
  }
}

function classJs(d: ObjectDescriptor, parent: ObjectDescriptor | undefined): string {
  const own = d.fields.slice(parent?.fields.length ?? 0)
  const shape = own.map((f) => {
    const options = {
      ...(f.attribute ? { attribute: true } : {}),
      ...(f.alias === undefined ? {} : { alias: f.alias }),
      ...(f.omit ? { omit: true } : {}),
      ...(f.implicit === undefined ? {} : { implicit: f.implicit })
    }
    const type = expr(f.type)
    const input = Object.keys(options).length === 0 ? type : `t.field(${type}, ${JSON.stringify(options)})`
    return `  ${JSON.stringify(f.name)}: ${input}`
  })
  const options = [
    ...(d.alias === undefined ? [] : [`alias: ${JSON.stringify(d.alias)}`]),
    ...(parent === undefined ? [] : [`extends: C.get(${JSON.stringify(parent.className)})`])
  ]
  return `C.set(${JSON.stringify(d.className)}, t.object(${JSON.stringify(d.className)}, {\n${shape.join(',\n')}\n}${
    options.length === 0 ? '' : `, { ${options.join(', ')} }`
  }))`
}

/**
 * The JavaScript package's entry: the universe's classes (in the order the universe made them, so a
 * class's field types, Object slots' classes and superclass come before it) and the echo service.
 */
export function echoJs(u: Universe): string {
  const classes = [...u.classes.values()].map((d) => classJs(d, u.parents.get(d.className)))
  const methods = u.roots.map(
    (d, k) =>
      `  method(${JSON.stringify(methodName(k))}, { params: [${expr(d)}], returns: ${expr(d)}, handler: (_ctx, v) => v })`
  )
  return [
    `'use strict'`,
    `// Made by test/helpers/java/cross-runtime.ts from universe ${u.pkg}: the Java package's echo bean, in JavaScript.`,
    `const { t, method, service, defineMicroservice } = require('invocation-gateway/runtime')`,
    `const C = new Map()`,
    ...classes,
    `module.exports = defineMicroservice({`,
    `  services: [service(${JSON.stringify(SERVICE)}, [\n${methods.join(',\n')}\n  ])],`,
    `  platformRegularExpressionToRemotelyEnabled: [${JSON.stringify(SERVICE)}]`,
    `})`,
    ''
  ].join('\n')
}

/** Writes both packages into a new temporary directory and builds the Java one. */
export function crossPackages(u: Universe): CrossPackages {
  const base = mkdtempSync(join(tmpdir(), 'cross-runtime-'))
  const source = join(base, 'java-source')
  const javaSources: Record<string, string> = { ...u.sources, [`${u.pkg}.Echo`]: echoJava(u) }
  for (const [unit, code] of Object.entries(javaSources)) {
    const file = join(source, 'src', ...unit.split('.')) + '.java'
    mkdirSync(dirname(file), { recursive: true })
    writeFileSync(file, code)
  }
  mkdirSync(join(source, 'resources', 'META-INF'), { recursive: true })
  writeFileSync(join(source, 'resources', 'META-INF', 'cross.xml'), contextXml(u))
  writeFileSync(
    join(source, 'microservice.json'),
    JSON.stringify({
      name: JAVA_NAME,
      version: '0.0.1',
      runtime: 'java',
      jar: `${JAVA_NAME}.jar`,
      applicationContext: 'META-INF/cross.xml'
    })
  )
  const java = builtPackage(source, join(base, JAVA_NAME))
  const js = join(base, JS_NAME)
  mkdirSync(js)
  const jsSource = echoJs(u)
  writeFileSync(join(js, 'microservice.json'), JSON.stringify({ name: JS_NAME, version: '0.0.1', entry: 'index.js' }))
  writeFileSync(join(js, 'index.js'), jsSource)
  return { java, js, javaSources, jsSource }
}

/** An HTTP answer as the comparison sees it. */
export interface HttpAnswer {
  readonly status: number
  readonly contentType: string
  /** The body's bytes. */
  readonly body: Buffer
  /** A problem's code and detail (application/problem+json). */
  readonly code?: string
  readonly detail?: string
}

export async function postBytes(
  url: string,
  path: string,
  body: Buffer,
  headers: Record<string, string>
): Promise<HttpAnswer> {
  const res = await fetch(url + path, { method: 'POST', body, headers })
  const bytes = Buffer.from(await res.arrayBuffer())
  const contentType = res.headers.get('content-type') ?? ''
  const text = bytes.toString('utf8')
  if (contentType.startsWith('application/problem+json')) {
    const p = JSON.parse(text) as { code?: string; detail?: string }
    return { status: res.status, contentType, body: bytes, code: p.code ?? '', detail: p.detail ?? '' }
  }
  // An XML request's problem is application/problem+xml (RFC 7807's XML form).
  if (contentType.startsWith('application/problem+xml')) {
    const member = (name: string): string => unescapeXml(new RegExp(`<${name}>([^<]*)</${name}>`).exec(text)?.[1] ?? '')
    return { status: res.status, contentType, body: bytes, code: member('code'), detail: member('detail') }
  }
  return { status: res.status, contentType, body: bytes }
}

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" }

function unescapeXml(s: string): string {
  return s.replace(/&(lt|gt|amp|quot|apos|#x[0-9a-fA-F]+|#[0-9]+);/g, (_, e: string) =>
    e[0] === '#'
      ? String.fromCodePoint(e[1] === 'x' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10))
      : ENTITIES[e]!
  )
}

/** Equal answers: the same status, content type and bytes; or both problems with the same status and code. */
export function sameAnswer(a: HttpAnswer, b: HttpAnswer): boolean {
  if (a.code !== undefined || b.code !== undefined) return a.code === b.code && a.status === b.status
  return a.status === b.status && a.contentType === b.contentType && a.body.equals(b.body)
}

/** An answer for a failure's report: the status and the body as text (or the problem's code and detail). */
export function showAnswer(a: HttpAnswer): Record<string, unknown> {
  return a.code !== undefined
    ? { status: a.status, code: a.code, detail: a.detail }
    : { status: a.status, contentType: a.contentType, body: a.body.toString('utf8') }
}

/** What a microservice's deserializer said, from its BAD_ARGUMENT detail: `argument 0 of m (T): <message>`. */
export function argumentMessage(detail: string): string {
  const m = /^argument \d+ of [^ ]+ \((?:[^()]|\([^()]*\))*\): ([^]*)$/.exec(detail)
  return m === null ? detail : m[1]!
}
