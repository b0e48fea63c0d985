/**
 * What the parent and the operator do to runs: stop (wins any race with finishing), steer
 * (delivered after the current tool call, buffered while queued) and wait (never stops). An
 * earlier process's run is listed here but driven only where it runs.
 */
import { changed, eventPayload, type SteeredEventPayload } from "./events.ts";
import { finish } from "./finish.ts";
import { retryUnsaved } from "./persistence.ts";
import type { Internal, RegistryState } from "./state.ts";
import { childrenOf } from "./tree.ts";
import type { RunRecord } from "./types.ts";

/** Why an earlier session's run cannot be steered from this one. */
function notHere(run: RunRecord): string {
	if (run.endedAt !== null) return `Run ${run.id} is already ${run.state}; steer only reaches queued or running runs (resume it instead).`;
	return `Run ${run.id} is ${run.activity}; it can be steered or stopped only there.`;
}

/** Stop every queued and running run below `id` (ADR 0174), all at once. */
export async function stopDescendants(registry: RegistryState, id: string): Promise<void> {
	await Promise.all(childrenOf(registry, id).filter((child) => child.record.endedAt === null).map((child) => stopRun(registry, child.record.id)));
}

/** Stop a queued or running run and its whole subtree; an earlier process's run is returned as it is. */
export async function stopRun(registry: RegistryState, id: string): Promise<RunRecord | undefined> {
	const internal = registry.runs.get(id);
	if (!internal) return registry.earlier.get(id);
	const subtree = stopDescendants(registry, id);
	try {
		return await stopOne(registry, internal);
	} finally {
		await subtree;
	}
}

/** Stop one run of this process (its children are stopped beside it). */
async function stopOne(registry: RegistryState, internal: Internal): Promise<RunRecord> {
	if (internal.finished) {
		// Finishing (isolation wrap-up): not terminal yet, so the stop still wins.
		if (internal.record.endedAt !== null) return internal.record;
		internal.stopRequested = true;
		return internal.done;
	}
	internal.stopRequested = true;
	internal.retake?.();
	if (internal.record.state === "queued" && internal.cancelQueued?.()) {
		await finish(registry, internal, "stopped", null);
		return internal.record;
	}
	if (internal.child) await internal.child.abort();
	return internal.done;
}

/** Steer a run: delivered after its current tool call, buffered while queued. */
export async function steerRun(registry: RegistryState, id: string, message: string): Promise<RunRecord> {
	const internal = registry.runs.get(id);
	const loaded = registry.earlier.get(id);
	if (loaded) throw new Error(notHere(loaded));
	if (!internal) throw new Error(`No sub-agent run with id ${id}. Use /subagents to list runs.`);
	const run = internal.record;
	if (internal.finished) {
		const now = run.endedAt === null ? "finishing" : `already ${run.state}`;
		throw new Error(`Run ${id} is ${now}; steer only reaches queued or running runs (resume it instead).`);
	}
	if (internal.child && run.state === "running") await internal.child.steer(message);
	else internal.buffered.push(message);
	const payload: SteeredEventPayload = { ...eventPayload(run), message, buffered: !internal.child };
	registry.options.emit("cadre:steered", payload);
	changed(registry, run);
	return run;
}

/** Wait for a run to be terminal; null when `timeoutMs` passes or `signal` aborts first. */
export async function waitForRun(registry: RegistryState, id: string, timeoutMs: number | null, signal?: AbortSignal): Promise<RunRecord | null> {
	const internal = registry.runs.get(id);
	const loaded = registry.earlier.get(id);
	// A run another process still runs cannot be waited for here: its progress is what there is.
	if (loaded) return loaded.endedAt !== null ? loaded : null;
	if (!internal) throw new Error(`No sub-agent run with id ${id}.`);
	// Finishing (isolation wrap-up, the last record write) is not terminal yet: wait for the end.
	if (internal.record.endedAt !== null) return internal.record;
	const waits: Promise<RunRecord | null>[] = [internal.done];
	let timer: NodeJS.Timeout | undefined;
	if (timeoutMs !== null) waits.push(new Promise((resolve) => (timer = setTimeout(() => resolve(null), timeoutMs))));
	if (signal) waits.push(new Promise((resolve) => signal.addEventListener("abort", () => resolve(null), { once: true })));
	try {
		return await Promise.race(waits);
	} finally {
		if (timer) clearTimeout(timer);
	}
}

/** Stop every queued and running run (parent session end); later spawns are stopped at once. */
export async function stopAllRuns(registry: RegistryState): Promise<void> {
	registry.closed = true;
	await Promise.all([...registry.runs.keys()].map((id) => stopRun(registry, id)));
	if (registry.records) retryUnsaved(registry, registry.records);
}
