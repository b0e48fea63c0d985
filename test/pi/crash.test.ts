/**
 * A parent `pi` killed (SIGKILL) while a worktree child runs, for real: the child's file survives in
 * its worktree, which is then *interrupted*; the next pi session started in the repository commits
 * it to `cadre/<id>` in the background and says so on stderr (issue 9 item 12).
 */
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { listCadreWorktrees } from "../../src/isolation/worktree-admin.ts";
import { piCommand, piWorld, runPi } from "../support/pi-cli.ts";
import { until } from "../runtime/harness.ts";
import { commitAll, git } from "../isolation/support/repo.ts";

const WRITTEN = "written before the crash\n";

/** The `crash.txt` a child has finished writing in any worktree of the world, or null. */
function childFile(agentDir: string): string | null {
	const base = join(agentDir, "cadre", "worktrees");
	if (!existsSync(base)) return null;
	for (const repo of readdirSync(base)) {
		for (const run of readdirSync(join(base, repo))) {
			const file = join(base, repo, run, "crash.txt");
			if (existsSync(file) && readFileSync(file, "utf8") === WRITTEN) return file;
		}
	}
	return null;
}

it("recovers the worktree of a child whose parent pi was killed, at the next session start", async () => {
	const world = piWorld("crash-");
	git(world.project, "init", "-q", "-b", "main");
	git(world.project, "config", "user.name", "Repo Owner");
	git(world.project, "config", "user.email", "owner@example.test");
	writeFileSync(join(world.project, "README.md"), "hello\n");
	commitAll(world.project, "initial");

	const command = piCommand(world, { fixture: "worktree-crash.ts", prompt: "write a file with a sub-agent" });
	const parent = spawn(command.bin, command.args, { cwd: command.cwd, env: command.env, stdio: "ignore" });
	const exited = new Promise((resolve) => parent.once("exit", resolve));
	try {
		await until(() => childFile(world.agentDir) !== null || parent.exitCode !== null, "the child's write", 45_000);
	} finally {
		parent.kill("SIGKILL");
		await exited;
	}
	const written = childFile(world.agentDir);
	expect(written).not.toBeNull();

	const listing = await listCadreWorktrees(world.project);
	if (!listing.ok) throw new Error(listing.message);
	expect(listing.entries).toHaveLength(1);
	const entry = listing.entries[0]!;
	expect(entry).toMatchObject({ locked: true, interrupted: true, uncommitted: ["crash.txt"], hasWork: false, applied: false });
	expect(entry.owner?.pid).toBe(parent.pid);

	const next = runPi(world, { fixture: "worktree-crash.ts", prompt: "hello" });
	expect(next.stdout).toContain("hello back");
	expect(next.stderr).toContain("cadre: recovered 1 interrupted sub-agent run");
	expect(next.stderr).toContain(`${entry.id}: committed its work to cadre/${entry.id}`);
	expect(next.status).toBe(0);
	expect(existsSync(written as string)).toBe(false);
	expect(git(world.project, "show", `cadre/${entry.id}:crash.txt`)).toBe(WRITTEN.trim());
	expect(git(world.project, "log", "-1", "--format=%s", `cadre/${entry.id}`)).toBe(`cadre: interrupted run ${entry.id}`);
}, 120_000);
