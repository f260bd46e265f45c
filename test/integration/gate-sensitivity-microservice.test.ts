// The microservice host: 10 % more CPU per call fails the gate. Its CPU per call moves with the machine
// by more than that (its checks have a 12 % margin); the count of its per-call path's instructions does
// not, and fails. That the code as it is passes is CI's own gate step.
import { slowdownFailsTheGate } from '../helpers/gate-sensitivity'

slowdownFailsTheGate('microservice', 10)
