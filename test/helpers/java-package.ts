// Java packages made inside a test: sources given as text, compiled with the JDK's javac and jar
// against the Java host's class path (dist/java/classpath, which scripts/ensure-java-host.sh writes),
// into a package directory named after the microservice. For a package whose classes and contexts
// the test itself states; helpers/java-build.ts builds the example and fixtures from their folders.
import { execFileSync } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { tmpdir } from 'node:os'
import { ROOT } from './root'

/**
 * The Java host's class path: scripts/ensure-java-host.sh builds the host when its sources changed (and
 * installs the JDK and jars when missing), then prints it.
 */
export function hostClassPath(): string {
  return execFileSync('bash', [join(ROOT, 'scripts', 'ensure-java-host.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    timeout: 600_000
  }).trim()
}

export interface JavaPackageSource {
  /** Java sources by path under src/ ('calc/Calculator.java' → its text). */
  sources: Record<string, string>
  /** Files put into the jar beside the classes ('META-INF/calc.xml' → its text). */
  resources?: Record<string, string>
  /** microservice.json's keys beyond name, version, runtime and jar (applicationContext at least). */
  config: Record<string, unknown>
}

/** The classes and resources of `source`, compiled into a jar at `jar`. */
export function compileJar(source: JavaPackageSource, jar: string): void {
  const classPath = hostClassPath()
  const work = mkdtempSync(join(tmpdir(), 'java-package-src-'))
  const files = Object.entries(source.sources).map(([path, text]) => {
    const file = join(work, 'src', path)
    mkdirSync(dirname(file), { recursive: true })
    writeFileSync(file, text)
    return file
  })
  const classes = join(work, 'classes')
  mkdirSync(classes)
  execFileSync(
    'javac',
    ['-nowarn', '-encoding', 'UTF-8', '--release', '17', '-d', classes, '-cp', classPath, ...files],
    {
      stdio: ['ignore', 'ignore', 'inherit'],
      timeout: 120_000
    }
  )
  for (const [path, text] of Object.entries(source.resources ?? {})) {
    const file = join(classes, path)
    mkdirSync(dirname(file), { recursive: true })
    writeFileSync(file, text)
  }
  mkdirSync(dirname(jar), { recursive: true })
  execFileSync('jar', ['--create', '--file', jar, '-C', classes, '.'], { stdio: ['ignore', 'ignore', 'inherit'] })
}

/**
 * A package directory named `name`: `name`.jar compiled from `source`, and its microservice.json
 * (version 1.0.0 unless the config says another).
 */
export function javaPackage(name: string, source: JavaPackageSource): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'java-package-')), name)
  const jar = `${name}.jar`
  compileJar(source, join(dir, jar))
  writeConfig(dir, { name, version: '1.0.0', runtime: 'java', jar, ...source.config })
  return dir
}

/** A copy of the package in `from` whose microservice.json `edit` changes (in a new directory of its name). */
export function javaPackageVariant(from: string, edit: (config: Record<string, unknown>) => void): string {
  const config = JSON.parse(JSON.stringify(readConfig(from))) as Record<string, unknown>
  edit(config)
  const dir = join(mkdtempSync(join(tmpdir(), 'java-package-')), String(config.name))
  cpSync(from, dir, { recursive: true })
  writeConfig(dir, config)
  return dir
}

/** A Spring XML context of these beans (id → class), with the services matching `enabled` remotely enabled. */
export function springContext(beans: Record<string, string>, enabled: string[] = ['.*']): string {
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<beans xmlns="http://www.springframework.org/schema/beans"',
    '       xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"',
    '       xmlns:util="http://www.springframework.org/schema/util"',
    '       xsi:schemaLocation="http://www.springframework.org/schema/beans http://www.springframework.org/schema/beans/spring-beans.xsd',
    '                           http://www.springframework.org/schema/util http://www.springframework.org/schema/util/spring-util.xsd">',
    ...Object.entries(beans).map(([id, cls]) => `  <bean id="${id}" class="${cls}"/>`),
    '  <util:list id="platformRegularExpressionToRemotelyEnabled" value-type="java.lang.String">',
    ...enabled.map((e) => `    <value>${e}</value>`),
    '  </util:list>',
    '</beans>',
    ''
  ].join('\n')
}

function readConfig(dir: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(dir, 'microservice.json'), 'utf8')) as Record<string, unknown>
}

function writeConfig(dir: string, config: Record<string, unknown>): void {
  writeFileSync(join(dir, 'microservice.json'), JSON.stringify(config, null, 2))
}
