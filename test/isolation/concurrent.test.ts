/**
 * Sibling spawns isolate at the same moment: every one gets its own worktree and branch, and each
 * child's work lands on its own branch.
 */
import { join } from "node:path";
import { expect, it } from "vitest";
import { createWorktree, finishWorktree } from "../../src/isolation/worktree.ts";
import { git, makeRepo, noFallback, writeAt } from "./support/repo.ts";

it("creates and finishes six worktrees concurrently without interfering", async () => {
	const repo = makeRepo({ "a.txt": "one\n" });
	const ids = ["c1", "c2", "c3", "c4", "c5", "c6"];
	const outcomes = await Promise.all(
		ids.map((runId) => createWorktree({ runId, parentCwd: repo.root, agentDir: repo.agentDir, settings: noFallback })),
	);
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
	expect(git(repo.root, "worktree", "list", "--porcelain").match(/^worktree /gm)?.length).toBe(1);
	expect(repo.read("a.txt")).toBe("one\n");
});
