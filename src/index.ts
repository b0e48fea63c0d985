/**
 * cadre's package entry (`import type { CadreService } from "cadre"`): the types other pi
 * extensions need to use the service cadre announces on `pi.events` and to read its lifecycle
 * events (docs/runtime.md "Events" and "Service"). Types only: the values travel on pi's event bus,
 * so importing this entry never loads cadre a second time.
 */
import type { SERVICE_READY, SERVICE_REQUEST } from "./hosts/pi/extension.ts";
import type { LifecycleEvent, RunEventPayload, SteeredEventPayload } from "./runtime/runs.ts";

export type { CadreService } from "./hosts/pi/extension.ts";
export type { SpawnRequest } from "./resolve/types.ts";
export type { RequestedVsUsed, RunResult } from "./runtime/result.ts";
export type { LifecycleEvent, RunEventPayload, RunState, SteeredEventPayload } from "./runtime/runs.ts";

/** The channel the service is announced on (`cadre:service`) and the one that asks for it. */
export type ServiceChannel = typeof SERVICE_READY | typeof SERVICE_REQUEST;

/** Each lifecycle channel with its payload: `pi.events.on(channel, (p) => … p as CadreEvents[channel])`. */
export type CadreEvents = { [E in Exclude<LifecycleEvent, "cadre:steered">]: RunEventPayload } & { "cadre:steered": SteeredEventPayload };
