/** A simulated isolated child: a worktree for the run, `files` written there, the run finished. */
import { join } from "node:path";
import { createWorktree } from "../../../src/isolation/worktree.ts";
import { finishWorktree, type WorktreeFinishReport } from "../../../src/isolation/worktree-finish.ts";
import { noFallback, type TestRepo, writeAt } from "./repo.ts";

export async function childRun(repo: TestRepo, runId: string, files: Record<string, string>): Promise<WorktreeFinishReport> {
	const outcome = await createWorktree({ runId, parentCwd: repo.root, agentDir: repo.agentDir, settings: noFallback });
	if (outcome.kind !== "worktree") throw new Error(JSON.stringify(outcome));
	for (const [path, text] of Object.entries(files)) writeAt(join(outcome.handle.worktreePath, path), text);
	return finishWorktree(outcome.handle, { type: "worker", description: `run ${runId}`, status: "completed" });
}
