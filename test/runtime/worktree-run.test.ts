/**
 * Worktree isolation plugged into a real run: the child works in its own worktree, the parent's
 * tree stays untouched, the result carries the isolation report (branch, commit), and
 * `/subagents worktrees` lists and applies the run's branch.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { commandOutput, createParent, fauxAssistantMessage, fauxToolCall, type Parent, toolResults } from "./harness.ts";

let parent: Parent | null = null;
afterEach(() => {
	parent?.dispose();
	parent = null;
});

/** A repository with one commit, and a parent whose general-purpose child writes b.txt in a worktree. */
async function runWorktreeChild(
	beforePrompt: (parent: Parent) => void = () => {},
): Promise<{ repo: string; childCwd: string; details: { id: string; status: string; isolation: { isolation: string; branch: string; worktreePath?: string } | null }; isError: boolean | undefined }> {
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
	beforePrompt(parent);
	await parent.session.prompt("go");
	const [result] = toolResults(parent.session, "subagent");
	const details = result?.details as { id: string; status: string; isolation: { isolation: string; branch: string; worktreePath?: string } | null };
	return { repo, childCwd, details, isError: result?.isError };
}

/** Runs a parent command and returns what it printed. */
const command = (text: string) => commandOutput(parent, text);

describe("isolation: worktree in a run", () => {
	it("runs the child in a worktree and reports its branch", async () => {
		const { repo, childCwd, details, isError } = await runWorktreeChild();
		expect(isError).toBe(false);
		expect(details.status).toBe("completed");
		expect(details.isolation?.isolation).toBe("worktree");
		expect(details.isolation?.branch).toMatch(/^cadre\//);
		expect(existsSync(join(repo, "b.txt"))).toBe(false);
		expect(childCwd).not.toBe(repo);
		const files = execFileSync("git", ["show", "--name-only", "--format=", details.isolation?.branch ?? "HEAD"], { cwd: repo, encoding: "utf8" });
		expect(files).toContain("b.txt");
		// an isolated run's receipt is its worktree's diff (issue 23)
		const receipt = parent?.service().get(details.id)?.receipt;
		expect(receipt).toMatchObject({ filesFrom: "worktree-diff", files: [{ path: "b.txt", added: 1, removed: 0 }], toolUses: { write: 1 } });
	});

	it("takes settings worktree.baseDir as the files say at the spawn (written after the parent started)", async () => {
		const baseDir = realpathSync(mkdtempSync(join(process.env.TMPDIR ?? "/tmp", "worktrees-")));
		const { details } = await runWorktreeChild((started) => writeFileSync(join(started.agentDir, "subagents.json"), JSON.stringify({ worktree: { baseDir } })));
		expect(details.status).toBe("completed");
		expect(details.isolation?.worktreePath?.startsWith(`${baseDir}/`)).toBe(true);
	});

	it("lists the run's branch under /subagents worktrees and applies it into the parent's branch", async () => {
		const { repo, details } = await runWorktreeChild();
		const id = (details.isolation?.branch ?? "").replace(/^cadre\//, "");
		expect(id).not.toBe("");
		const listing = await command("/subagents worktrees");
		expect(listing).toMatch(new RegExp(`^${id} +not applied`, "m"));
		const applied = await command(`/subagents worktrees apply ${id}`);
		expect(applied).toMatch(/Fast-forwarded|Merged/);
		expect(readFileSync(join(repo, "b.txt"), "utf8")).toBe("from the child");
		expect(await command("/subagents worktrees")).toMatch(new RegExp(`^${id} +\\S.* yes `, "m"));
	});
});
