/**
 * Spreading children over workspaces (issue 25, ADR 0184): a run whose type allows several
 * workspaces (`workspace: [a, b]`) is placed on the least loaded one that has room — fewest
 * running relative to its `maxConcurrent`, then fewest running, then the order written — and
 * waits (first come, first placed) while every allowed one is full. `local` has no limit of its
 * own here: the registry's `maxConcurrent` limits local runs.
 */

/** What the placer needs of a workspace. */
export interface Capacity {
	name: string;
	/** Children it may run at once (`Infinity` for local). */
	max: number;
}

/** The workspace a run goes to now, or null when every allowed one is full. Pure. */
export function pickWorkspace(allowed: readonly string[], capacity: ReadonlyMap<string, number>, running: ReadonlyMap<string, number>): string | null {
	let best: { name: string; load: number; count: number; index: number } | null = null;
	allowed.forEach((name, index) => {
		const max = capacity.get(name) ?? Number.POSITIVE_INFINITY;
		const count = running.get(name) ?? 0;
		if (count >= max) return;
		const load = Number.isFinite(max) ? count / max : 0;
		if (!best || load < best.load || (load === best.load && count < best.count)) best = { name, load, count, index };
	});
	return (best as { name: string } | null)?.name ?? null;
}

/** A place held on a workspace; release it when the run ends. */
export interface Placement {
	workspace: string;
	release(): void;
}

/** The places of one parent process: every run's placement goes through one of these. */
export interface WorkspacePlacer {
	/** Waits for room on one of `allowed` and holds it. Rejects when `signal` aborts first. */
	place(allowed: readonly string[], signal?: AbortSignal): Promise<Placement>;
	/** Runs per workspace now. */
	running(): Map<string, number>;
}

/** A placer over the workspaces' capacities. */
export function createPlacer(capacities: readonly Capacity[]): WorkspacePlacer {
	const capacity = new Map(capacities.map((c) => [c.name, c.max]));
	const running = new Map<string, number>();
	const waiting: { allowed: readonly string[]; resolve: (p: Placement) => void }[] = [];
	const hold = (workspace: string): Placement => {
		running.set(workspace, (running.get(workspace) ?? 0) + 1);
		let released = false;
		return {
			workspace,
			release() {
				if (released) return;
				released = true;
				running.set(workspace, (running.get(workspace) ?? 1) - 1);
				drain();
			},
		};
	};
	const drain = () => {
		for (let i = 0; i < waiting.length; ) {
			const entry = waiting[i] as (typeof waiting)[number];
			const name = pickWorkspace(entry.allowed, capacity, running);
			if (name === null) {
				i++;
				continue;
			}
			waiting.splice(i, 1);
			entry.resolve(hold(name));
		}
	};
	return {
		running: () => new Map(running),
		place(allowed, signal) {
			const name = waiting.length === 0 ? pickWorkspace(allowed, capacity, running) : null;
			if (name !== null) return Promise.resolve(hold(name));
			return new Promise<Placement>((resolve, reject) => {
				const entry = {
					allowed,
					resolve: (p: Placement) => {
						signal?.removeEventListener("abort", onAbort);
						resolve(p);
					},
				};
				const onAbort = () => {
					const at = waiting.indexOf(entry);
					if (at >= 0) waiting.splice(at, 1);
					reject(new Error("aborted while waiting for a workspace"));
				};
				if (signal?.aborted) return onAbort();
				signal?.addEventListener("abort", onAbort, { once: true });
				waiting.push(entry);
				drain();
			});
		},
	};
}
