/**
 * What a cloned repository's files can make the CLI show (ADR 0060–0062), through the CLI's `main`:
 * a symlinked key never reaches `list`, `check`, `explain` or `prompt`; agent files named after
 * `Object.prototype` members are ordinary types; a README in `.pi/agents/` is skipped and said so.
 */
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cadreInTree, cliTree } from "../support/cli.ts";

const SECRET = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\nTOPSECRETLASTLINE\n-----END OPENSSH PRIVATE KEY-----\n";

const MODELS = {
	providers: {
		test: { baseUrl: "http://127.0.0.1:9/v1", api: "openai-completions", apiKey: "none", models: [{ id: "parent-model", reasoning: true }] },
	},
};

interface ListJson {
	entries: { name: string; kind: string; enabled: boolean; description: string; path: string }[];
	skipped: { path: string; reason: string }[];
	diagnostics: { file: string; line: number; column: number; code: string; severity: string; message: string }[];
}

/** A cloned repository (`project/`, with `.git` and `.pi/agents`) beside the user's home, which holds a key. */
function repo(files: Record<string, string> = {}) {
	const root = cliTree("cadre-untrusted-", MODELS, { "home/.ssh/id_rsa": SECRET, ...files });
	const dir = join(root, "project");
	mkdirSync(join(dir, ".git"), { recursive: true });
	mkdirSync(join(dir, ".pi/agents"), { recursive: true });
	const cadre = (args: string[]) => cadreInTree(root, args);
	const json = async <T>(args: string[]) => {
		const run = await cadre([...args, "--json"]);
		return { ...run, json: JSON.parse(run.out) as T };
	};
	return { root, dir, cadre, json, secret: join(root, "home/.ssh/id_rsa") };
}

const leaks = (text: string) => text.includes("TOPSECRET") || text.includes("b3BlbnNzaC1rZXkt") || text.includes("PRIVATE KEY");

describe("a symlinked key in .pi/agents", () => {
	it("is refused by check and never shown by list, explain or prompt", async () => {
		const p = repo();
		symlinkSync(p.secret, join(p.dir, ".pi/agents/helper.md"));
		symlinkSync(p.secret, join(p.dir, "AGENTS.md"));
		const list = await p.json<ListJson>(["list"]);
		expect(list.json.entries.map((e) => e.name)).not.toContain("helper");
		expect(list.json.diagnostics.map((d) => `${d.file}:${d.line}:${d.column} ${d.code}`)).toEqual([".pi/agents/helper.md:1:1 path-escape"]);
		const check = await p.cadre(["check"]);
		expect(check.code).toBe(1);
		expect(check.out).toContain(".pi/agents/helper.md:1:1 error path-escape");
		const explain = await p.cadre(["explain", "helper", "--parent-model", "test/parent-model"]);
		expect(explain.code).not.toBe(0);
		const prompt = await p.json<{ text: string; diagnostics: { file: string; code: string }[] }>(["prompt", "general-purpose", "--parent-model", "test/parent-model"]);
		expect(prompt.json.diagnostics.map((d) => `${d.file} ${d.code}`)).toContain(`${join(p.dir, "AGENTS.md")} path-escape`);
		for (const run of [list, check, explain, prompt]) expect(leaks(run.out + run.err)).toBe(false);
	});
});

describe("agent files named after Object.prototype members", () => {
	it("are listed enabled, toggled by settings and explained like any other name", async () => {
		const p = repo({
			"project/.pi/agents/constructor.md": "---\ndescription: Builds things\n---\nBuild.\n",
			"project/.pi/agents/__proto__.md": "---\ndescription: Proto helper\n---\nProto.\n",
			"project/.pi/agents/toString.md": "---\ndescription: Stringer\n---\nString.\n",
			"project/.pi/subagents.json": '{"toggle": {"tostring": false}}',
		});
		const list = await p.json<ListJson>(["list"]);
		expect(list.json.diagnostics).toEqual([]);
		const rows = new Map(list.json.entries.map((e) => [e.name, e]));
		expect(["constructor", "__proto__", "toString"].map((name) => rows.get(name)?.enabled)).toEqual([true, true, false]);
		const explain = await p.json<{ refused: unknown; config: { standingInstructions: string } | null }>(["explain", "__proto__", "--parent-model", "test/parent-model"]);
		expect(explain.json.refused).toBeNull();
		expect(explain.json.config?.standingInstructions).toBe("Proto.");
	});
});

describe("strays in .pi/agents", () => {
	it("skips a README (any case) and says so; ignores a .toml with a warning", async () => {
		const p = repo({
			"project/.pi/agents/README.md": "# Our agents\n\nCopied from the team repository.\n",
			"project/.pi/agents/scout.md": "Scout.\n",
			"project/.pi/agents/scout.toml": 'description = "Scout"\n',
			"agent/agents/readme.MD": "# My agents\n",
		});
		const list = await p.json<ListJson>(["list"]);
		expect(list.json.entries.map((e) => e.name)).not.toContain("README");
		expect(list.json.entries.map((e) => e.name.toLowerCase())).not.toContain("readme");
		expect(list.json.skipped.map((s) => s.path)).toEqual([".pi/agents/README.md", join(p.root, "agent/agents/readme.MD")]);
		expect(list.json.diagnostics.map((d) => `${d.file}:${d.line}:${d.column} ${d.severity} ${d.code}`)).toEqual([
			".pi/agents/scout.toml:1:1 warning ignored-file",
		]);
		const human = await p.cadre(["list"]);
		expect(human.out).toMatch(/skipped.*\.pi\/agents\/README\.md/);
	});
});
