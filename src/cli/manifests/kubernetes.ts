import { parse, stringify } from 'yaml'

/** A microservice pod's preStop pause and its host's drain (--drain-ms), in seconds. */
export const MICROSERVICE_PRE_STOP_S = 15
export const MICROSERVICE_DRAIN_S = 20

/** A microservice as its own Deployment: the image that holds it and where its package is inside. */
export interface KubeMicroservice {
  name: string
  image: string
  /** The microservice directory inside the image. */
  dir: string
  replicas: number
}

export interface KubeOptions {
  namespace: string
  /** The platform's image (npm run image, pushed to the operator's registry). */
  image: string
  gatewayReplicas: number
  microservices: readonly KubeMicroservice[]
  /** The port microservice pods listen on for the internal protocol. */
  microservicePort: number
  /** The Secret holding the internal protocol's shared secret (key `secret`), created by the operator. */
  secretName: string
  /** PLATFORM.drainGraceMs + drainTimeoutMs of the gateway, in seconds; the pod's grace period exceeds it. */
  drainSeconds: number
  /**
   * A kubernetes.io/tls Secret (tls.crt, tls.key; cert-manager writes one) for HTTPS on the gateway's
   * and the edge's ports; null: plain HTTP behind the Ingress. Renewals are taken up without a restart.
   */
  tlsSecret: string | null
  /**
   * A Secret with ca.crt: the gateway's HTTPS port then requires a client certificate it signs
   * (tls.clientCertificates, mode require; needs tlsSecret). null: none asked for.
   */
  clientCaSecret: string | null
  /**
   * A Secret with ca.crt, tls.crt and tls.key for the internal protocol over mutual TLS: the
   * microservice pods serve with the pair and require a gateway certificate ca.crt signs; the gateway
   * presents the same pair and verifies each pod by its Service's name, which the certificate holds.
   */
  internalTlsSecret: string | null
  /** The gateway's HorizontalPodAutoscaler: from gatewayReplicas up to this, on CPU. */
  maxGatewayReplicas: number
  /** The average CPU use, as a share of the pods' CPU request, the autoscaler keeps them at. */
  targetCpuPercent: number
  /** The ingress controller's namespace: the only one whose pods may reach the gateway's ports. */
  ingressNamespace: string
  /** The monitoring namespace: the only one whose pods may scrape the admin port. */
  monitoringNamespace: string
  /**
   * deploy/prometheus/gateway.rules.yml's text: the monitoring overlay carries it as a PrometheusRule
   * beside its PodMonitor (the Prometheus Operator's kinds). null: no overlay.
   */
  prometheusRules: string | null
}

export const DEFAULT_KUBE_OPTIONS: Readonly<KubeOptions> = Object.freeze({
  namespace: 'invocation-gateway',
  image: 'localhost/invocation-gateway:latest',
  gatewayReplicas: 2,
  microservices: [
    { name: 'example', image: 'localhost/invocation-gateway:latest', dir: '/app/dist/examples/example', replicas: 2 }
  ],
  microservicePort: 7000,
  secretName: 'invocation-gateway-internal',
  drainSeconds: 35,
  tlsSecret: null,
  clientCaSecret: null,
  internalTlsSecret: null,
  maxGatewayReplicas: 10,
  targetCpuPercent: 70,
  ingressNamespace: 'ingress-nginx',
  monitoringNamespace: 'monitoring',
  prometheusRules: null
})

const TLS_DIR = '/etc/invocation-gateway/tls'
const INTERNAL_TLS_DIR = '/etc/invocation-gateway/internal-tls'
const CLIENT_CA_DIR = '/etc/invocation-gateway/client-ca'

type Manifest = Record<string, unknown>

const NON_ROOT = {
  runAsNonRoot: true,
  runAsUser: 1000,
  runAsGroup: 1000,
  allowPrivilegeEscalation: false,
  readOnlyRootFilesystem: true,
  capabilities: { drop: ['ALL'] }
}

/**
 * The Kubernetes manifests of the platform, as kustomize files by name (`microservice kube
 * manifests`): the gateway and edge as a Deployment with probes on the admin port, a Service, an
 * Ingress and a PodDisruptionBudget; per microservice a Deployment running `microservice host` and a
 * headless Service whose DNS name the gateway resolves (MICROSERVICES.discovery). The shared secret
 * is a Secret the operator creates; nothing secret is written here.
 */
export function kubernetesManifests(o: KubeOptions): Map<string, string> {
  if (o.clientCaSecret !== null && o.tlsSecret === null)
    throw new Error('a client CA Secret needs a TLS Secret: client certificates are asked for over HTTPS only')
  const files = new Map<string, string>()
  files.set('base/gateway.yaml', yamlDocs(gatewayManifests(o)))
  files.set('base/autoscaling.yaml', yamlDocs([autoscaler(o)]))
  files.set('base/network-policies.yaml', yamlDocs(networkPolicies(o)))
  for (const m of o.microservices) files.set(`base/microservice-${m.name}.yaml`, yamlDocs(microserviceManifests(o, m)))
  for (const [name, text] of kustomizations(o)) files.set(name, text)
  files.set('base/namespace.yaml', yamlDocs([{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: o.namespace } }]))
  if (o.prometheusRules !== null) for (const [name, text] of monitoring(o, o.prometheusRules)) files.set(name, text)
  return files
}

const labels = (component: string): Record<string, string> => ({
  'app.kubernetes.io/name': 'invocation-gateway',
  'app.kubernetes.io/component': component
})

const secretEnv = (o: KubeOptions): Manifest => ({
  name: 'MICROSERVICE_SECRET',
  valueFrom: { secretKeyRef: { name: o.secretName, key: 'secret' } }
})

const tmp = { name: 'tmp', emptyDir: {} }

// Mounted Secrets: their files are replaced (a `..data` link that moves) when the Secret changes.
const secretVolume = (name: string, secret: string | null): Manifest[] =>
  secret === null ? [] : [{ name, secret: { secretName: secret } }]

const mount = (name: string, secret: string | null, path: string): Manifest[] =>
  secret === null ? [] : [{ name, mountPath: path, readOnly: true }]

/** The gateway and edge: a Deployment, a Service, a PodDisruptionBudget, an Ingress. */
function gatewayManifests(o: KubeOptions): Manifest[] {
  return [
    gatewayDeployment(o),
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'gateway', labels: labels('gateway') },
      spec: {
        selector: labels('gateway'),
        ports: [
          { name: 'http', port: 8082, targetPort: 'http' },
          { name: 'edge', port: 8000, targetPort: 'edge' }
        ]
      }
    },
    {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'gateway', labels: labels('gateway') },
      spec: { minAvailable: 1, selector: { matchLabels: labels('gateway') } }
    },
    {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      metadata: {
        name: 'gateway',
        labels: labels('gateway'),
        // The gateway's ports speak HTTPS: ingress-nginx must too (other controllers have their own word).
        ...(o.tlsSecret !== null ? { annotations: { 'nginx.ingress.kubernetes.io/backend-protocol': 'HTTPS' } } : {})
      },
      spec: {
        rules: [
          {
            http: {
              paths: [
                {
                  path: '/_swagger',
                  pathType: 'Prefix',
                  backend: { service: { name: 'gateway', port: { name: 'edge' } } }
                },
                {
                  path: '/_eapi',
                  pathType: 'Prefix',
                  backend: { service: { name: 'gateway', port: { name: 'edge' } } }
                },
                { path: '/', pathType: 'Prefix', backend: { service: { name: 'gateway', port: { name: 'http' } } } }
              ]
            }
          }
        ]
      }
    }
  ]
}

/** The gateway's pods: its discovery of the microservices, its certificates, probes on the admin port. */
function gatewayDeployment(o: KubeOptions): Manifest {
  const discovery = o.microservices.map((m) => ({
    name: m.name,
    dns: `${m.name}-instances.${o.namespace}.svc.cluster.local`,
    port: o.microservicePort,
    secretEnv: 'MICROSERVICE_SECRET',
    ...(o.internalTlsSecret !== null
      ? {
          tls: {
            caFile: `${INTERNAL_TLS_DIR}/ca.crt`,
            certFile: `${INTERNAL_TLS_DIR}/tls.crt`,
            keyFile: `${INTERNAL_TLS_DIR}/tls.key`
          }
        }
      : {})
  }))
  const listenerTls = { certFile: `${TLS_DIR}/tls.crt`, keyFile: `${TLS_DIR}/tls.key` }
  const gatewayTls =
    o.clientCaSecret === null
      ? listenerTls
      : { ...listenerTls, clientCertificates: { mode: 'require', caFile: `${CLIENT_CA_DIR}/ca.crt` } }
  const httpsEnv =
    o.tlsSecret === null
      ? []
      : [
          { name: 'PLATFORM__ENTRY_POINTS__WEB_SERVICE_FACADE_HTTP__tls', value: JSON.stringify(gatewayTls) },
          { name: 'PLATFORM__EDGE__tls', value: JSON.stringify(listenerTls) },
          // The admin port stays plain HTTP for the kubelet's probes and Prometheus's scrapes, which the
          // NetworkPolicy lets in alone: the opt-out of the plaintext check (docs/security.md).
          { name: 'PLATFORM__ADMIN__allowPlaintext', value: 'true' }
        ]
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'gateway', labels: labels('gateway') },
    spec: {
      // No replicas: the HorizontalPodAutoscaler owns the count, and an apply must not reset it.
      selector: { matchLabels: labels('gateway') },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } },
      template: {
        metadata: { labels: labels('gateway') },
        spec: {
          // Longer than the drain: the grace while endpoints update, then the calls in flight.
          terminationGracePeriodSeconds: o.drainSeconds + 10,
          securityContext: { runAsNonRoot: true, runAsUser: 1000, fsGroup: 1000 },
          containers: [
            {
              name: 'gateway',
              image: o.image,
              ports: [
                { name: 'http', containerPort: 8082 },
                { name: 'edge', containerPort: 8000 },
                { name: 'admin', containerPort: 9090 }
              ],
              env: [
                secretEnv(o),
                { name: 'PLATFORM__PLATFORM__bootstrap', value: '[]' },
                { name: 'PLATFORM__MICROSERVICES__discovery', value: JSON.stringify(discovery) },
                { name: 'PLATFORM__LOGGING__accessLog', value: 'true' },
                ...httpsEnv
              ],
              readinessProbe: { httpGet: { path: '/readyz', port: 'admin' }, periodSeconds: 2, failureThreshold: 1 },
              livenessProbe: { httpGet: { path: '/healthz', port: 'admin' }, periodSeconds: 10, failureThreshold: 3 },
              startupProbe: { httpGet: { path: '/healthz', port: 'admin' }, periodSeconds: 1, failureThreshold: 60 },
              resources: { requests: { cpu: '500m', memory: '256Mi' }, limits: { memory: '1Gi' } },
              securityContext: NON_ROOT,
              volumeMounts: [
                { name: 'data', mountPath: '/var/lib/invocation-gateway' },
                { name: 'tmp', mountPath: '/tmp' },
                ...mount('tls', o.tlsSecret, TLS_DIR),
                ...mount('client-ca', o.clientCaSecret, CLIENT_CA_DIR),
                ...mount('internal-tls', o.internalTlsSecret, INTERNAL_TLS_DIR)
              ]
            }
          ],
          volumes: [
            { name: 'data', emptyDir: {} },
            tmp,
            ...secretVolume('tls', o.tlsSecret),
            ...secretVolume('client-ca', o.clientCaSecret),
            ...secretVolume('internal-tls', o.internalTlsSecret)
          ]
        }
      }
    }
  }
}

/** The gateway's HorizontalPodAutoscaler, on CPU. */
function autoscaler(o: KubeOptions): Manifest {
  return {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name: 'gateway', labels: labels('gateway') },
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'gateway' },
      minReplicas: o.gatewayReplicas,
      maxReplicas: o.maxGatewayReplicas,
      metrics: [
        {
          type: 'Resource',
          resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: o.targetCpuPercent } }
        }
      ],
      // Up at once, down one pod a minute after five calm minutes: a drained pod's calls move to the others.
      behavior: {
        scaleUp: { stabilizationWindowSeconds: 0, policies: [{ type: 'Percent', value: 100, periodSeconds: 30 }] },
        scaleDown: { stabilizationWindowSeconds: 300, policies: [{ type: 'Pods', value: 1, periodSeconds: 60 }] }
      }
    }
  }
}

const fromNamespace = (ns: string): Manifest => ({
  namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } }
})

/** Only the gateway reaches the microservices; only the ingress controller and monitoring reach the gateway. */
function networkPolicies(o: KubeOptions): Manifest[] {
  // The kubelet's probes come from the node, which NetworkPolicies always let through.
  return [
    {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: { name: 'microservices-from-gateway', labels: labels('microservice') },
      spec: {
        podSelector: { matchLabels: labels('microservice') },
        policyTypes: ['Ingress'],
        ingress: [
          {
            from: [{ podSelector: { matchLabels: labels('gateway') } }],
            ports: [{ protocol: 'TCP', port: o.microservicePort }]
          }
        ]
      }
    },
    {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: { name: 'gateway-from-ingress-and-monitoring', labels: labels('gateway') },
      spec: {
        podSelector: { matchLabels: labels('gateway') },
        policyTypes: ['Ingress'],
        ingress: [
          {
            from: [fromNamespace(o.ingressNamespace)],
            ports: [
              { protocol: 'TCP', port: 8082 },
              { protocol: 'TCP', port: 8000 }
            ]
          },
          { from: [fromNamespace(o.monitoringNamespace)], ports: [{ protocol: 'TCP', port: 9090 }] }
        ]
      }
    }
  ]
}

/** A microservice: a Deployment running `microservice host` and the headless Service the gateway resolves. */
function microserviceManifests(o: KubeOptions, m: KubeMicroservice): Manifest[] {
  const l = { ...labels('microservice'), 'invocation-gateway/microservice': m.name }
  return [
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: `${m.name}`, labels: l },
      spec: {
        replicas: m.replicas,
        selector: { matchLabels: l },
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } },
        template: {
          metadata: { labels: l },
          spec: {
            terminationGracePeriodSeconds: MICROSERVICE_PRE_STOP_S + MICROSERVICE_DRAIN_S + 5,
            securityContext: { runAsNonRoot: true, runAsUser: 1000, fsGroup: 1000 },
            containers: [
              {
                name: 'microservice',
                image: m.image,
                command: ['node', '/app/bin/microservice', 'host', m.dir],
                args: [
                  '--listen',
                  `${o.internalTlsSecret !== null ? 'tls' : 'tcp'}:0.0.0.0:${o.microservicePort}`,
                  ...(o.internalTlsSecret !== null
                    ? [
                        '--tls-cert',
                        `${INTERNAL_TLS_DIR}/tls.crt`,
                        '--tls-key',
                        `${INTERNAL_TLS_DIR}/tls.key`,
                        '--tls-ca',
                        `${INTERNAL_TLS_DIR}/ca.crt`
                      ]
                    : []),
                  '--secret-env',
                  'MICROSERVICE_SECRET',
                  '--drain-ms',
                  String(MICROSERVICE_DRAIN_S * 1000)
                ],
                ports: [{ name: 'internal', containerPort: o.microservicePort }],
                env: [secretEnv(o)],
                readinessProbe: { tcpSocket: { port: 'internal' }, periodSeconds: 2 },
                livenessProbe: { tcpSocket: { port: 'internal' }, periodSeconds: 10, failureThreshold: 3 },
                // The pod leaves DNS first, and the gateways find the pods that replace it (their
                // discovery interval is shorter) before SIGTERM; the host then says GoAway and
                // answers the calls it holds (--drain-ms).
                lifecycle: { preStop: { exec: { command: ['sleep', String(MICROSERVICE_PRE_STOP_S)] } } },
                resources: { requests: { cpu: '250m', memory: '256Mi' }, limits: { memory: '1Gi' } },
                securityContext: NON_ROOT,
                volumeMounts: [
                  { name: 'tmp', mountPath: '/tmp' },
                  ...mount('internal-tls', o.internalTlsSecret, INTERNAL_TLS_DIR)
                ]
              }
            ],
            volumes: [tmp, ...secretVolume('internal-tls', o.internalTlsSecret)]
          }
        }
      }
    },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: `${m.name}-instances`, labels: l },
      spec: {
        clusterIP: 'None',
        selector: l,
        ports: [{ name: 'internal', port: o.microservicePort, targetPort: 'internal' }]
      }
    }
  ]
}

/** The base's kustomization and the top one, whose comments tell the operator which Secrets to create. */
function kustomizations(o: KubeOptions): Array<[string, string]> {
  const base = stringify({
    apiVersion: 'kustomize.config.k8s.io/v1beta1',
    kind: 'Kustomization',
    namespace: o.namespace,
    resources: [
      'namespace.yaml',
      'gateway.yaml',
      'autoscaling.yaml',
      'network-policies.yaml',
      ...o.microservices.map((m) => `microservice-${m.name}.yaml`)
    ]
  })
  const top = stringify({ apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization', resources: ['base'] })
  return [
    [
      'base/kustomization.yaml',
      `# Generated by \`microservice kube manifests\`: the platform without the Prometheus Operator's kinds.\n${base}`
    ],
    [
      'kustomization.yaml',
      `# Generated by \`microservice kube manifests\`; apply with: kubectl apply -k .${o.prometheusRules === null ? '' : ' (or, with the\n# Prometheus Operator: kubectl apply -k monitoring, the same and a PodMonitor and the rules)'}\n# The Secret '${o.secretName}' (key 'secret') is created by the operator, never committed:\n#   kubectl -n ${o.namespace} create secret generic ${o.secretName} --from-literal=secret="$(openssl rand -hex 32)"\n${tlsSecretsComment(o)}${top}`
    ]
  ]
}

/** The monitoring overlay: the base, a PodMonitor for the admin port and the shipped rules as a PrometheusRule. */
function monitoring(o: KubeOptions, prometheusRules: string): Array<[string, string]> {
  const rules = parse(prometheusRules) as { groups: unknown[] }
  const kustomization = stringify({
    apiVersion: 'kustomize.config.k8s.io/v1beta1',
    kind: 'Kustomization',
    namespace: o.namespace,
    resources: ['../base', 'pod-monitor.yaml', 'prometheus-rule.yaml']
  })
  return [
    [
      'monitoring/kustomization.yaml',
      `# With the Prometheus Operator: the base, a PodMonitor for the gateway pods' admin port and the
# shipped rules as a PrometheusRule. Apply with: kubectl apply -k monitoring
${kustomization}`
    ],
    [
      'monitoring/pod-monitor.yaml',
      yamlDocs([
        {
          apiVersion: 'monitoring.coreos.com/v1',
          kind: 'PodMonitor',
          metadata: { name: 'gateway', labels: labels('gateway') },
          spec: {
            selector: { matchLabels: labels('gateway') },
            podMetricsEndpoints: [{ port: 'admin', path: '/metrics', interval: '15s' }]
          }
        }
      ])
    ],
    [
      'monitoring/prometheus-rule.yaml',
      yamlDocs([
        {
          apiVersion: 'monitoring.coreos.com/v1',
          kind: 'PrometheusRule',
          metadata: { name: 'gateway', labels: labels('gateway') },
          spec: { groups: rules.groups }
        }
      ])
    ]
  ]
}

function tlsSecretsComment(o: KubeOptions): string {
  const lines: string[] = []
  if (o.tlsSecret !== null)
    lines.push(
      `# The Secret '${o.tlsSecret}' (kubernetes.io/tls: tls.crt, tls.key) holds the gateway's and edge's HTTPS certificate:`,
      `#   kubectl -n ${o.namespace} create secret tls ${o.tlsSecret} --cert=tls.crt --key=tls.key`
    )
  if (o.clientCaSecret !== null)
    lines.push(
      `# The Secret '${o.clientCaSecret}' (ca.crt) holds the CA whose client certificates the gateway requires:`,
      `#   kubectl -n ${o.namespace} create secret generic ${o.clientCaSecret} --from-file=ca.crt`
    )
  if (o.internalTlsSecret !== null)
    lines.push(
      `# The Secret '${o.internalTlsSecret}' (ca.crt, tls.crt, tls.key) holds the internal protocol's mutual TLS; the`,
      `# certificate names every microservice's Service (NAME-instances.${o.namespace}.svc.cluster.local):`,
      `#   kubectl -n ${o.namespace} create secret generic ${o.internalTlsSecret} --from-file=ca.crt --from-file=tls.crt --from-file=tls.key`
    )
  return lines.map((l) => `${l}\n`).join('')
}

function yamlDocs(docs: Manifest[]): string {
  return docs.map((d) => stringify(d, { lineWidth: 0 })).join('---\n')
}
