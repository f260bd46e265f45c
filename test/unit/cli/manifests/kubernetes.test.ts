// The Kubernetes manifests: the checked-in deploy/kubernetes is what `microservice kube manifests`
// writes; kustomize renders it (kubectl kustomize, offline); every rendered object validates against
// the Kubernetes API's schemas (kubernetes-models); and what ties the parts together holds: the
// gateway resolves each microservice's headless Service by its full name, probes use the admin
// port, the grace periods outlast the drains, and nothing runs as root.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { parseAllDocuments } from 'yaml'
import { DEFAULT_KUBE_OPTIONS, kubernetesManifests, type KubeOptions } from '../../../../src/cli/manifests/kubernetes'
import { checkPlaintext, listenSettings } from '../../../../src/platform/listeners/listen-check'
import { shippedPrometheusRules } from '../../../../src/cli/manifests/prometheus-rules'
import { DEFAULT_CONFIG_FILE, loadConfig } from '../../../../src/common/config/config'
import { ROOT } from '../../../helpers/root'

const DIR = join(ROOT, 'deploy', 'kubernetes')

type Obj = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any -- manifests are free-form JSON

function kubectl(): string {
  execFileSync('bash', [join(ROOT, 'scripts', 'ensure-debian.sh'), 'kubectl:kubernetes-client'], { stdio: 'inherit' })
  return 'kubectl'
}

function rendered(dir = DIR): Obj[] {
  const text = execFileSync(kubectl(), ['kustomize', dir], { encoding: 'utf8' })
  return parseAllDocuments(text).map((d) => d.toJSON() as Obj)
}

/**
 * The kubernetes-models class of an object, by apiVersion and kind; the Prometheus Operator's kinds
 * from @kubernetes-models/prometheus-operator, which holds their CRDs' schemas.
 */
async function model(o: Obj): Promise<new (data: unknown) => { validate(): void }> {
  const group = String(o.apiVersion).includes('/') ? String(o.apiVersion) : `v1`
  const from = group.startsWith('monitoring.coreos.com/')
    ? '@kubernetes-models/prometheus-operator'
    : 'kubernetes-models'
  const mod = (await import(`${from}/${group}/${String(o.kind)}`)) as Record<string, unknown>
  return mod[String(o.kind)] as new (data: unknown) => { validate(): void }
}

/** What `microservice kube manifests` writes with these options (it adds the shipped rules). */
const manifests = (o: Partial<KubeOptions> = {}): Map<string, string> =>
  kubernetesManifests({ ...DEFAULT_KUBE_OPTIONS, prometheusRules: shippedPrometheusRules(), ...o })

/** Every file under `dir`, by its path inside it. */
function filesUnder(dir: string, prefix = ''): string[] {
  return readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(dir, join(prefix, e.name)) : [join(prefix, e.name)]
  )
}

test('deploy/kubernetes is what the generator writes (regenerate: microservice kube manifests --out deploy/kubernetes)', () => {
  const files = manifests()
  assert.deepEqual(filesUnder(DIR).sort(), [...files.keys()].sort())
  for (const [name, text] of files) assert.equal(readFileSync(join(DIR, name), 'utf8'), text, name)
})

test('kustomize renders it, and every object validates against the Kubernetes schemas', async () => {
  const objects = rendered()
  assert.deepEqual(objects.map((o) => `${o.kind}/${o.metadata.name}`).sort(), [
    'Deployment/example',
    'Deployment/gateway',
    'HorizontalPodAutoscaler/gateway',
    'Ingress/gateway',
    'Namespace/invocation-gateway',
    'NetworkPolicy/gateway-from-ingress-and-monitoring',
    'NetworkPolicy/microservices-from-gateway',
    'PodDisruptionBudget/gateway',
    'Service/example-instances',
    'Service/gateway'
  ])
  for (const o of objects) {
    const Model = await model(o)
    assert.doesNotThrow(() => new Model(o).validate(), `${o.kind}/${o.metadata.name}`)
    if (o.kind !== 'Namespace') assert.equal(o.metadata.namespace, DEFAULT_KUBE_OPTIONS.namespace)
  }
  // The validator is not a stand-in: a port given as a word where a number belongs is refused.
  const broken = structuredClone(objects.find((o) => o.kind === 'Deployment')!)
  broken.spec.template.spec.containers[0].ports[0].containerPort = 'eighty'
  const Model = await model(broken)
  assert.throws(() => new Model(broken).validate(), /containerPort must be integer/)
})

test('the monitoring overlay renders the base with a PodMonitor and the shipped rules, each valid against its CRD', async () => {
  const objects = rendered(join(DIR, 'monitoring'))
  const kinds = objects.map((o) => `${o.kind}/${o.metadata.name}`)
  assert.ok(kinds.includes('Deployment/gateway') && kinds.includes('NetworkPolicy/microservices-from-gateway'))
  for (const o of objects) {
    const Model = await model(o)
    assert.doesNotThrow(() => new Model(o).validate(), `${o.kind}/${o.metadata.name}`)
    if (o.kind !== 'Namespace') assert.equal(o.metadata.namespace, DEFAULT_KUBE_OPTIONS.namespace)
  }
  const find = (kind: string, name = 'gateway'): Obj =>
    objects.find((o) => o.kind === kind && o.metadata.name === name)!
  const monitor = find('PodMonitor')
  const gateway = find('Deployment').spec.template
  assert.deepEqual(monitor.spec.selector.matchLabels, gateway.metadata.labels)
  const port = monitor.spec.podMetricsEndpoints[0]
  assert.ok(gateway.spec.containers[0].ports.some((p: Obj) => p.name === port.port && p.containerPort === 9090))
  assert.equal(port.path, '/metrics')
  const rules = parseAllDocuments(shippedPrometheusRules())[0]!.toJSON() as Obj
  assert.deepEqual(find('PrometheusRule').spec.groups, rules.groups)
  // The CRD's schema is not a stand-in: an interval given as a number where a duration belongs is refused.
  const broken = structuredClone(monitor)
  broken.spec.podMetricsEndpoints[0].interval = 15
  const Model = await model(broken)
  assert.throws(() => new Model(broken).validate(), /interval must be string/)
})

test('the autoscaler owns the gateway count; the policies let only the gateway reach the microservices, and only the ingress and monitoring namespaces the gateway', () => {
  const objects = rendered()
  const find = (kind: string, name: string): Obj => objects.find((o) => o.kind === kind && o.metadata.name === name)!
  const deployment = find('Deployment', 'gateway')
  const hpa = find('HorizontalPodAutoscaler', 'gateway').spec
  assert.deepEqual(hpa.scaleTargetRef, { apiVersion: 'apps/v1', kind: 'Deployment', name: 'gateway' })
  assert.equal(deployment.spec.replicas, undefined, 'no replicas in the Deployment: an apply would reset the count')
  assert.equal(hpa.minReplicas, DEFAULT_KUBE_OPTIONS.gatewayReplicas)
  assert.ok(hpa.maxReplicas > hpa.minReplicas)
  assert.equal(hpa.metrics[0].resource.name, 'cpu')
  assert.ok(deployment.spec.template.spec.containers[0].resources.requests.cpu, 'utilization needs a CPU request')
  assert.ok(find('PodDisruptionBudget', 'gateway').spec.minAvailable < hpa.minReplicas)
  const toMicroservices = find('NetworkPolicy', 'microservices-from-gateway').spec
  const ms = find('Deployment', 'example').spec.template
  const selects = (selector: Obj, labels: Obj): boolean =>
    Object.entries(selector.matchLabels as Obj).every(([k, v]) => labels[k] === v)
  assert.ok(selects(toMicroservices.podSelector, ms.metadata.labels), 'it covers the microservice pods')
  assert.ok(!selects(toMicroservices.podSelector, deployment.spec.template.metadata.labels), 'and not the gateway')
  assert.equal(toMicroservices.ingress.length, 1)
  assert.ok(selects(toMicroservices.ingress[0].from[0].podSelector, deployment.spec.template.metadata.labels))
  assert.deepEqual(
    toMicroservices.ingress[0].ports.map((p: Obj) => p.port),
    [ms.spec.containers[0].ports[0].containerPort]
  )
  const toGateway = find('NetworkPolicy', 'gateway-from-ingress-and-monitoring').spec
  assert.ok(selects(toGateway.podSelector, deployment.spec.template.metadata.labels))
  const byNamespace = Object.fromEntries(
    (toGateway.ingress as Obj[]).map((rule) => [
      rule.from[0].namespaceSelector.matchLabels['kubernetes.io/metadata.name'],
      rule.ports.map((p: Obj) => p.port).sort()
    ])
  )
  assert.deepEqual(byNamespace, { 'ingress-nginx': [8000, 8082], monitoring: [9090] })
  const service = find('Service', 'gateway')
    .spec.ports.map((p: Obj) => p.port)
    .sort()
  assert.deepEqual(service, [8000, 8082], 'the ingress reaches every port the Service has')
})

test('the parts fit: discovery names, probes, grace periods, the Secret, non-root', () => {
  const objects = rendered()
  const find = (kind: string, name: string): Obj => objects.find((o) => o.kind === kind && o.metadata.name === name)!
  const gateway = find('Deployment', 'gateway').spec.template.spec
  const container = gateway.containers[0]
  const discovery = JSON.parse(
    container.env.find((e: Obj) => e.name === 'PLATFORM__MICROSERVICES__discovery').value as string
  ) as Obj[]
  for (const d of discovery) {
    const svc = find('Service', `${String(d.name)}-instances`)
    assert.equal(svc.spec.clusterIP, 'None', 'a headless Service: one DNS record per ready pod')
    assert.equal(d.dns, `${String(d.name)}-instances.${String(svc.metadata.namespace)}.svc.cluster.local`)
    assert.equal(d.port, svc.spec.ports[0].port)
    const ms = find('Deployment', String(d.name)).spec.template.spec
    assert.deepEqual(ms.containers[0].env[0].valueFrom.secretKeyRef, {
      name: DEFAULT_KUBE_OPTIONS.secretName,
      key: 'secret'
    })
    // preStop: it leaves DNS, and the gateways (re-resolving every 5 s by default) find its successors,
    // before SIGTERM; then the host's drain; all within the grace period.
    const [sleep, pause] = ms.containers[0].lifecycle.preStop.exec.command as [string, string]
    assert.equal(sleep, 'sleep')
    assert.ok(Number(pause) >= 10, 'at least two discovery intervals at their default (5 s)')
    const args = ms.containers[0].args as string[]
    const drainS = Number(args[args.indexOf('--drain-ms') + 1]) / 1000
    assert.ok(
      ms.terminationGracePeriodSeconds > Number(pause) + drainS,
      'the grace period outlasts preStop and the drain'
    )
    assert.equal(ms.securityContext.runAsNonRoot, true)
  }
  assert.deepEqual(container.readinessProbe.httpGet, { path: '/readyz', port: 'admin' })
  assert.deepEqual(container.livenessProbe.httpGet, { path: '/healthz', port: 'admin' })
  assert.equal(container.ports.find((p: Obj) => p.name === 'admin').containerPort, 9090)
  const pf = loadConfig(DEFAULT_CONFIG_FILE, {}).platform
  assert.ok(gateway.terminationGracePeriodSeconds > (pf.drainGraceMs + pf.drainTimeoutMs) / 1000)
  assert.equal(gateway.securityContext.runAsNonRoot, true)
  assert.equal(container.securityContext.allowPrivilegeEscalation, false)
  assert.equal(find('PodDisruptionBudget', 'gateway').spec.minAvailable, 1)
  assert.ok(existsSync(join(DIR, 'kustomization.yaml')))
})

test('with TLS Secrets: the gateway mounts both and its config parses; each microservice serves the internal protocol over mutual TLS', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kube-tls-'))
  const files = kubernetesManifests({
    ...DEFAULT_KUBE_OPTIONS,
    tlsSecret: 'gateway-tls',
    clientCaSecret: 'client-ca',
    internalTlsSecret: 'internal-tls'
  })
  for (const [name, text] of files) {
    mkdirSync(dirname(join(dir, name)), { recursive: true })
    writeFileSync(join(dir, name), text)
  }
  const objects = rendered(dir)
  for (const o of objects) {
    const Model = await model(o)
    assert.doesNotThrow(() => new Model(o).validate(), `${o.kind}/${o.metadata.name}`)
  }
  const find = (kind: string, name: string): Obj => objects.find((o) => o.kind === kind && o.metadata.name === name)!
  const gateway = find('Deployment', 'gateway').spec.template.spec
  const container = gateway.containers[0]
  const secretOf = (spec: Obj, volume: string): string =>
    spec.volumes.find((v: Obj) => v.name === volume)?.secret?.secretName as string
  assert.equal(secretOf(gateway, 'tls'), 'gateway-tls')
  assert.equal(secretOf(gateway, 'internal-tls'), 'internal-tls')
  // The container's environment over the shipped config: valid, HTTPS on both ports, TLS to each instance.
  const env = Object.fromEntries((container.env as Obj[]).filter((e) => 'value' in e).map((e) => [e.name, e.value]))
  const config = loadConfig(DEFAULT_CONFIG_FILE, env)
  assert.equal(config.gateway.tls?.certFile, '/etc/invocation-gateway/tls/tls.crt')
  assert.equal(config.edge.tls?.keyFile, '/etc/invocation-gateway/tls/tls.key')
  // With the image's admin address (Containerfile: 0.0.0.0) it starts: the admin port's plain HTTP,
  // for probes and scrapes, is the manifests' explicit opt-out of the plaintext check.
  const inImage = listenSettings(loadConfig(DEFAULT_CONFIG_FILE, { ...env, PLATFORM__ADMIN__host: '0.0.0.0' }))
  checkPlaintext([inImage.gateway, inImage.edge, inImage.admin])
  assert.equal(inImage.admin?.allowPlaintext, true)
  for (const d of config.microservices.discovery)
    assert.equal(d.tls?.caFile, '/etc/invocation-gateway/internal-tls/ca.crt')
  const mounted = (spec: Obj, path: string): boolean =>
    spec.containers[0].volumeMounts.some((m: Obj) => path.startsWith(`${String(m.mountPath)}/`) && m.readOnly === true)
  assert.ok(mounted(gateway, config.gateway.tls!.certFile))
  // Client certificates required on the gateway's port, their CA from its own Secret; not on the edge's.
  assert.equal(secretOf(gateway, 'client-ca'), 'client-ca')
  assert.equal(config.gateway.tls?.clientCertificates?.mode, 'require')
  assert.ok(mounted(gateway, config.gateway.tls!.clientCertificates!.caFile))
  assert.equal(config.edge.tls?.clientCertificates, null)
  assert.match(files.get('kustomization.yaml')!, /create secret generic client-ca --from-file=ca\.crt/)
  assert.ok(mounted(gateway, config.microservices.discovery[0]!.tls!.certFile!))
  assert.equal(find('Ingress', 'gateway').metadata.annotations['nginx.ingress.kubernetes.io/backend-protocol'], 'HTTPS')
  const ms = find('Deployment', 'example').spec.template.spec
  const args = ms.containers[0].args as string[]
  assert.match(args[args.indexOf('--listen') + 1]!, /^tls:0\.0\.0\.0:7000$/)
  for (const flag of ['--tls-cert', '--tls-key', '--tls-ca'])
    assert.ok(mounted(ms, args[args.indexOf(flag) + 1]!), flag)
  assert.equal(secretOf(ms, 'internal-tls'), 'internal-tls')
  assert.match(files.get('kustomization.yaml')!, /create secret tls gateway-tls/)
})

test('the manifest commands of the README and docs/kubernetes.md, as written there: their output renders and validates, with the images they name', async () => {
  const readme = ['README.md', join('docs', 'kubernetes.md')].map((f) => readFileSync(join(ROOT, f), 'utf8')).join('\n')
  // Each `microservice kube manifests …` command of the two (a continued line joined).
  const commands = [...readme.replace(/\\\n\s*/g, '').matchAll(/^microservice kube manifests (.+)$/gm)].map((m) =>
    m[1]!.trim().split(/\s+/)
  )
  assert.equal(commands.length, 2, 'the plain command and the one with a microservice image')
  for (const args of commands) {
    const out = mkdtempSync(join(tmpdir(), 'kube-readme-'))
    const argv = args.map((a, k) => (args[k - 1] === '--out' ? out : a))
    const printed = execFileSync(process.execPath, [join(ROOT, 'bin', 'microservice'), 'kube', 'manifests', ...argv], {
      encoding: 'utf8'
    })
    assert.equal(printed, `wrote 10 files to ${out}; apply with kubectl apply -k ${out}\n`)
    const objects = parseAllDocuments(execFileSync(kubectl(), ['kustomize', out], { encoding: 'utf8' })).map(
      (d) => d.toJSON() as Obj
    )
    for (const o of objects) {
      const Model = await model(o)
      assert.doesNotThrow(() => new Model(o).validate(), `${o.kind}/${o.metadata.name}`)
    }
    const images = objects
      .filter((o) => o.kind === 'Deployment')
      .map((o) => `${o.metadata.name as string}=${o.spec.template.spec.containers[0].image as string}`)
      .sort()
    const named = (flag: string): string[] => argv.filter((_, k) => argv[k - 1] === flag)
    assert.ok(images.includes(`gateway=${named('--image')[0]!}`), images.join(' '))
    for (const m of named('--microservice')) {
      const [name, rest] = [m.slice(0, m.indexOf('=')), m.slice(m.indexOf('=') + 1)]
      assert.ok(images.includes(`${name}=${rest.slice(0, rest.lastIndexOf(':/'))}`), `${m}: ${images.join(' ')}`)
    }
  }
})
