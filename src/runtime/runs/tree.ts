/**
 * The tree of runs (issue 21): a run spawned by a run is a record of the same registry with its
 * `parentId`, `rootId` and `depth`. Here: who descends from whom, a subtree's usage totals, the
 * limiter slot a run gives back while it waits on its own children (ADR 0173), and the note a
 * nested run's end leaves in the session of the run that spawned it (ADR 0175).
 */
import { ZERO_USAGE, type Internal, type RegistryState } from "./state.ts";
import type { ChildUsage } from "../pi/child-session.ts";
import type { RunRecord } from "./types.ts";

/** The runs `id` spawned, in creation order. */
export function childrenOf(registry: RegistryState, id: string): Internal[] {
	return [...(registry.children.get(id) ?? [])];
}

/** Adds a new run to the registry, and to its spawner's children. */
export function addRun(registry: RegistryState, internal: Internal): void {
	registry.runs.set(internal.record.id, internal);
	const parentId = internal.record.parentId;
	if (parentId === null) return;
	const siblings = registry.children.get(parentId);
	if (siblings) siblings.push(internal);
	else registry.children.set(parentId, [internal]);
}

/** Every run below `id` (children first, then theirs), bounded by the registry's size. */
export function descendantsOf(registry: RegistryState, id: string): Internal[] {
	const found: Internal[] = [];
	const seen = new Set<string>([id]);
	for (let frontier = [id]; frontier.length > 0; ) {
		const next: string[] = [];
		for (const parent of frontier) {
			for (const child of childrenOf(registry, parent)) {
				if (seen.has(child.record.id)) continue;
				seen.add(child.record.id);
				found.push(child);
				next.push(child.record.id);
			}
		}
		frontier = next;
	}
	return found;
}

/** `a + b`, field by field. */
function addUsage(a: ChildUsage, b: ChildUsage): ChildUsage {
	return { input: a.input + b.input, output: a.output + b.output, cacheRead: a.cacheRead + b.cacheRead, cacheWrite: a.cacheWrite + b.cacheWrite, cost: a.cost + b.cost };
}

/** A run's own usage plus every descendant's, and how many descendants ran. */
export function subtreeTotals(registry: RegistryState, run: RunRecord): { treeUsage: ChildUsage; descendants: number } {
	const below = descendantsOf(registry, run.id);
	const treeUsage = below.reduce((sum, internal) => addUsage(sum, internal.record.usage), addUsage(ZERO_USAGE, run.usage));
	return { treeUsage, descendants: below.length };
}

/** Takes a slot again for a run that gave its own back, ahead of every queued run; a stop ends the wait. */
function retake(registry: RegistryState, internal: Internal): Promise<void> {
	if (internal.finished || internal.stopRequested || internal.aborted) return Promise.resolve();
	return new Promise((resolve) => {
		const cancel = registry.limiter.enqueue(
			internal.record.id,
			(release) => {
				internal.retake = null;
				// The run ended while it queued for its slot: nothing holds it.
				if (internal.finished) release();
				else internal.slot = release;
				resolve();
			},
			"first",
		);
		internal.retake = () => {
			internal.retake = null;
			cancel();
			resolve();
		};
	});
}

/** Runs `wait` while run `id` gives its slot back (if it holds one), then takes one again first. */
export async function whileWaiting<T>(registry: RegistryState, id: string | null, wait: () => Promise<T>): Promise<T> {
	const internal = id === null ? undefined : registry.runs.get(id);
	const release = internal?.slot;
	if (!internal || !release) return wait();
	internal.slot = null;
	release();
	try {
		return await wait();
	} finally {
		await retake(registry, internal);
	}
}

/**
 * A nested background run ended: unless the run that spawned it fetched it meanwhile (a waiting
 * `get_subagent_result` sets `fetched` right after the end), its notification goes into the
 * spawning run's session as a steer, the way the root session is told. A spawner that ended hears nothing.
 */
export function notifySpawner(registry: RegistryState, run: RunRecord): void {
	if (run.parentId === null || !run.background) return;
	const spawner = registry.runs.get(run.parentId);
	const text = registry.options.notifyText;
	if (!spawner || !text) return;
	// After the waiters of `done` ran (they mark the run fetched).
	setImmediate(() => {
		if (run.fetched || run.notified || !spawner.child || spawner.finished || spawner.settled) return;
		const message = text(run);
		if (message === null) return;
		run.notified = true;
		void spawner.child.steer(message).catch(() => undefined);
	});
}
