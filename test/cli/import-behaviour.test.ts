/**
 * How `cadre import` behaves around the conversion (ADR 0094, 0096): idempotent, `--dry-run`
 * writes nothing, a different file is never overwritten without `--force`, nothing is written
 * outside the scope or through a symlink, foreign files that leave the project are not read,
 * names become valid cadre names, it works without pi's packages, the human report is escaped,
 * and `check` / `list` point at foreign files once, as an info. All through the real bin.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CADRE_BIN, nodeBinary, runCli, runCliJson } from "../support/cli.ts";
import { expectCheckClean, field, fields, file, importJson, projectWith } from "./import-support.ts";

/** A Claude Code agent; without a model, so import never loads pi's SDK to resolve one. */
const AGENT = "---\nname: helper\ndescription: Helps.\ntools: Read, Grep\n---\nHelp.\n";
const WITH_MODEL = AGENT.replace("tools:", "model: sonnet\ntools:");

describe("writing", () => {
	it("is idempotent: a second run reports every file unchanged and writes nothing", () => {
		const p = projectWith("claude");
		expect(importJson(p, "claude").json.summary.create).toBe(4);
		const agents = join(p.dir, ".pi/agents");
		const stamps = () => readdirSync(agents).map((name) => `${name} ${statSync(join(agents, name)).mtimeMs}`);
		const before = stamps();
		expect(before).toHaveLength(4);
		const again = importJson(p, "claude");
		expect(again.code).toBe(0);
		expect(again.json.files.map((f) => `${f.action} ${f.written}`)).toEqual(Array(4).fill("unchanged false"));
		expect(stamps()).toEqual(before);
	});

	it("writes nothing with --dry-run, and says what it would do", () => {
		const p = projectWith("claude");
		const run = importJson(p, "claude", ["--dry-run"]);
		expect(run.code).toBe(0);
		expect(run.json.dryRun).toBe(true);
		expect(run.json.files.map((f) => `${f.action} ${f.written}`)).toEqual(Array(4).fill("create false"));
		expect(existsSync(join(p.dir, ".pi"))).toBe(false);
		const human = runCli(["import", "--from", "claude", "--cwd", p.dir, "--dry-run"], { env: p.env });
		expect(human.stdout).toContain("would create  .pi/agents/planner.md  ← .claude/agents/planner.md");
		expect(human.stdout).toContain("Claude Code: 4 would create (dry run: nothing was written)");
		expect(existsSync(join(p.dir, ".pi"))).toBe(false);
	});

	it("never overwrites a file that differs without --force, and exits 1", () => {
		const p = projectWith(null, { "project/.claude/agents/helper.md": AGENT });
		importJson(p, "claude");
		const target = join(p.dir, ".pi/agents/helper.md");
		writeFileSync(target, "---\ndescription: Edited by hand.\n---\nMine.\n");
		const run = importJson(p, "claude");
		expect(run.code).toBe(1);
		expect(file(run.json, ".claude/agents/helper.md")).toMatchObject({ action: "conflict", written: false, reason: expect.stringContaining("--force") });
		expect(readFileSync(target, "utf8")).toContain("Edited by hand.");
		const forced = importJson(p, "claude", ["--force"]);
		expect(forced.code).toBe(0);
		expect(file(forced.json, ".claude/agents/helper.md")).toMatchObject({ action: "overwrite", written: true });
		expect(readFileSync(target, "utf8")).toContain("tools: read, grep");
	});

	it("writes over the file of the same name in another case instead of beside it", () => {
		const p = projectWith(null, { "project/.claude/agents/helper.md": AGENT, "project/.pi/agents/Helper.md": "---\ndescription: Old.\n---\n" });
		const run = importJson(p, "claude", ["--force"]);
		expect(file(run.json, ".claude/agents/helper.md")).toMatchObject({ to: ".pi/agents/Helper.md", action: "overwrite" });
		expect(readdirSync(join(p.dir, ".pi/agents"))).toEqual(["Helper.md"]);
		expect(readFileSync(join(p.dir, ".pi/agents/Helper.md"), "utf8")).toContain("Helps.");
		expectCheckClean(p);
	});

	it("never writes through a symlink or outside the project, even with --force", () => {
		const outside = projectWith(null);
		const p = projectWith(null, { "project/.claude/agents/helper.md": AGENT, "project/.claude/agents/other.md": AGENT.replace("helper", "other") });
		mkdirSync(join(outside.root, "elsewhere"), { recursive: true });
		writeFileSync(join(outside.root, "elsewhere", "keep.md"), "precious\n");
		mkdirSync(join(p.dir, ".pi", "agents"), { recursive: true });
		symlinkSync(join(outside.root, "elsewhere", "keep.md"), join(p.dir, ".pi", "agents", "helper.md"));
		const run = importJson(p, "claude", ["--force"]);
		expect(run.code).toBe(1);
		expect(file(run.json, ".claude/agents/helper.md")).toMatchObject({ action: "conflict", written: false, reason: expect.stringContaining("symlink") });
		expect(readFileSync(join(outside.root, "elsewhere", "keep.md"), "utf8")).toBe("precious\n");
		expect(file(run.json, ".claude/agents/other.md")).toMatchObject({ action: "create", written: true });

		const q = projectWith(null, { "project/.claude/agents/helper.md": AGENT });
		mkdirSync(join(q.dir, ".pi"), { recursive: true });
		symlinkSync(join(outside.root, "elsewhere"), join(q.dir, ".pi", "agents"));
		const linked = importJson(q, "claude", ["--force"]);
		expect(linked.code).toBe(1);
		expect(file(linked.json, ".claude/agents/helper.md")).toMatchObject({ action: "skip", written: false, reason: expect.stringContaining("symlink out of") });
		expect(existsSync(join(outside.root, "elsewhere", "helper.md"))).toBe(false);
	});

	it("does not read a foreign file, or a file it points to, that leaves the project", () => {
		const p = projectWith(null, {
			"home/secret.md": "---\ndescription: secret\n---\nTOKEN=abc\n",
			"home/secret.txt": "TOKEN=abc\n",
			"project/opencode.json": JSON.stringify({ agent: { leaky: { description: "Leaky", prompt: "{file:../home/secret.txt}" } } }),
		});
		mkdirSync(join(p.dir, ".claude", "agents"), { recursive: true });
		symlinkSync(join(p.root, "home", "secret.md"), join(p.dir, ".claude", "agents", "linked.md"));
		const claude = importJson(p, "claude");
		expect(file(claude.json, ".claude/agents/linked.md")).toMatchObject({ action: "skip", reason: expect.stringMatching(/^cadre does not read it: it resolves to .*secret\.md, outside .*project$/) });
		const opencode = importJson(p, "opencode");
		expect(field(file(opencode.json, "opencode.json#agent.leaky"), "prompt")).toMatchObject({ outcome: "dropped", why: expect.stringMatching(/cannot be read: it is outside .*project$/) });
		expect(readFileSync(join(p.dir, ".pi/agents/leaky.md"), "utf8")).not.toContain("TOKEN");
	});

	it("skips a foreign file larger than it reads", () => {
		const p = projectWith(null, { "project/.claude/agents/huge.md": `---\ndescription: Huge\n---\n${"x".repeat(1024 * 1024 + 10)}\n` });
		const run = importJson(p, "claude");
		expect(file(run.json, ".claude/agents/huge.md")).toMatchObject({ action: "skip", reason: "cadre does not read it: it is 1.0 MiB, over the 1.0 MiB limit" });
		expect(run.code).toBe(1);
	});

	it("turns any name into a valid cadre name, and files without one take their path", () => {
		const p = projectWith(null, {
			"project/.claude/agents/weird.md": '---\nname: "../My Agent!! v2"\ndescription: Odd name\n---\nWork.\n',
			"project/.claude/agents/nested/deep.md": "---\ndescription: No name key\n---\nWork.\n",
		});
		const run = importJson(p, "claude");
		expect(file(run.json, ".claude/agents/weird.md")).toMatchObject({ to: ".pi/agents/My-Agent-v2.md", name: "My-Agent-v2" });
		expect(field(file(run.json, ".claude/agents/weird.md"), "name")).toMatchObject({ outcome: "approximated", written: "file My-Agent-v2" });
		expect(file(run.json, ".claude/agents/nested/deep.md")).toMatchObject({ to: ".pi/agents/nested-deep.md" });
		expectCheckClean(p);
	});

	it("reads keys named like Object members as unknown keys", () => {
		const p = projectWith(null, { "project/.claude/agents/proto.md": "---\ndescription: Proto\nconstructor: x\ntoString: y\nhasOwnProperty: z\n---\nWork.\n" });
		const run = importJson(p, "claude");
		expect(run.code).toBe(0);
		expect(fields(file(run.json, ".claude/agents/proto.md"))).toEqual([
			"name mapped → file proto",
			"description mapped → description: Proto",
			"constructor dropped",
			"toString dropped",
			"hasOwnProperty dropped",
			"body mapped → the body (standing instructions)",
		]);
	});

	it("imports the user's own files into the agent dir with --scope user", () => {
		const p = projectWith(null, { "home/.claude/agents/helper.md": AGENT });
		const run = importJson(p, "claude", ["--scope", "user"]);
		expect(run.code).toBe(0);
		expect(run.json.target).toBe(join(p.root, "agent"));
		expect(file(run.json, join(p.root, "home/.claude/agents/helper.md"))).toMatchObject({ to: join(p.root, "agent/agents/helper.md"), action: "create" });
		expect(readFileSync(join(p.root, "agent/agents/helper.md"), "utf8")).toContain("tools: read, grep");
	});

	it("reads the paths it is given instead of the usual places", () => {
		const p = projectWith(null, {
			"project/imports/one.md": AGENT.replace("helper", "one"),
			"project/imports/more/two.md": AGENT.replace("helper", "two"),
			// In Claude Code's usual place: read without paths, never with them.
			"project/.claude/agents/usual.md": AGENT.replace("helper", "usual"),
		});
		const single = importJson(p, "claude", ["--dry-run", "imports/one.md"]);
		expect(single.json.files.map((f) => `${f.from} → ${f.to}`)).toEqual(["imports/one.md → .pi/agents/one.md"]);
		const folder = importJson(p, "claude", ["--dry-run", "imports"]);
		expect(folder.json.files.map((f) => f.to)).toEqual([".pi/agents/two.md", ".pi/agents/one.md"]);
	});

	it("reports that there is nothing to import", () => {
		const p = projectWith(null);
		const run = runCli(["import", "--from", "gemini", "--cwd", p.dir], { env: p.env });
		expect(run).toMatchObject({ code: 0, stdout: "no Gemini CLI agent files found (looked in .gemini/agents)\n" });
	});

	it("rejects a missing or unknown --from and a bad --scope as usage errors", () => {
		const p = projectWith(null);
		expect(runCli(["import", "--cwd", p.dir], { env: p.env }).code).toBe(2);
		const unknown = runCli(["import", "--from", "cursor", "--cwd", p.dir], { env: p.env });
		expect(unknown.code).toBe(2);
		expect(unknown.stderr).toContain("claude, opencode, gemini, codex, tintinweb, nicobailon, grok");
		expect(runCli(["import", "--from", "claude", "--scope", "team", "--cwd", p.dir], { env: p.env }).code).toBe(2);
	});
});

describe("without pi's packages", () => {
	it("still imports, keeping model names as written with a warning", () => {
		const p = projectWith(null, { "project/.claude/agents/helper.md": WITH_MODEL });
		const hook = join(p.root, "no-pi.mjs");
		writeFileSync(
			hook,
			[
				'import { registerHooks } from "node:module";',
				"registerHooks({ resolve(specifier, context, next) {",
				'  if (specifier.startsWith("@earendil-works/")) throw Object.assign(new Error(`Cannot find package ${specifier}`), { code: "ERR_MODULE_NOT_FOUND" });',
				"  return next(specifier, context);",
				"} });",
			].join("\n"),
		);
		const run = importJson(p, "claude", [], ["--import", hook]);
		expect(run.code).toBe(0);
		const helper = file(run.json, ".claude/agents/helper.md");
		expect(field(helper, "model")).toMatchObject({ outcome: "approximated", written: "model: sonnet" });
		expect(field(helper, "model").why).toContain("pi's packages are not installed here");
		expect(fields(helper)).toContain("tools mapped → tools: read, grep");
		// The control: with pi, the same file resolves the alias.
		expect(field(file(importJson(projectWith(null, { "project/.claude/agents/helper.md": WITH_MODEL }), "claude").json, ".claude/agents/helper.md"), "model").written).toBe("model: test/claude-sonnet-4-5");
	});
});

describe("the human report", () => {
	it("shows each file's action and each field's outcome, with text from the files escaped", () => {
		const p = projectWith(null, { "project/.claude/agents/helper.md": "---\ndescription: \"Helps \\e[2J\\e]0;pwned\\a now\"\ntools: Read, WebFetch\ncolor: red\n---\nHelp.\n" });
		const run = runCli(["import", "--from", "claude", "--cwd", p.dir], { env: p.env });
		expect(run.code).toBe(0);
		expect(run.stdout).not.toContain("\x1b");
		expect(run.stdout).not.toContain("\x07");
		expect(run.stdout).toContain("\\x1b[2J");
		const lines = run.stdout.split("\n");
		expect(lines[0]).toBe("created  .pi/agents/helper.md  ← .claude/agents/helper.md");
		expect(lines).toContain("  mapped        name         → file helper");
		expect(lines.find((line) => line.startsWith("  approximated  tools "))).toMatch(/→ tools: read — WebFetch is left out: pi has no built-in web tool — fix: /);
		expect(lines).toContain("  dropped       color        cadre has no colours — fix: `display_name` sets the label");
		expect(lines).toContain("Claude Code: 1 created");
	});
});

describe("a type written disabled", () => {
	it("says why in the file, in the import summary and in check", () => {
		const p = projectWith(null, { "project/.claude/agents/strict.md": "---\nname: strict\ndescription: Asks.\npermissionMode: dontAsk\n---\nWork.\n" });
		const run = runCli(["import", "--from", "claude", "--cwd", p.dir], { env: p.env });
		expect(run.code).toBe(0);
		expect(run.stdout).toContain("Claude Code: 1 created\n1 file is written disabled (enabled: false), so no spawn uses it: strict — its permissionMode cannot be honoured (the comment above enabled says why)\n");
		const text = readFileSync(join(p.dir, ".pi/agents/strict.md"), "utf8");
		expect(text).toMatch(/# disabled by cadre import: permissionMode: .*dontAsk.*\n# .*then remove enabled: false\nenabled: false\n/);
		const check = runCli(["check", "--cwd", p.dir], { env: p.env });
		expect(check.stdout).toMatch(/ok: \d+ definitions \(1 disabled: strict\), 0 roles, 0 personas, no problems/);
	});
});

describe("check and list point at foreign files", () => {
	it("say once per tool and scope, as an info, that cadre import converts them — and stop once they are imported", () => {
		const p = projectWith("claude", { "home/.claude/agents/mine.md": AGENT });
		const check = runCliJson<{ ok: boolean; errors: number; warnings: number; infos: number; diagnostics: { severity: string; code: string; file: string; message: string; hint: string }[] }>(["check", "--cwd", p.dir, "--strict"], { env: p.env });
		expect(check.code).toBe(0);
		expect(check.json).toMatchObject({ ok: true, errors: 0, warnings: 0, infos: 2 });
		const infos = check.json.diagnostics.filter((d) => d.severity === "info");
		expect(infos.map((d) => `${d.file} ${d.code}`)).toEqual([".claude/agents/code-reviewer.md foreign-files", `${join(p.root, "home/.claude/agents/mine.md")} foreign-files`]);
		expect(infos[0]?.message).toBe("4 Claude Code files in .claude/agents are not cadre files, so no spawn uses them");
		expect(infos[0]?.hint).toContain("`cadre import --from claude` converts them");
		expect(infos[1]?.hint).toContain("`cadre import --from claude --scope user`");
		const human = runCli(["check", "--cwd", p.dir], { env: p.env });
		expect(human.stdout).toContain(".claude/agents/code-reviewer.md:1:1 info foreign-files 4 Claude Code files");
		expect(human.stdout).toContain("ok: 3 definitions, 0 roles, 0 personas, no problems");
		const list = runCli(["list", "--cwd", p.dir], { env: p.env });
		expect(list.code).toBe(0);
		expect(list.stderr).toContain("info foreign-files 4 Claude Code files in .claude/agents");

		importJson(p, "claude");
		importJson(p, "claude", ["--scope", "user"]);
		const after = runCliJson<{ infos: number }>(["check", "--cwd", p.dir], { env: p.env });
		expect(after.json.infos).toBe(0);
	});

	it("match a foreign file to a cadre entry by its name key, not its file name", () => {
		const p = projectWith(null, { "project/.claude/agents/file-stem.md": AGENT });
		const before = runCliJson<{ infos: number }>(["check", "--cwd", p.dir], { env: p.env });
		expect(before.json.infos).toBe(1);
		expect(file(importJson(p, "claude").json, ".claude/agents/file-stem.md")).toMatchObject({ to: ".pi/agents/helper.md", action: "create" });
		const after = runCliJson<{ infos: number }>(["check", "--cwd", p.dir], { env: p.env });
		expect(after.json.infos).toBe(0);
	});

	it("stop after a finished import of grok-build (a name inside [[outputs]] is not the persona's) and opencode (a primary agent import skips)", () => {
		for (const source of ["grok", "opencode"]) {
			const p = projectWith(source);
			const before = runCliJson<{ diagnostics: { code: string; message: string }[] }>(["check", "--cwd", p.dir], { env: p.env });
			expect(before.json.diagnostics.filter((d) => d.code === "foreign-files")).toHaveLength(1);
			expect(importJson(p, source).code).toBe(0);
			const after = runCliJson<{ diagnostics: { code: string; message: string }[] }>(["check", "--cwd", p.dir], { env: p.env });
			expect(after.json.diagnostics.filter((d) => d.code === "foreign-files").map((d) => d.message)).toEqual([]);
		}
	});

	it("run from a folder that has no .pi yet, at the git root", () => {
		const p = projectWith("gemini");
		mkdirSync(join(p.dir, "src", "deep"), { recursive: true });
		const check = runCliJson<{ diagnostics: { code: string; file: string }[] }>(["check", "--cwd", join(p.dir, "src", "deep")], { env: p.env });
		expect(check.json.diagnostics.filter((d) => d.code === "foreign-files").map((d) => d.file)).toEqual([".gemini/agents/git-expert.md"]);
	});
});

describe("the bin", () => {
	it("lists import in its help", () => {
		const run = spawnSync(nodeBinary(), [CADRE_BIN, "import", "--help"], { encoding: "utf8" });
		expect(run.stdout).toContain("--from <tool>");
		expect(run.stdout).toContain("--dry-run");
		expect(run.stdout).toContain("--force");
		expect(run.stdout).toContain("--scope <scope>");
	});
});
