/**
 * The service other extensions reach on `pi.events` (docs/runtime.md "Service"): spawn, list, get,
 * steer and stop, as results; announced at session start, answered on request.
 */
import type { SpawnRequest } from "../../resolve/types.ts";
import { type RunResult, runResult } from "../../runtime/result.ts";
import { type ExtensionHost, start } from "./session-state.ts";

/** The service other extensions reach on `pi.events` (see docs/runtime.md "Service"). */
export interface CadreService {
	/** Spawn like the `subagent` tool; `done` settles with the result. Refusals reject. */
	spawn(request: SpawnRequest): Promise<{ id: string; done: Promise<RunResult> }>;
	list(): RunResult[];
	get(id: string): RunResult | undefined;
	steer(id: string, message: string): Promise<void>;
	stop(id: string): Promise<RunResult | undefined>;
}

/** Event-bus channel answering `(service) => void` callbacks with the service. */
export const SERVICE_REQUEST = "cadre:service-request";
/** Event-bus channel on which the service is announced at session start. */
export const SERVICE_READY = "cadre:service";

/** The service over the host's session (refusing while there is none). */
export function createService(host: ExtensionHost): CadreService {
	return {
		async spawn(request) {
			const state = host.state;
			if (!state) throw new Error("cadre: no parent session yet");
			const { run, done } = await start(host, state.ctx, request, {});
			const max = state.maxResultChars;
			return { id: run.id, done: done.then((r) => runResult(r, max)) };
		},
		list: () => (host.state ? host.state.registry.list().map((r) => runResult(r, host.state?.maxResultChars ?? 20000)) : []),
		get(id) {
			const run = host.state?.registry.get(id);
			return run ? runResult(run, host.state?.maxResultChars ?? 20000) : undefined;
		},
		async steer(id, message) {
			if (!host.state) throw new Error("cadre: no parent session yet");
			await host.state.registry.steer(id, message);
		},
		async stop(id) {
			const run = await host.state?.registry.stop(id);
			return run ? runResult(run, host.state?.maxResultChars ?? 20000) : undefined;
		},
	};
}
