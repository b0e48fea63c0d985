/**
 * Worktree isolation plugged into a real run: the child works in its own worktree, the parent's
 * tree stays untouched, and the result carries the isolation report (branch, commit).
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createParent, fauxAssistantMessage, fauxToolCall, type Parent, toolResults } from "./harness.ts";

let parent: Parent | null = null;
afterEach(() => {
	parent?.dispose();
	parent = null;
});

describe("isolation: worktree in a run", () => {
	it("runs the child in a worktree and reports its branch", async () => {
		for (const [key, value] of Object.entries({ GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" })) process.env[key] = value;
		const repo = mkdtempSync(join(process.env.TMPDIR ?? "/tmp", "repo-"));
		execFileSync("git", ["init", "-q", "-b", "main"], { cwd: repo });
		writeFileSync(join(repo, "a.txt"), "a\n");
		execFileSync("git", ["add", "."], { cwd: repo });
		execFileSync("git", ["commit", "-q", "-m", "init"], { cwd: repo });
		let childCwd = "";
		parent = await createParent({
			cwd: repo,
			script: (turn) => {
				if (turn.agent === "general-purpose") {
					childCwd = /Working directory: (\S+)/.exec(turn.system)?.[1] ?? /<cwd>\n(.*)\n<\/cwd>/.exec(turn.system)?.[1] ?? "";
					if (turn.step === 0) return fauxAssistantMessage([fauxToolCall("write", { path: "b.txt", content: "from the child" })], { stopReason: "toolUse" });
					return fauxAssistantMessage("wrote b.txt");
				}
				return turn.step === 0
					? fauxAssistantMessage([fauxToolCall("subagent", { prompt: "write b.txt", description: "write a file", isolation: "worktree" })], { stopReason: "toolUse" })
					: fauxAssistantMessage("ok");
			},
		});
		await parent.session.prompt("go");
		const [result] = toolResults(parent.session, "subagent");
		const details = result?.details as { status: string; isolation: { isolation: string; branch: string } | null };
		expect(result?.isError).toBe(false);
		expect(details.status).toBe("completed");
		expect(details.isolation?.isolation).toBe("worktree");
		expect(details.isolation?.branch).toMatch(/^cadre\//);
		expect(existsSync(join(repo, "b.txt"))).toBe(false);
		expect(childCwd).not.toBe(repo);
		const files = execFileSync("git", ["show", "--name-only", "--format=", details.isolation?.branch ?? "HEAD"], { cwd: repo, encoding: "utf8" });
		expect(files).toContain("b.txt");
	});
});
