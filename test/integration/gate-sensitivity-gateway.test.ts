// The gateway: 10 % more CPU per call fails the gate (its checks have a 7 % margin). That the code as
// it is passes is CI's own gate step.
import { slowdownFailsTheGate } from '../helpers/gate-sensitivity'

slowdownFailsTheGate('gateway', 10)
