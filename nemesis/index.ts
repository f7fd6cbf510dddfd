// The nemesis: fault kinds as small objects built from plain-JSON specs, and
// schedules of them that always heal. See FAULT_KINDS for what exists.
export { createFault, FAULT_KINDS, FAULT_ALIASES, KINDS, kindDef, describeFault, topologyProblem, capabilityProblem, specNeeds, checkFaultSpec, checkSchedule, activeFaults } from './kinds.ts';
export type { KindDef, FaultGenOptions } from './fault.ts';
export { runSchedule, healAll, planSchedule, type ScheduleStep, type RunScheduleOptions } from './schedule.ts';
export { FaultSpecError } from './spec.ts';
export type { Fault, FaultSpec, FaultSchedule, NemesisContext, ClientControl } from './types.ts';
export { processClients } from './process-clients.ts';
