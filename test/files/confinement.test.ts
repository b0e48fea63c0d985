/**
 * Every file cadre reads from a project must have its real path inside the project (ADR 0060):
 * symlinked entry files, kind directories, `.pi` itself and `.pi/subagents.json` that point out are
 * `path-escape` and nothing of them is read. The user's own agent dir keeps its symlinks.
 */
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readConfined } from "../../src/files/read-confined.ts";
import { findContextFiles } from "../../src/prompt/project-files.ts";
import type { Diagnostic } from "../../src/core/diagnostics.ts";
import { layout, where } from "./fixture.ts";

const SECRET = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\nTOPSECRETLASTLINE\n-----END OPENSSH PRIVATE KEY-----\n";

/** A layout with a secret outside the project (in the "home"), as `~/.ssh/id_rsa` would be. */
function withSecret(files: Record<string, string> = {}) {
	const l = layout({ "home/.ssh/id_rsa": SECRET, ...files });
	return { ...l, secret: join(l.home, ".ssh/id_rsa") };
}

function mentionsSecret(value: unknown): boolean {
	const text = JSON.stringify(value, (_k, v) => (v instanceof Map ? [...v.values()] : v));
	return text.includes("TOPSECRET") || text.includes("b3BlbnNzaC1rZXkt");
}

describe("project files are confined to the project by real path", () => {
	it("refuses a symlinked definition that points out of the project and reads nothing of it", () => {
		const l = withSecret();
		mkdirSync(join(l.project, ".pi/agents"), { recursive: true });
		symlinkSync(l.secret, join(l.project, ".pi/agents/helper.md"));
		const r = l.load();
		expect(r.definitions.has("helper")).toBe(false);
		expect(where(r)).toEqual([".pi/agents/helper.md:1:1 path-escape"]);
		const d = r.diagnostics[0] as Diagnostic;
		expect(d.severity).toBe("error");
		expect(d.message).toContain("leaves the project");
		expect(d.hint).toMatch(/inside the project/);
		expect(mentionsSecret(r)).toBe(false);
	});

	it("refuses symlinked roles and personas that point out", () => {
		const l = withSecret({ "project/.pi/agents/helper.md": "Helps.\n" });
		mkdirSync(join(l.project, ".pi/roles"), { recursive: true });
		mkdirSync(join(l.project, ".pi/personas"), { recursive: true });
		symlinkSync(l.secret, join(l.project, ".pi/roles/helper.md"));
		symlinkSync(l.secret, join(l.project, ".pi/personas/keys.toml"));
		const r = l.load();
		expect(r.roles.size).toBe(0);
		expect(r.personas.size).toBe(0);
		expect(where(r)).toEqual([".pi/personas/keys.toml:1:1 path-escape", ".pi/roles/helper.md:1:1 path-escape"]);
		expect(mentionsSecret(r)).toBe(false);
	});

	it("refuses a symlinked .pi/agents directory that points out, once, for the directory", () => {
		const l = withSecret({ "outside/agents/helper.md": "---\ndescription: from outside\n---\nOutside.\n" });
		mkdirSync(join(l.project, ".pi"), { recursive: true });
		symlinkSync(join(l.root, "outside/agents"), join(l.project, ".pi/agents"));
		const r = l.load();
		expect(r.definitions.has("helper")).toBe(false);
		expect(where(r)).toEqual([".pi/agents:1:1 path-escape"]);
		expect(r.diagnostics[0]?.message).toContain("directory");
	});

	it("refuses a .pi that is a symlink out of the project, once", () => {
		const l = withSecret({
			"outside/pi/agents/helper.md": "Outside.\n",
			"outside/pi/subagents.json": '{"maxConcurrent": 9}',
		});
		symlinkSync(join(l.root, "outside/pi"), join(l.project, ".pi"));
		const r = l.load();
		expect(r.definitions.has("helper")).toBe(false);
		expect(r.settings.maxConcurrent.value).toBe(4);
		expect(where(r)).toEqual([".pi:1:1 path-escape"]);
	});

	it("refuses a symlinked .pi/subagents.json that points out (nothing of it applies)", () => {
		const l = withSecret({ "outside/settings.json": '{"maxConcurrent": 9, "toggle": {"explore": false}}' });
		mkdirSync(join(l.project, ".pi"), { recursive: true });
		symlinkSync(join(l.root, "outside/settings.json"), join(l.project, ".pi/subagents.json"));
		const r = l.load();
		expect(r.settings.maxConcurrent.value).toBe(4);
		expect(r.settings.toggle.explore).toBeUndefined();
		expect(r.settings.files).toEqual([]);
		expect(where(r)).toEqual([".pi/subagents.json:1:1 path-escape"]);
	});

	it("keeps symlinks that stay inside the project", () => {
		const l = layout({ "project/common/helper.md": "---\ndescription: Shared helper\n---\nHelps.\n" });
		mkdirSync(join(l.project, ".pi/agents"), { recursive: true });
		symlinkSync(join(l.project, "common/helper.md"), join(l.project, ".pi/agents/helper.md"));
		symlinkSync("../common", join(l.project, ".pi/roles"));
		const r = l.load();
		expect(r.diagnostics).toEqual([]);
		expect(r.definitions.get("helper")?.keys.description?.value).toBe("Shared helper");
	});
});

describe("the user's agent dir keeps its symlinks", () => {
	it("loads definitions symlinked from a dotfiles repository, and a symlinked agents directory", () => {
		const l = layout({
			"dotfiles/pi/agents/scout.md": "---\ndescription: Scout from dotfiles\n---\nScout.\n",
			"dotfiles/pi/personas/terse.md": "Be terse.\n",
			"dotfiles/single/solo.md": "---\ndescription: Solo\n---\nSolo.\n",
		});
		symlinkSync(join(l.root, "dotfiles/pi/agents"), join(l.agent, "agents"));
		mkdirSync(join(l.agent, "personas"));
		symlinkSync(join(l.root, "dotfiles/pi/personas/terse.md"), join(l.agent, "personas/terse.md"));
		writeFileSync(join(l.agent, "subagents.json.real"), '{"maxConcurrent": 7}');
		symlinkSync(join(l.agent, "subagents.json.real"), join(l.agent, "subagents.json"));
		const r = l.load();
		expect(r.diagnostics).toEqual([]);
		expect(r.definitions.get("scout")?.keys.description?.value).toBe("Scout from dotfiles");
		expect(r.personas.get("terse")?.body?.value).toBe("Be terse.");
		expect(r.settings.maxConcurrent.value).toBe(7);
	});

	it("follows a symlinked folder inside the agent dir for prompt_file, but a written path must stay inside", () => {
		const l = layout({
			"dotfiles/texts/scout-role.md": "Role text from dotfiles.\n",
			"agent/agents/scout.md": "Scout.\n",
			"agent/roles/scout.md": "---\nprompt_file: ../texts/scout-role.md\n---\n",
			"agent/personas/p.md": "---\ninstructions_file: ../../project/x.md\n---\nBe p.\n",
			"project/x.md": "x",
		});
		symlinkSync(join(l.root, "dotfiles/texts"), join(l.agent, "texts"));
		const r = l.load();
		expect(where(r)).toEqual([`${join(l.agent, "personas/p.md")}:2:20 path-escape`]);
		const ref = r.roles.get("scout")?.keys.prompt_file?.value;
		expect(ref && readConfined(ref)).toEqual({ ok: true, text: "Role text from dotfiles." });
	});
});

describe("project context files", () => {
	it("leaves out a project AGENTS.md that is a symlink out of the repository, with a diagnostic", () => {
		const l = withSecret({ "agent/AGENTS.md": "Global rules.\n" });
		symlinkSync(l.secret, join(l.project, "AGENTS.md"));
		const problems: Diagnostic[] = [];
		const files = findContextFiles(l.project, l.agent, problems);
		expect(files.map((f) => f.content)).toEqual(["Global rules.\n"]);
		expect(problems.map((d) => `${d.file}:${d.line}:${d.column} ${d.code}`)).toEqual([`${join(l.project, "AGENTS.md")}:1:1 path-escape`]);
		expect(mentionsSecret(files)).toBe(false);
	});

	it("keeps a symlinked AGENTS.md in the agent dir and one that stays inside the repository", () => {
		const l = layout({ "dotfiles/AGENTS.md": "Global from dotfiles.\n", "project/docs/rules.md": "Repo rules.\n" });
		symlinkSync(join(l.root, "dotfiles/AGENTS.md"), join(l.agent, "AGENTS.md"));
		symlinkSync("docs/rules.md", join(l.project, "CLAUDE.md"));
		const problems: Diagnostic[] = [];
		expect(findContextFiles(l.project, l.agent, problems).map((f) => f.content)).toEqual(["Global from dotfiles.\n", "Repo rules.\n"]);
		expect(problems).toEqual([]);
	});
});
