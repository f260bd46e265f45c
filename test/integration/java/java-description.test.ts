// time limit: 300 s: builds the Java host and two Java packages, then runs a JVM per description
// The Java host's --describe (java/host/platform/host/Description.java) against the JavaScript host's
// (src/microservice/host/openapi.ts): a Java microservice's OpenAPI annotations and types give the
// document its JavaScript counterpart's operation notes and descriptors give, for each of the four
// sequences as the gateway's default. Two pairs: examples/java-example and examples/example, and a
// Java twin of test/fixtures/dockit (every descriptor kind, written here as Java classes) against
// describeMicroservice of dockit itself.
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ROOT } from '../../helpers/root'
import { builtPackage, hostClassPath } from '../../helpers/java/java-package'
import { EXAMPLE_DIR } from '../../helpers/platform'
import { openApiErrors } from '../../helpers/inputs/openapi'
import { checkJavaPackage } from '../../../src/microservice/host/java-host'
import { generateDescription } from '../../../src/platform/package/descriptions'
import { describeMicroservice } from '../../../src/microservice/host/openapi'
import { SEQUENCES, type SequenceName } from '../../../src/common/contract/vocabulary'
import dockit, { KINDS } from '../../fixtures/dockit'

const ALL = Object.keys(SEQUENCES) as SequenceName[]

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Doc = { [k: string]: any }

/** The host's class path (scripts/ensure-java-host.sh installs the JDK and jars when missing, compiles the host). */
let classPath = ''
const scratch = mkdtempSync(join(tmpdir(), 'java-description-'))

/** A Java package built from its source folder into the scratch directory, as a team's build would. */
function javaPackage(source: string, name: string): string {
  if (classPath === '') classPath = hostClassPath()
  return builtPackage(source, join(scratch, name))
}

/** The description the platform generates for the package in `dir` (generateDescription: the host it runs on). */
async function described(dir: string, sequence: SequenceName, apiId: 'ROA' | 'RMC' = 'ROA'): Promise<Doc> {
  return JSON.parse(await generateDescription(dir, { defaults: { sequence, apiId }, timeoutMs: 120_000 })) as Doc
}

/** The document as if the microservice were named `name`: the name is in the title, the server and the description. */
function renamed(doc: Doc, from: string, to: string): Doc {
  const out = structuredClone(doc)
  out.info.title = to
  out.info.description = String(out.info.description).replace(`'${from}'`, `'${to}'`)
  out.servers[0].url = String(out.servers[0].url).replace(`/${from}`, `/${to}`)
  return out
}

after(() => rmSync(scratch, { recursive: true, force: true }))

describe('the Java example described as the JavaScript example is', () => {
  let javaDir = ''
  const node = new Map<string, Doc>()
  const javaDocs = new Map<string, Doc>()
  before(async () => {
    javaDir = javaPackage(join(ROOT, 'examples', 'java-example'), 'java-example')
    for (const seq of ALL) {
      javaDocs.set(seq, await described(javaDir, seq))
      node.set(seq, await described(EXAMPLE_DIR, seq))
    }
  })

  for (const seq of ALL) {
    test(`${seq} as the default: a valid OpenAPI document; calculator.multiply and multiplyToInt equal`, async () => {
      const j = javaDocs.get(seq)!
      const n = node.get(seq)!
      assert.deepEqual(await openApiErrors(j), [])
      assert.deepEqual(j.info['x-platform-defaults'], { sequence: seq, apiId: 'ROA' })
      assert.equal(j.info.title, 'java-example')
      assert.equal(j.servers[0].url, '/_eapi/ELASTIC_HTTP/java-example')
      for (const path of ['/calculator/multiply', '/calculator/multiplyToInt']) {
        const [jo, no] = [j.paths[path].post, n.paths[path].post]
        assert.deepEqual(jo.parameters, no.parameters, `${path}: header parameters`)
        for (const media of ['application/json', 'application/xml']) {
          assert.deepEqual(jo.requestBody.content[media], no.requestBody.content[media], `${path}: ${media} request`)
          assert.deepEqual(
            jo.responses['200'].content[media],
            no.responses['200'].content[media],
            `${path}: ${media} response`
          )
        }
        assert.deepEqual(jo, no, `${path}: the whole operation (descriptions, problems)`)
      }
      // The schemas they refer to, and the rest of the document, but for the microservice's name.
      assert.deepEqual(j.components, n.components)
      assert.deepEqual(renamed(j, 'java-example', 'example'), n)
    })
  }

  test('RMC as the default API mode: X-PLATFORM-API-ID is required, as the JavaScript host has it', async () => {
    const j = await described(javaDir, 'alphaParamArrayJsonInOutSequence', 'RMC')
    const n = await described(EXAMPLE_DIR, 'alphaParamArrayJsonInOutSequence', 'RMC')
    assert.deepEqual(await openApiErrors(j), [])
    assert.equal(j.paths['/calculator/multiply'].post.parameters[0].required, true)
    assert.deepEqual(renamed(j, 'java-example', 'example'), n)
  })

  test('the not-enabled service and the RMC-only methods are absent, though the microservice has them', async () => {
    const j = javaDocs.get('betaParamArrayJsonInOutSequence')!
    assert.deepEqual(Object.keys(j.paths).sort(), ['/calculator/multiply', '/calculator/multiplyToInt'])
    assert.deepEqual(
      j.tags.map((t: { name: string }) => t.name),
      ['calculator']
    )
    // Not vacuous: the loaded microservice has them (--check lists every service and method).
    const check = (await checkJavaPackage(classPath, javaDir, 256, 120_000)) as {
      services: Array<{ name: string; remotelyEnabled: boolean; methods: string[] }>
    }
    const internal = check.services.find((s) => s.name === 'internal')
    assert.equal(internal?.remotelyEnabled, false)
    const calculator = check.services.find((s) => s.name === 'calculator')!
    for (const rmcOnly of ['multiplyInts', 'multiplyIntsToOut', 'sumProducts']) {
      assert.ok(calculator.methods.includes(rmcOnly), rmcOnly)
      assert.equal(j.paths[`/calculator/${rmcOnly}`], undefined, rmcOnly)
    }
    assert.equal(j.paths['/internal/secret'], undefined)
  })
})

/**
 * dockit's kinds as Java types: the parameter and result of each echo method (the same name in
 * KINDS). A kind dockit gains and this table lacks fails the test below.
 */
const JAVA_TYPES: Record<string, string> = {
  int: 'int',
  Integer: 'Integer',
  long: 'long',
  Long: 'Long',
  double: 'double',
  Double: 'Double',
  boolean: 'boolean',
  Boolean: 'Boolean',
  char: 'char',
  Character: 'Character',
  String: 'String',
  Date: 'java.util.Date',
  In: 'In',
  Out: 'Out',
  InPlus: 'InPlus',
  Outer: 'Outer',
  Bag: 'Bag',
  Prims: 'Prims',
  Snake: 'Snake',
  Inner: 'Container.Inner',
  Holder: 'Holder',
  Annotated: 'Annotated',
  'List<Integer>': 'List<Integer>',
  'LinkedList<String>': 'java.util.LinkedList<String>',
  'List<List<In>>': 'List<List<In>>',
  'Integer[]': 'Integer[]',
  'In[]': 'In[]',
  'Map<String,Integer>': 'java.util.LinkedHashMap<String, Integer>',
  'Map<String,In>': 'Map<String, In>'
}

/** The classes of test/conformance/types.ts that dockit uses, in Java; Annotated's options as XStream's annotations. */
const CLASSES: Record<string, string> = {
  In: 'public class In { public Integer a; public Integer b; }',
  Out: 'public class Out { public Integer result; }',
  InPlus: 'public class InPlus extends In { public Integer c; }',
  Outer: 'public class Outer { public In inner; public String name; }',
  Bag: 'import java.util.List;\npublic class Bag { public List<Integer> items; }',
  Prims: 'public class Prims { public int i; public long l; public double d; public boolean flag; public char c; }',
  Snake: 'public class Snake { public String first_name; }',
  Container: 'public class Container { public static class Inner { public Integer x; } }',
  Holder: 'import java.util.List;\npublic class Holder { public Object value; public List<Integer> items; }',
  Annotated: `import com.thoughtworks.xstream.annotations.*;
import java.util.List;
@XStreamAlias("ann")
public class Annotated {
  @XStreamAsAttribute public Integer id;
  @XStreamAlias("label") public String name;
  @XStreamOmitField public String secret;
  @XStreamImplicit(itemFieldName = "n") public List<Integer> nums;
}`
}

/** An example as annotations take it: the value's JSON text (a long's digits, a Date's epoch ms, a Map's object). */
function exampleText(v: unknown): string {
  if (typeof v === 'bigint') return v.toString()
  if (v instanceof Date) return String(v.getTime())
  if (v instanceof Map) return `{${[...v].map(([k, x]) => `${JSON.stringify(k)}:${exampleText(x)}`).join(',')}}`
  if (Array.isArray(v)) return `[${v.map(exampleText).join(',')}]`
  if (v !== null && typeof v === 'object')
    return `{${Object.entries(v)
      .map(([k, x]) => `${JSON.stringify(k)}:${exampleText(x)}`)
      .join(',')}}`
  return JSON.stringify(v)
}

const IMPORTS = `import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.util.List;
import java.util.Map;
import platform.api.Privileged;
`

/** Writes the Java dockit's sources: its classes, three services, the context and microservice.json. */
function writeJavaDockit(dir: string): void {
  const pkg = join(dir, 'src', 'com', 'example')
  mkdirSync(pkg, { recursive: true })
  mkdirSync(join(dir, 'resources', 'META-INF'), { recursive: true })
  for (const [name, body] of Object.entries(CLASSES))
    writeFileSync(join(pkg, `${name}.java`), `package com.example;\n${body}\n`)
  const methods = KINDS.map(([name, , example], k) => {
    const type = JAVA_TYPES[name]!
    const text = JSON.stringify(exampleText(example))
    // As dockit's documented(): the summary and the parameter's description name the method.
    return `  @Operation(summary = "echoes a m${k}")
  @ApiResponse(responseCode = "200", content = @Content(schema = @Schema(example = ${text})))
  public ${type} m${k}(@Parameter(description = "m${k}", example = ${text}) ${type} v) { return v; }`
  })
  const java = (name: string, head: string, body: string[]): void =>
    writeFileSync(
      join(pkg, `${name}.java`),
      `package com.example;\n${IMPORTS}${head}\npublic class ${name} {\n${body.join('\n')}\n}\n`
    )
  java('Kinds', '@Tag(name = "kinds", description = "every descriptor kind")\n@Tag(name = "t")', methods)
  java('Mixed', '', [
    '  @Operation(summary = "two parameters") public Integer rmcOnly(Integer a, Integer b) { return 1; }',
    '  public Integer undocumented(Integer a) { return 1; }',
    '  @Operation(summary = "void") public void nothing(Integer a) {}',
    '  @Operation(summary = "privileged") @Privileged public Out guarded(In in) { return new Out(); }',
    '  @Operation(summary = "Object slots") public Object anything(Object o) { return null; }'
  ])
  java('Hidden', '', ['  @Operation(summary = "not enabled") public String secret(String s) { return ""; }'])
  writeFileSync(
    join(dir, 'resources', 'META-INF', 'dockit.xml'),
    `<?xml version="1.0" encoding="UTF-8"?>
<beans xmlns="http://www.springframework.org/schema/beans" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
       xmlns:util="http://www.springframework.org/schema/util"
       xsi:schemaLocation="http://www.springframework.org/schema/beans http://www.springframework.org/schema/beans/spring-beans.xsd
                           http://www.springframework.org/schema/util http://www.springframework.org/schema/util/spring-util.xsd">
  <bean id="kinds" class="com.example.Kinds"/>
  <bean id="mixed" class="com.example.Mixed"/>
  <bean id="hidden" class="com.example.Hidden"/>
  <util:list id="platformRegularExpressionToRemotelyEnabled" value-type="java.lang.String">
    <value>kinds</value>
    <value>mixed</value>
  </util:list>
</beans>
`
  )
  writeFileSync(
    join(dir, 'microservice.json'),
    JSON.stringify({
      name: 'dockit',
      version: '2.0.0',
      runtime: 'java',
      jar: 'dockit.jar',
      applicationContext: 'META-INF/dockit.xml',
      aliases: dockit.aliases
    })
  )
}

/**
 * What the two sides say differently, and why: a JavaScript Object slot lists the classes it may
 * hold when read (t.Object([In, Out])); a Java Object has no such list, so its description does not
 * name them.
 */
function withoutAllowedClasses(doc: Doc): Doc {
  return JSON.parse(
    JSON.stringify(doc).replace(
      /java\.lang\.Object: also one of [\w.$, ]+?"/g,
      'java.lang.Object: a String, number, boolean, list or map"'
    )
  ) as Doc
}

describe('every kind dockit describes, from Java classes, as describeMicroservice describes dockit', () => {
  let javaDir = ''
  before(() => {
    const source = join(scratch, 'dockit-source')
    writeJavaDockit(source)
    javaDir = javaPackage(source, 'dockit')
  })

  test('the table has a Java type for every kind of dockit', () => {
    assert.deepEqual(
      KINDS.map(([name]) => name).filter((name) => JAVA_TYPES[name] === undefined),
      []
    )
  })

  for (const seq of ALL) {
    test(`${seq} as the default: valid, and equal to the JavaScript document but for Object's allowed classes`, async () => {
      const j = await described(javaDir, seq)
      assert.deepEqual(await openApiErrors(j), [])
      const aliases = new Map(Object.entries(dockit.aliases ?? {}))
      const n = withoutAllowedClasses(
        describeMicroservice({
          name: 'dockit',
          version: '2.0.0',
          definition: dockit,
          aliases,
          defaults: { sequence: seq, apiId: 'ROA' }
        })
      )
      for (const path of Object.keys(n.paths)) assert.deepEqual(j.paths[path], n.paths[path], path)
      assert.deepEqual(Object.keys(j.paths).sort(), Object.keys(n.paths).sort())
      assert.deepEqual(j.components, n.components)
      assert.deepEqual(j, n)
    })
  }
})
