/**
 * What a cloned repository's files can make the CLI show (ADR 0060–0062), through the real bin:
 * a symlinked key never reaches `list`, `check`, `explain` or `prompt`; agent files named after
 * `Object.prototype` members are ordinary types; a README in `.pi/agents/` is skipped and said so.
 */
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli, runCliJson } from "../support/cli.ts";

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

function repo(files: Record<string, string> = {}) {
	const root = mkdtempSync(join(process.env.TMPDIR as string, "cadre-untrusted-"));
	const all: Record<string, string> = { "home/.ssh/id_rsa": SECRET, "agent/models.json": JSON.stringify(MODELS), ...files };
	for (const [path, text] of Object.entries(all)) {
		mkdirSync(dirname(join(root, path)), { recursive: true });
		writeFileSync(join(root, path), text);
	}
	const dir = join(root, "project");
	mkdirSync(join(dir, ".git"), { recursive: true });
	mkdirSync(join(dir, ".pi/agents"), { recursive: true });
	const env = { PI_CODING_AGENT_DIR: join(root, "agent"), HOME: join(root, "home") };
	return { root, dir, env, secret: join(root, "home/.ssh/id_rsa") };
}

const leaks = (text: string) => text.includes("TOPSECRET") || text.includes("b3BlbnNzaC1rZXkt") || text.includes("PRIVATE KEY");

describe("a symlinked key in .pi/agents", () => {
	it("is refused by check and never shown by list, explain or prompt", () => {
		const p = repo();
		symlinkSync(p.secret, join(p.dir, ".pi/agents/helper.md"));
		symlinkSync(p.secret, join(p.dir, "AGENTS.md"));
		const list = runCliJson<ListJson>(["list", "--cwd", p.dir], { env: p.env });
		expect(list.json.entries.map((e) => e.name)).not.toContain("helper");
		expect(list.json.diagnostics.map((d) => `${d.file}:${d.line}:${d.column} ${d.code}`)).toEqual([".pi/agents/helper.md:1:1 path-escape"]);
		const check = runCli(["check", "--cwd", p.dir], { env: p.env });
		expect(check.code).toBe(1);
		expect(check.stdout).toContain(".pi/agents/helper.md:1:1 error path-escape");
		const explain = runCli(["explain", "helper", "--cwd", p.dir, "--parent-model", "test/parent-model"], { env: p.env });
		expect(explain.code).not.toBe(0);
		const prompt = runCliJson<{ text: string; diagnostics: { file: string; code: string }[] }>(
			["prompt", "general-purpose", "--cwd", p.dir, "--parent-model", "test/parent-model"],
			{ env: p.env },
		);
		expect(prompt.json.diagnostics.map((d) => `${d.file} ${d.code}`)).toContain(`${join(p.dir, "AGENTS.md")} path-escape`);
		for (const run of [list, check, explain, prompt]) expect(leaks(run.stdout + run.stderr)).toBe(false);
	});
});

describe("agent files named after Object.prototype members", () => {
	it("are listed enabled, toggled by settings and explained like any other name", () => {
		const p = repo({
			"project/.pi/agents/constructor.md": "---\ndescription: Builds things\n---\nBuild.\n",
			"project/.pi/agents/__proto__.md": "---\ndescription: Proto helper\n---\nProto.\n",
			"project/.pi/agents/toString.md": "---\ndescription: Stringer\n---\nString.\n",
			"project/.pi/subagents.json": '{"toggle": {"tostring": false}}',
		});
		const list = runCliJson<ListJson>(["list", "--cwd", p.dir], { env: p.env });
		expect(list.json.diagnostics).toEqual([]);
		const rows = new Map(list.json.entries.map((e) => [e.name, e]));
		expect(["constructor", "__proto__", "toString"].map((name) => rows.get(name)?.enabled)).toEqual([true, true, false]);
		const explain = runCliJson<{ refused: unknown; config: { standingInstructions: string } | null }>(
			["explain", "__proto__", "--cwd", p.dir, "--parent-model", "test/parent-model"],
			{ env: p.env },
		);
		expect(explain.json.refused).toBeNull();
		expect(explain.json.config?.standingInstructions).toBe("Proto.");
	});
});

describe("strays in .pi/agents", () => {
	it("skips a README (any case) and says so; ignores a .toml with a warning", () => {
		const p = repo({
			"project/.pi/agents/README.md": "# Our agents\n\nCopied from the team repository.\n",
			"project/.pi/agents/scout.md": "Scout.\n",
			"project/.pi/agents/scout.toml": 'description = "Scout"\n',
			"agent/agents/readme.MD": "# My agents\n",
		});
		const list = runCliJson<ListJson>(["list", "--cwd", p.dir], { env: p.env });
		expect(list.json.entries.map((e) => e.name)).not.toContain("README");
		expect(list.json.entries.map((e) => e.name.toLowerCase())).not.toContain("readme");
		expect(list.json.skipped.map((s) => s.path)).toEqual([".pi/agents/README.md", join(p.root, "agent/agents/readme.MD")]);
		expect(list.json.diagnostics.map((d) => `${d.file}:${d.line}:${d.column} ${d.severity} ${d.code}`)).toEqual([
			".pi/agents/scout.toml:1:1 warning ignored-file",
		]);
		const human = runCli(["list", "--cwd", p.dir], { env: p.env });
		expect(human.stdout).toMatch(/skipped.*\.pi\/agents\/README\.md/);
	});
});
