import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { readMicroserviceConfig } from '../../microservice/host/package-config'
import { DEFAULT_KUBE_OPTIONS } from '../manifests/kubernetes'
import { unpackZip } from '../../platform/package/zip'
import { CliError } from '../cli-error'
import type { CommandLine } from '../command-line'

/**
 * `microservice image ZIP`: the package, checked and unpacked as an upload is, copied into an image
 * built on the platform's, whose entry point is `microservice host` for it (the Deployment's pods).
 */
export async function imageCommand(line: CommandLine): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...line.args],
    allowPositionals: true,
    options: { base: { type: 'string', default: DEFAULT_KUBE_OPTIONS.image }, tag: { type: 'string' } }
  })
  const zip = positionals[0]
  if (zip === undefined || positionals.length > 1)
    throw new CliError('usage: microservice image <zip_file> [--base IMAGE] [--tag NAME]')
  const context = mkdtempSync(join(tmpdir(), 'microservice-image-'))
  try {
    const top = await unpackZip(resolve(zip), join(context, 'package'))
    const config = readMicroserviceConfig(join(context, 'package', top))
    if (config.name !== top)
      throw new CliError(
        `the package's directory is '${top}' but microservice.json names '${config.name}'`,
        'IGW_PACKAGE'
      )
    const tag = values.tag ?? `localhost/${config.name}:${config.version}`
    const dir = `/app/microservices/${config.name}`
    writeFileSync(
      join(context, 'Containerfile'),
      [
        `FROM ${values.base}`,
        `COPY package/${config.name} ${dir}`,
        `LABEL org.opencontainers.image.title="${config.name}" org.opencontainers.image.version="${config.version}" invocation-gateway.microservice="${config.name}"`,
        'EXPOSE 7000',
        // The platform's check asks an admin port a pod does not have; this one asks whether the
        // internal port takes connections (a pod's probes in the manifests do the same).
        `HEALTHCHECK --interval=10s --timeout=3s --start-period=30s CMD ["node", "-e", "require('net').connect(7000, '127.0.0.1').on('connect', () => process.exit(0)).on('error', () => process.exit(1))"]`,
        `ENTRYPOINT ["node", "/app/bin/microservice", "host", "${dir}"]`,
        'CMD ["--listen", "tcp:0.0.0.0:7000", "--secret-env", "MICROSERVICE_SECRET"]',
        ''
      ].join('\n')
    )
    const wrapper = join(__dirname, '..', '..', '..', '..', 'scripts', 'image', 'podman.sh')
    const [bin, pre] = existsSync(wrapper) ? ['bash', [wrapper]] : ['podman', []]
    // The docker format: OCI image configs have no HEALTHCHECK, and podman drops it from them.
    execFileSync(bin, [...pre, 'build', '--format', 'docker', '--network', 'host', '-t', tag, context], {
      stdio: ['ignore', 'inherit', 'inherit']
    })
    console.log(`built ${tag}: ${config.name} ${config.version} in ${dir} on ${values.base}`)
    return 0
  } finally {
    rmSync(context, { recursive: true, force: true })
  }
}
