/**
 * Sibling spawns isolate at the same moment: every one gets its own worktree and branch, and each
 * child's work lands on its own branch.
 */
import { join } from "node:path";
import { expect, it } from "vitest";
import { createWorktree } from "../../src/isolation/worktree.ts";
import { finishWorktree } from "../../src/isolation/worktree-finish.ts";
import { poolSettled } from "../../src/isolation/worktree-pool.ts";
import { git, makeRepo, noFallback, pooled, writeAt } from "./support/repo.ts";

it.each([
	["without a pool", noFallback, 0],
	["with a pool of two", pooled(2), 2],
])("creates and finishes six worktrees concurrently without interfering, %s", async (_, settings, size) => {
	const repo = makeRepo({ "a.txt": "one\n" });
	const ids = ["c1", "c2", "c3", "c4", "c5", "c6"];
	if (size > 0) {
		// fill the pool first, so some siblings get pooled worktrees and the rest new ones
		const warm = await createWorktree({ runId: "warm", parentCwd: repo.root, agentDir: repo.agentDir, settings });
		if (warm.kind !== "worktree") throw new Error(warm.kind);
		await finishWorktree(warm.handle, { type: "worker", description: "warm", status: "completed" });
		await poolSettled();
	}
	const outcomes = await Promise.all(
		ids.map((runId) => createWorktree({ runId, parentCwd: repo.root, agentDir: repo.agentDir, settings })),
	);
	if (size > 0) expect(outcomes.filter((o) => o.kind === "worktree" && o.handle.pooled).length).toBe(size);
	expect(outcomes.map((o) => o.kind)).toEqual(ids.map(() => "worktree"));
	const reports = await Promise.all(
		outcomes.map(async (outcome, index) => {
			if (outcome.kind !== "worktree") throw new Error(outcome.kind);
			writeAt(join(outcome.handle.worktreePath, "a.txt"), `child ${index}\n`);
			return finishWorktree(outcome.handle, { type: "worker", description: `sibling ${index}`, status: "completed" });
		}),
	);
	expect(reports.map((r) => r.error)).toEqual(ids.map(() => null));
	ids.forEach((id, index) => expect(git(repo.root, "show", `cadre/${id}:a.txt`)).toBe(`child ${index}`));
	await poolSettled();
	// the main worktree, and the pool's idle ones (full again)
	expect(git(repo.root, "worktree", "list", "--porcelain").match(/^worktree /gm)?.length).toBe(1 + size);
	expect(repo.read("a.txt")).toBe("one\n");
});
