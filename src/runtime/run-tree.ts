/**
 * The tree of runs as the TUI and `cadre runs list` draw it (issue 21): each run followed by the runs it spawned,
 * indented one step per level under its parent, and a parent's collapsed counts of what runs
 * below it. Pure functions over records.
 */
import type { RunRecord } from "./runs.ts";

/** `runs` grouped under the id of the run that spawned each (null: a root here), in creation order. */
function byParentOf<T extends Pick<RunRecord, "id" | "createdAt"> & { parentId?: string | null }>(runs: readonly T[]): Map<string | null, T[]> {
	const ids = new Set(runs.map((run) => run.id));
	const byParent = new Map<string | null, T[]>();
	for (const run of [...runs].sort((a, b) => a.createdAt - b.createdAt)) {
		const parent = run.parentId && ids.has(run.parentId) && run.parentId !== run.id ? run.parentId : null;
		const siblings = byParent.get(parent);
		if (siblings) siblings.push(run);
		else byParent.set(parent, [run]);
	}
	return byParent;
}

/**
 * `runs` with each run followed by its descendants (children in creation order); runs whose
 * parent is not among them start a tree of their own, in creation order. O(n log n): a long
 * session's history is in every TUI update.
 */
export function inTreeOrder<T extends Pick<RunRecord, "id" | "createdAt"> & { parentId?: string | null }>(runs: readonly T[]): T[] {
	const byParent = byParentOf(runs);
	const ordered: T[] = [];
	const seen = new Set<string>();
	const visit = (run: T) => {
		if (seen.has(run.id)) return;
		seen.add(run.id);
		ordered.push(run);
		for (const child of byParent.get(run.id) ?? []) visit(child);
	};
	for (const root of byParent.get(null) ?? []) visit(root);
	// A cycle (records that disagree) still lists every run once.
	for (const run of runs) visit(run);
	return ordered;
}

/** The indent of a run at `depth` (1: none), two columns per level. */
export function treeIndent(depth: number | undefined): string {
	return "  ".repeat(Math.max(0, (depth ?? 1) - 1));
}

/** The children of each run among some runs (by `parentId`), for {@link collapsedCounts} over many runs. */
export type ChildIndex = ReadonlyMap<string, readonly Pick<RunRecord, "id" | "state" | "parentId">[]>;

/** The runs among `runs` that each run spawned. */
export function childIndex(runs: readonly Pick<RunRecord, "id" | "state" | "parentId">[]): ChildIndex {
	const index = new Map<string, Pick<RunRecord, "id" | "state" | "parentId">[]>();
	for (const run of runs) {
		if (!run.parentId) continue;
		const siblings = index.get(run.parentId);
		if (siblings) siblings.push(run);
		else index.set(run.parentId, [run]);
	}
	return index;
}

/** `3 below: 2 running, 1 queued` for a run with descendants in `index` (the runs' {@link childIndex}); null without any. */
export function collapsedCounts(run: Pick<RunRecord, "id">, index: ChildIndex): string | null {
	const below: Pick<RunRecord, "state">[] = [];
	const frontier = [run.id];
	const seen = new Set(frontier);
	for (let parent = frontier.pop(); parent !== undefined; parent = frontier.pop()) {
		for (const child of index.get(parent) ?? []) {
			if (seen.has(child.id)) continue;
			seen.add(child.id);
			below.push(child);
			frontier.push(child.id);
		}
	}
	if (below.length === 0) return null;
	const count = (state: string) => below.filter((child) => child.state === state).length;
	const parts = [["running", count("running")], ["queued", count("queued")]].filter(([, n]) => (n as number) > 0).map(([state, n]) => `${n} ${state}`);
	return `${below.length} below${parts.length ? `: ${parts.join(", ")}` : ""}`;
}
