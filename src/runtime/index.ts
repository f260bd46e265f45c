// What a microservice author imports.
export { t, type Descriptor, type Infer } from '../descriptors/types'
export { method, service, defineMicroservice, ServiceError, type CallContext, type MicroserviceDefinition, type PermissionResolver } from './define'
export type { Serializer } from '../serializers/serializer'
export { runtime } from './host'
