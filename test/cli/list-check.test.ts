/**
 * `cadre list` and `cadre check` through the real bin: JSON and human output, positioned
 * diagnostics, exit codes, strict mode, and proof that neither command loads pi's SDK.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { nodeBinary, REPO_ROOT, runCli, runCliJson, testModels } from "../support/cli.ts";
import { moduleLog } from "../support/module-log.ts";

interface ListJson {
	projectDir: string | null;
	entries: { name: string; kind: string; scope: string; path: string; enabled: boolean; description: string; shadows: { scope: string; path: string }[] }[];
	diagnostics: { file: string; line: number; column: number; code: string; severity: string; message: string }[];
}

interface CheckJson {
	ok: boolean;
	strict: boolean;
	errors: number;
	warnings: number;
	diagnostics: ListJson["diagnostics"];
}

function project(files: Record<string, string> = {}): { dir: string; env: Record<string, string> } {
	const root = mkdtempSync(join(process.env.TMPDIR ?? tmpdir(), "cadre-cli-"));
	const dir = join(root, "project");
	mkdirSync(join(dir, ".git"), { recursive: true });
	for (const [path, text] of Object.entries(files)) {
		mkdirSync(dirname(join(root, path)), { recursive: true });
		writeFileSync(join(root, path), text);
	}
	mkdirSync(join(root, "agent"), { recursive: true });
	mkdirSync(join(root, "home"), { recursive: true });
	// The catalog the fixtures' `test/…` models come from, unless a test writes its own.
	if (!("agent/models.json" in files)) writeFileSync(join(root, "agent/models.json"), JSON.stringify(testModels()));
	return { dir, env: { PI_CODING_AGENT_DIR: join(root, "agent"), HOME: join(root, "home") } };
}

const BROKEN = {
	"project/.pi/agents/typo.md": "---\ndescription: Typo\nmodel: test/model-a\nmax_turn: 3\n---\nHas a typo.\n",
	"project/.pi/agents/broken.md": "---\nmodel: [test/model-a\n---\nBroken.\n",
	"project/.pi/agents/good.md": "---\ndescription: Good one\n---\nWorks.\n",
};

describe("cadre list", () => {
	it("names general-purpose, explore and plan in an empty project", () => {
		const p = project();
		const run = runCliJson<ListJson>(["list", "--cwd", p.dir], { env: p.env });
		expect(run.code).toBe(0);
		expect(run.json.entries.map((e) => `${e.kind}:${e.name}:${e.scope}`)).toEqual([
			"definition:explore:bundled",
			"definition:general-purpose:bundled",
			"definition:plan:bundled",
		]);
		expect(run.json.diagnostics).toEqual([]);
	});

	it("shows scope, path, enabled state and what an entry shadows", () => {
		const p = project({
			"project/.pi/agents/explore.md": "---\nmodel: test/model-c\n---\n",
			"project/.pi/subagents.json": '{"toggle": {"Plan": false}}',
			"project/.pi/personas/terse.md": "Be terse.\n",
			"agent/roles/explore.md": "---\nthinking: low\n---\n",
		});
		const run = runCliJson<ListJson>(["list"], { env: p.env, cwd: p.dir });
		const byName = Object.fromEntries(run.json.entries.map((e) => [`${e.kind}:${e.name}`, e]));
		expect(byName["definition:explore"]).toMatchObject({
			scope: "project",
			path: ".pi/agents/explore.md",
			enabled: true,
			shadows: [{ scope: "bundled", path: "bundled" }],
		});
		expect(byName["definition:plan"]?.enabled).toBe(false);
		expect(byName["persona:terse"]).toMatchObject({ scope: "project", description: "Be terse." });
		expect(byName["role:explore"]?.scope).toBe("user");
	});

	it("still shows the good files beside broken ones, and points at check", () => {
		const p = project(BROKEN);
		const json = runCliJson<ListJson>(["list", "--cwd", p.dir], { env: p.env });
		expect(json.code).toBe(0);
		expect(json.json.entries.map((e) => e.name)).toEqual(["explore", "general-purpose", "good", "plan", "typo"]);
		const human = runCli(["list", "--cwd", p.dir], { env: p.env });
		expect(human.stdout.split("\n")[0]).toMatch(/^NAME\s+KIND\s+SCOPE\s+ENABLED\s+SOURCE\s+SHADOWS$/);
		expect(human.stdout).toMatch(/\ngood\s+definition\s+project\s+yes\s+\.pi\/agents\/good\.md\s+-\n/);
		const columns = human.stdout
			.trim()
			.split("\n")
			.map((line) => line.indexOf(" definition") >= 0 ? line.indexOf("definition") : -1)
			.filter((i) => i > 0);
		expect(new Set(columns).size).toBe(1);
		expect(human.stderr).toContain("cadre check");
		expect(human.stdout).not.toContain("\x1b[");
	});
});

describe("cadre check", () => {
	it("prints positioned diagnostics and exits 1 on errors", () => {
		const p = project(BROKEN);
		const run = runCli(["check", "--cwd", p.dir], { env: p.env });
		expect(run.code).toBe(1);
		const lines = run.stdout.trim().split("\n");
		expect(lines[0]).toMatch(/^\.pi\/agents\/broken\.md:2:\d+ error parse-error /);
		expect(lines[1]).toMatch(/^\.pi\/agents\/typo\.md:4:1 error unknown-key .*did you mean max_turns/);
		expect(lines.at(-2)).toMatch(/2 errors, 0 warnings/);
		// The files the resolver refuses spawns of (file-invalid, ADR 0100): the same faults.
		expect(lines.at(-1)).toBe("every spawn that reads .pi/agents/broken.md, .pi/agents/typo.md is refused (file-invalid) until their errors are fixed");
	});

	it("exits 1 for a single unknown key and for a single parse error", () => {
		for (const name of ["typo", "broken"] as const) {
			const p = project({ [`project/.pi/agents/${name}.md`]: BROKEN[`project/.pi/agents/${name}.md`] });
			expect(runCli(["check", "--cwd", p.dir], { env: p.env }).code).toBe(1);
		}
	});

	it("exits 0 with warnings, 1 with --strict or settings strict", () => {
		const files = { "project/.pi/agents/twin.md": "---\ndescription: Twin\nprompt_mode: append\n---\n" };
		const p = project(files);
		const plain = runCliJson<CheckJson>(["check", "--cwd", p.dir], { env: p.env });
		expect(plain.code).toBe(0);
		expect(plain.json).toMatchObject({ ok: true, strict: false, errors: 0, warnings: 1 });
		expect(plain.json.diagnostics[0]).toMatchObject({ file: ".pi/agents/twin.md", line: 3, column: 1, code: "removed-key", severity: "warning" });
		const strict = runCli(["check", "--strict", "--cwd", p.dir], { env: p.env });
		expect(strict.code).toBe(1);
		expect(strict.stdout).toMatch(/^\.pi\/agents\/twin\.md:3:1 error removed-key /);
		const viaSettings = project({ ...files, "project/.pi/subagents.json": '{"strict": true}' });
		expect(runCli(["check", "--cwd", viaSettings.dir], { env: viaSettings.env }).code).toBe(1);
	});

	it("exits 0 and says so when everything is clean", () => {
		const p = project({ "project/.pi/agents/good.md": "Works.\n" });
		const run = runCli(["check", "--cwd", p.dir], { env: p.env });
		expect(run.code).toBe(0);
		expect(run.stdout).toMatch(/^ok: 4 definitions, 0 roles, 0 personas, no problems\n$/);
	});

	it("exits 2 on usage errors", () => {
		const p = project();
		expect(runCli(["check", "--cwd", join(p.dir, "missing")], { env: p.env }).code).toBe(2);
		expect(runCli(["check", "--bogus"], { env: p.env, cwd: p.dir }).code).toBe(2);
	});

	it("prints the package version with --version", () => {
		const p = project();
		const manifest = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { version: string };
		const run = runCli(["--version"], { env: p.env, cwd: p.dir });
		expect(run).toMatchObject({ code: 0, stdout: `${manifest.version}\n` });
	});
});

describe("model names at check (issue 19)", () => {
	it("warns at the model key when neither models.json nor pi's built-in models know it, with pi's nearest name", () => {
		const p = project({
			"agent/models.json": JSON.stringify(testModels()),
			"project/.pi/agents/typo.md": "---\ndescription: Typo\nmodel: sonet\n---\nA.\n",
			"project/.pi/agents/fuzzy.md": "---\ndescription: Fuzzy\nmodel: sonnet\n---\nA.\n",
			"project/.pi/agents/custom.md": "---\ndescription: Custom\nmodel: test/model-b\n---\nA.\n",
			"project/.pi/agents/builtin.md": "---\ndescription: Builtin\nmodel: anthropic/claude-sonnet-4-5\n---\nA.\n",
		});
		const run = runCliJson<CheckJson>(["check", "--cwd", p.dir], { env: p.env });
		expect(run.json.diagnostics.map((d) => `${d.file}:${d.line}:${d.column} ${d.severity} ${d.code}`)).toEqual([".pi/agents/typo.md:3:1 warning model-unknown"]);
		expect(run.json.diagnostics[0]?.message).toMatch(/^model sonet of definition typo matches no model pi knows \(models\.json or pi's built-in models\) — did you mean sonnet\?$/);
		expect(run.code).toBe(0);
	});
});

describe("start-up stays light", () => {
	function resolvedModules(args: string[], cwd: string, env: Record<string, string>): string[] {
		const log = moduleLog(mkdtempSync(join(process.env.TMPDIR ?? tmpdir(), "cadre-hook-")), "");
		const run = spawnSync(nodeBinary(), ["--import", log.hook, ...args], { cwd, env: { ...process.env, ...env }, encoding: "utf8" });
		expect([0, 1], run.stderr).toContain(run.status);
		return log.read().trim().split("\n");
	}

	it("the recording hook sees pi's SDK when something imports it (control)", () => {
		const modules = resolvedModules(["-e", 'await import("@earendil-works/pi-coding-agent")', "--input-type=module"], REPO_ROOT, {});
		expect(modules.some((m) => m.includes("@earendil-works"))).toBe(true);
	});

	it("list and check never resolve pi's SDK", () => {
		const p = project(BROKEN);
		for (const command of ["list", "check"]) {
			const modules = resolvedModules([join(REPO_ROOT, "bin/cadre.js"), command, "--cwd", p.dir, "--json"], p.dir, p.env).filter(Boolean);
			expect(modules.some((m) => m.endsWith(`/src/hosts/cli/${command === "list" ? "list" : "check"}-command.ts`))).toBe(true);
			// BROKEN's model is one models.json names: nothing of pi's is resolved at all.
			expect(modules.filter((m) => m.includes("@earendil-works"))).toEqual([]);
		}
		// A model models.json does not name: check reads pi-ai's built-in model list, never the SDK (ADR 0107).
		const other = project({ "project/.pi/agents/a.md": "---\ndescription: A\nmodel: sonet\n---\nA.\n" });
		const modules = resolvedModules([join(REPO_ROOT, "bin/cadre.js"), "check", "--cwd", other.dir, "--json"], other.dir, other.env).filter(Boolean);
		expect(modules.some((m) => m.includes("/pi-ai/dist/providers/all.js"))).toBe(true);
		expect(modules.filter((m) => /@earendil-works\/(pi-coding-agent|pi-agent-core|pi-tui)\//.test(m))).toEqual([]);
	});
});
