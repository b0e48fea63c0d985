/**
 * Finding the agent dir and the project directory (spec 01): walk up to the git root, only cwd
 * outside a repository, never `$HOME/.pi` or a `.pi` holding the agent dir; and display paths.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { agentDirFrom, displayPath, findProjectDir } from "../../src/files/discovery.ts";

function tree(dirs: string[], files: string[] = []): string {
	const root = mkdtempSync(join(process.env.TMPDIR ?? tmpdir(), "cadre-disc-"));
	for (const d of dirs) mkdirSync(join(root, d), { recursive: true });
	for (const f of files) writeFileSync(join(root, f), "gitdir: elsewhere\n");
	return root;
}

describe("agentDirFrom", () => {
	it("uses PI_CODING_AGENT_DIR when set, else <home>/.pi/agent", () => {
		expect(agentDirFrom({ PI_CODING_AGENT_DIR: "/x/agent" }, "/home/u")).toBe("/x/agent");
		expect(agentDirFrom({ PI_CODING_AGENT_DIR: "~/pi" }, "/home/u")).toBe("/home/u/pi");
		expect(agentDirFrom({ PI_CODING_AGENT_DIR: "~" }, "/home/u")).toBe("/home/u");
		expect(agentDirFrom({}, "/home/u")).toBe("/home/u/.pi/agent");
		expect(agentDirFrom({ PI_CODING_AGENT_DIR: "" }, "/home/u")).toBe("/home/u/.pi/agent");
	});
});

describe("findProjectDir", () => {
	it("walks from a subdirectory up to the nearest .pi inside the repository", () => {
		const root = tree(["repo/.git", "repo/.pi", "repo/src/deep"]);
		expect(findProjectDir(join(root, "repo/src/deep"), join(root, "agent"), join(root, "home"))).toBe(join(root, "repo"));
	});

	it("takes the nearest .pi when several exist", () => {
		const root = tree(["repo/.git", "repo/.pi", "repo/pkg/.pi", "repo/pkg/src"]);
		expect(findProjectDir(join(root, "repo/pkg/src"), join(root, "agent"), join(root, "home"))).toBe(join(root, "repo/pkg"));
	});

	it("stops at the git root (a .git file counts too)", () => {
		const root = tree([".pi", "repo/src"], ["repo/.git"]);
		expect(findProjectDir(join(root, "repo/src"), join(root, "agent"), join(root, "home"))).toBeNull();
	});

	it("outside a repository checks only the working directory", () => {
		const root = tree([".pi", "sub"]);
		expect(findProjectDir(join(root, "sub"), join(root, "agent"), join(root, "home"))).toBeNull();
		expect(findProjectDir(root, join(root, "agent"), join(root, "home"))).toBe(root);
	});

	it("never takes $HOME/.pi or a .pi that contains the agent dir", () => {
		const root = tree(["home/.pi/agent", "home/work/.git", "other/.pi/agent"]);
		const home = join(root, "home");
		expect(findProjectDir(home, join(home, ".pi/agent"), home)).toBeNull();
		expect(findProjectDir(join(root, "other"), join(root, "other/.pi/agent"), home)).toBeNull();
		expect(findProjectDir(join(home, "work"), join(root, "x"), home)).toBeNull();
	});
});

describe("displayPath", () => {
	it("is relative inside the project and absolute outside", () => {
		expect(displayPath("/p/.pi/agents/x.md", "/p")).toBe(".pi/agents/x.md");
		expect(displayPath("/q/agents/x.md", "/p")).toBe("/q/agents/x.md");
		expect(displayPath("/p", "/p")).toBe(".");
		expect(displayPath("/pp/x", "/p")).toBe("/pp/x");
		expect(displayPath("/q/x", null)).toBe("/q/x");
	});
});
