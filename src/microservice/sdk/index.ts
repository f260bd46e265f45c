/**
 * `invocation-gateway/runtime`: everything a microservice author imports, and nothing of the
 * platform. Loading it starts no server and patches no loader; the platform's host process binds
 * `runtime` when it runs the microservice.
 *
 * @example
 * import { t, method, service, defineMicroservice } from 'invocation-gateway/runtime'
 * const In = t.object('com.example.In', { a: t.Integer, b: t.Integer })
 * export default defineMicroservice({
 *   services: [service('calculator', [
 *     method('multiplyToInt', { params: [In], returns: t.Integer, handler: (_ctx, i) => (i.a ?? 0) * (i.b ?? 0) })
 *   ])],
 *   platformRegularExpressionToRemotelyEnabled: ['calculator']
 * })
 */

// Types of values and their Java shapes: the one source for (de)serialization, checks and descriptions.
export { t, Typed, LocalDate, typeName, javaClassName } from '../descriptors/descriptors'
export type * from '../descriptors/descriptors'

// Defining a microservice.
export { method, service, defineMicroservice, ServiceError } from './define'
export type {
  CallContext,
  MethodDefinition,
  MethodOptions,
  ServiceDefinition,
  MicroserviceDefinition,
  MethodExecution,
  PermissionResolver
} from './define'

// Serializers: the four defaults, configurable, for a bean of one's own (docs/contract.md, Sequences).
export {
  createAlphaXmlSerializer,
  createAlphaJsonSerializer,
  createBetaJsonSerializer,
  createBetaXmlSerializer,
  defaultSerializers
} from '../serializers'
export { ValueError } from '../serializers/errors'
export type { Serializer } from '../serializers/serializer'
export type { AliasMap } from '../serializers/alpha/alpha-node'
export type { BetaJsonOptions } from '../serializers/beta/beta-json'
export type { BetaXmlOptions } from '../serializers/beta/beta-xml'
export { DEFAULT_READ_LIMITS, type ReadLimits } from '../../common/contract/limits'
export {
  SEQUENCES,
  type SequenceName,
  type SerializerBeanName,
  type BodyFormat,
  type ApiMode
} from '../../common/contract/vocabulary'

// The host's handle: the user availability flag and counters.
export { runtime, type RuntimeStats } from './availability'
