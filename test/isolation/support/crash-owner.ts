/**
 * A stand-in for a parent `pi` that crashes mid-run: creates a run's worktree through cadre's own
 * `createWorktree` (so the lock names this process as its owner), writes a file in it the way a
 * child would, prints the handle as one JSON line, then waits until it is killed.
 *
 * Usage: node crash-owner.ts <repo-root> <agent-dir> <run-id> <file> <text>
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createWorktree } from "../../../src/isolation/worktree.ts";

const [root, agentDir, runId, file, text] = process.argv.slice(2) as [string, string, string, string, string];
const outcome = await createWorktree({ runId, parentCwd: root, agentDir, settings: { baseDir: null, allowSharedFallback: false, pool: { size: 0 } } });
if (outcome.kind !== "worktree") {
	process.stderr.write(`${JSON.stringify(outcome)}\n`);
	process.exit(1);
}
writeFileSync(join(outcome.handle.worktreePath, file), text);
process.stdout.write(`${JSON.stringify({ worktreePath: outcome.handle.worktreePath, pid: process.pid })}\n`);
setInterval(() => {}, 60_000);
