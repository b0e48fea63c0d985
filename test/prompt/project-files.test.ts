/**
 * Finding context files the way pi 1.6 does (agent dir first, then outermost ancestor to cwd, one
 * file per directory, nested linked worktrees shadowing the main repository's file) and reading
 * the git branch from HEAD without a subprocess.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { findContextFiles, readGitBranch } from "../../src/prompt/project-files.ts";
import { toolGuidanceLines } from "../../src/prompt/tool-guidance.ts";

function tree(files: Record<string, string>): string {
	const root = mkdtempSync(join(tmpdir(), "cadre-prompt-"));
	for (const [rel, text] of Object.entries(files)) {
		mkdirSync(join(root, rel, ".."), { recursive: true });
		writeFileSync(join(root, rel), text);
	}
	return root;
}

describe("findContextFiles", () => {
	it("returns the agent dir's file, then ancestors outermost first, one per directory by pi's name order", () => {
		const root = tree({
			"agent/AGENTS.md": "global",
			"repo/CLAUDE.md": "repo claude",
			"repo/AGENTS.md": "repo agents",
			"repo/pkg/AGENTS.override.md": "override",
			"repo/pkg/AGENTS.md": "shadowed by override",
			"repo/pkg/src/.keep": "",
		});
		const files = findContextFiles(join(root, "repo/pkg/src"), join(root, "agent"));
		expect(files.map((f) => [f.path.slice(root.length), f.content])).toEqual([
			["/agent/AGENTS.md", "global"],
			["/repo/AGENTS.md", "repo agents"],
			["/repo/pkg/AGENTS.override.md", "override"],
		]);
	});

	it("strips a byte-order mark and finds nothing where there is nothing", () => {
		const root = tree({ "p/AGENTS.md": "\uFEFFhello", "agent/.keep": "" });
		expect(findContextFiles(join(root, "p"), join(root, "agent")).map((f) => f.content)).toEqual(["hello"]);
		expect(findContextFiles(join(root, "agent"), join(root, "missing"))).toEqual([]);
	});

	it("lets a linked worktree nested in its main repository shadow the main repository's file", () => {
		const root = tree({
			"main/.git/HEAD": "ref: refs/heads/main\n",
			"main/.git/worktrees/r1/HEAD": "ref: refs/heads/cadre/r1\n",
			"main/.git/worktrees/r1/commondir": "../..\n",
			"main/AGENTS.md": "main copy",
			"main/.cadre/worktrees/r1/AGENTS.md": "worktree copy",
		});
		writeFileSync(join(root, "main/.cadre/worktrees/r1/.git"), `gitdir: ${join(root, "main/.git/worktrees/r1")}\n`);
		const files = findContextFiles(join(root, "main/.cadre/worktrees/r1"), join(root, "agent"));
		expect(files.map((f) => f.content)).toEqual(["worktree copy"]);
		expect(readGitBranch(join(root, "main/.cadre/worktrees/r1"))).toBe("cadre/r1");
	});
});

describe("readGitBranch", () => {
	it("reads a branch, a detached HEAD, and nothing outside a repository", () => {
		const root = tree({
			"a/.git/HEAD": "ref: refs/heads/feature/x\n",
			"a/sub/.keep": "",
			"b/.git/HEAD": "0123456789abcdef0123456789abcdef01234567\n",
			"c/.keep": "",
		});
		expect(readGitBranch(join(root, "a/sub"))).toBe("feature/x");
		expect(readGitBranch(join(root, "b"))).toBe("HEAD (detached at 0123456)");
		expect(readGitBranch(join(root, "c"))).toBeNull();
	});
});

describe("toolGuidanceLines", () => {
	const source = {
		snippets: { read: "Read file contents", bash: "Execute bash commands", grep: "Search" },
		guidelines: { read: ["Use read to examine files instead of cat or sed."], bash: ["Inspect PI_* variables."] },
	};

	it("lists only the child's tools with pi's snippets and rules", () => {
		expect(toolGuidanceLines(["read", "bash", "custom"], source)).toEqual([
			"Your tools:",
			"- read: Read file contents",
			"- bash: Execute bash commands",
			"- also: custom",
			"",
			"Guidelines:",
			"- Use bash for file operations like ls, rg, find",
			"- Use read to examine files instead of cat or sed.",
			"- Inspect PI_* variables.",
			"- Be concise in your responses",
			"- Show file paths clearly when working with files",
		]);
		expect(toolGuidanceLines(["read", "grep"], source).join("\n")).not.toContain("bash");
	});

	it("says so when the child has no tools", () => {
		expect(toolGuidanceLines([], source)).toEqual(["You have no tools in this session."]);
	});
});
