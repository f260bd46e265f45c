import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { parseArgs } from 'node:util'
import { DEFAULT_KUBE_OPTIONS, kubernetesManifests } from './kubernetes'
import { shippedPrometheusRules } from './prometheus-rules'
import { CliError } from '../cli-error'
import type { CommandLine } from '../command-line'

/** `microservice kube manifests`: writes (or prints) the kustomize files of the platform. */
export function kubeCommand(line: CommandLine): number {
  const { values, positionals } = parseArgs({
    args: [...line.args],
    allowPositionals: true,
    options: {
      out: { type: 'string' },
      namespace: { type: 'string', default: DEFAULT_KUBE_OPTIONS.namespace },
      image: { type: 'string', default: DEFAULT_KUBE_OPTIONS.image },
      microservice: { type: 'string', multiple: true },
      'tls-secret': { type: 'string' },
      'client-ca-secret': { type: 'string' },
      'internal-tls-secret': { type: 'string' },
      'runbook-base-url': { type: 'string' }
    }
  })
  if (positionals[0] !== 'manifests' || positionals.length > 1)
    throw new CliError(
      'usage: microservice kube manifests [--out DIR] [--namespace NS] [--image IMAGE] [--microservice NAME=IMAGE:DIR]... [--tls-secret NAME [--client-ca-secret NAME]] [--internal-tls-secret NAME] [--runbook-base-url URL]'
    )
  if (values['client-ca-secret'] !== undefined && values['tls-secret'] === undefined)
    throw new CliError('--client-ca-secret needs --tls-secret: client certificates are asked for over HTTPS only')
  const microservices =
    values.microservice === undefined
      ? DEFAULT_KUBE_OPTIONS.microservices.map((m) => ({ ...m, image: values.image }))
      : values.microservice.map((spec) => {
          const m = /^([A-Za-z0-9._-]+)=([^\s]+):(\/[^\s:]+)$/.exec(spec)
          if (m === null)
            throw new CliError(`--microservice ${spec}: expected NAME=IMAGE:DIR (DIR: the package inside the image)`)
          return { name: m[1]!, image: m[2]!, dir: m[3]!, replicas: 2 }
        })
  const files = kubernetesManifests({
    ...DEFAULT_KUBE_OPTIONS,
    namespace: values.namespace,
    image: values.image,
    microservices,
    tlsSecret: values['tls-secret'] ?? null,
    clientCaSecret: values['client-ca-secret'] ?? null,
    internalTlsSecret: values['internal-tls-secret'] ?? null,
    prometheusRules: shippedPrometheusRules(values['runbook-base-url'] ?? null)
  })
  if (values.out === undefined) {
    for (const [name, text] of files) process.stdout.write(`# ${name}\n${text}`)
    return 0
  }
  mkdirSync(values.out, { recursive: true })
  for (const [name, text] of files) {
    mkdirSync(dirname(join(values.out, name)), { recursive: true })
    writeFileSync(join(values.out, name), text)
  }
  console.log(`wrote ${files.size} files to ${values.out}; apply with kubectl apply -k ${values.out}`)
  return 0
}
