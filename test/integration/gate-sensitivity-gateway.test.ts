// The gateway: 10 % more CPU per call fails the gate (its per-call paths' instruction counts, 5 %
// margin; its CPU per call over the ceiling's, 12 %). That the code as it is passes is CI's own gate step.
import { slowdownFailsTheGate } from '../helpers/gate-sensitivity'

slowdownFailsTheGate('gateway', 10)
