/**
 * A second process with a live run working inside a directory (ADR 0116): the run goes through
 * cadre's own isolation hooks (`prepare` of a run whose isolation is `none` and whose cwd is `dir`),
 * as a pi started inside a worktree, or a run with a `cwd` there, would. Prints `ready` once its use
 * record is written (after `prepare`, `ready`: what the child's first tool call waits for), then
 * waits until it is killed (or, with `finish`, runs the hooks' finish on SIGTERM and exits).
 *
 * Usage: node live-user.ts <parent-cwd> <agent-dir> <run-id> <dir>
 */
import { createWorktreeIsolation } from "../../../src/isolation/worktree-hooks.ts";
import type { RunRecord } from "../../../src/runtime/runs.ts";

const [parentCwd, agentDir, runId, dir] = process.argv.slice(2) as [string, string, string, string];
const hooks = createWorktreeIsolation({
	agentDir,
	parentCwd,
	settings: () => ({ baseDir: null, allowSharedFallback: false, pool: { size: 0 } }),
	childCwd: () => dir,
	touchedByParent: () => new Set(),
});
const run = { id: runId, config: { isolation: "none" }, resumeOf: null, createdAt: Date.now() } as unknown as RunRecord;
await hooks.prepare(run);
// What a child's first tool call waits for: the use record is written off the spawn path.
await hooks.ready?.(run);
process.on("SIGTERM", () => {
	void hooks.finish(run, "completed").then(() => process.exit(0));
});
process.stdout.write("ready\n");
setInterval(() => {}, 60_000);
