/**
 * Every load diagnostic code, positioned on the offending key or value, and what loading keeps.
 */
import { describe, expect, it } from "vitest";
import { layout, where } from "./fixture.ts";

describe("parse-error", () => {
	it("positions broken YAML frontmatter and skips the file, keeping the others", () => {
		const l = layout({
			"project/.pi/agents/broken.md": "---\nmodel: [unclosed\n---\nBody.\n",
			"project/.pi/agents/good.md": "---\ndescription: Good\n---\nBody.\n",
		});
		const r = l.load();
		const d = r.diagnostics.find((x) => x.code === "parse-error");
		expect(d).toMatchObject({ file: ".pi/agents/broken.md", line: 2, severity: "error" });
		expect(d?.column).toBeGreaterThan(0);
		expect(r.definitions.has("broken")).toBe(false);
		expect(r.definitions.get("good")?.keys.description?.value).toBe("Good");
	});

	it("reports an unclosed frontmatter block at line 1", () => {
		const r = layout({ "project/.pi/agents/open.md": "---\nmodel: a/b\nBody without end\n" }).load();
		expect(where(r)).toEqual([".pi/agents/open.md:1:1 parse-error"]);
	});

	it("reports a frontmatter that is not a mapping", () => {
		const r = layout({ "project/.pi/agents/list.md": "---\n- a\n- b\n---\nBody\n" }).load();
		expect(where(r)).toEqual([".pi/agents/list.md:2:1 parse-error"]);
	});

	it("reports broken TOML with the parser's line", () => {
		const r = layout({ "project/.pi/personas/p.toml": 'description = "ok"\nmodel = [\n' }).load();
		expect(r.diagnostics).toHaveLength(1);
		expect(r.diagnostics[0]).toMatchObject({ file: ".pi/personas/p.toml", code: "parse-error" });
		expect(r.diagnostics[0]?.line).toBeGreaterThanOrEqual(2);
		expect(r.personas.has("p")).toBe(false);
	});

	it("reports malformed settings JSON and ignores that file", () => {
		const r = layout({ "project/.pi/subagents.json": '{"maxConcurrent": 2,,}\n' }).load();
		expect(r.diagnostics[0]).toMatchObject({ file: ".pi/subagents.json", line: 1, code: "parse-error" });
		expect(r.settings.maxConcurrent.value).toBe(4);
	});

	it("treats duplicate YAML keys as a parse error", () => {
		const r = layout({ "project/.pi/agents/dup.md": "---\nmodel: a/b\nmodel: c/d\n---\n" }).load();
		expect(r.diagnostics.map((d) => d.code)).toEqual(["parse-error"]);
	});
});

describe("unknown-key", () => {
	it.each([
		["roles/r.md", "prompt"],
		["personas/p.md", "instructions"],
	])("tells a Markdown %s that %s is the body (ADR 0011)", (path, key) => {
		const r = layout({ [`project/.pi/${path}`]: `---\n${key}: Hello\n---\n` }).load();
		const d = r.diagnostics.find((x) => x.code === "unknown-key");
		expect(d).toMatchObject({ line: 2, column: 1, severity: "error" });
		expect(d?.hint).toContain("body");
	});

	it("suggests the nearest known key, positioned on the key", () => {
		const r = layout({
			"project/.pi/agents/typo.md": "---\ndescription: Typo\nmodel: a/b\n  \nmax_turn: 3\n---\nBody.\n",
		}).load();
		const d = r.diagnostics.find((x) => x.code === "unknown-key");
		expect(d).toMatchObject({ file: ".pi/agents/typo.md", line: 5, column: 1 });
		expect(d?.message).toContain("did you mean max_turns");
		expect(r.definitions.get("typo")?.keys.max_turns).toBeUndefined();
		expect(r.definitions.get("typo")?.keys.model?.value).toBe("a/b");
	});

	it("points camelCase spellings of known keys at the snake_case key", () => {
		const r = layout({ "project/.pi/agents/camel.md": "---\nmaxTurns: 3\nrunInBackground: true\n---\n" }).load();
		expect(r.diagnostics.map((d) => d.hint)).toEqual(["rename it to max_turns", "rename it to run_in_background"]);
		expect(r.diagnostics[0]?.message).toContain("snake_case");
	});

	it("has no suggestion for a key far from every known key", () => {
		const r = layout({ "project/.pi/agents/far.md": "---\ncolour_scheme_of_the_day: blue\n---\n" }).load();
		expect(r.diagnostics[0]?.code).toBe("unknown-key");
		expect(r.diagnostics[0]?.message).not.toContain("did you mean");
	});

	it("warns (not errors) on keys other tools' agent files carry, naming the tool", () => {
		const r = layout({
			"project/.pi/agents/from-claude.md": "---\nname: from-claude\ndescription: Ported\ncolor: blue\ntools: read, grep\n---\nBody.\n",
		}).load();
		expect(where(r)).toEqual([".pi/agents/from-claude.md:4:1 unknown-key"]);
		expect(r.diagnostics[0]).toMatchObject({ severity: "warning" });
		expect(r.diagnostics[0]?.message).toContain("Claude Code");
		expect(r.definitions.get("from-claude")?.keys.tools?.value).toEqual(["read", "grep"]);
	});

	it("keeps a typo of a cadre key an error", () => {
		const r = layout({ "project/.pi/agents/typo2.md": "---\ncolr: blue\nmax_turn: 3\n---\n" }).load();
		expect(r.diagnostics.map((d) => [d.code, d.severity])).toEqual([
			["unknown-key", "error"],
			["unknown-key", "error"],
		]);
	});

	it("tells a persona with capability or tools that personas never grant access", () => {
		const r = layout({ "project/.pi/personas/loose.md": "---\ncapability: all\ntools: [bash]\n---\nBe loose.\n" }).load();
		expect(where(r)).toEqual([".pi/personas/loose.md:2:1 unknown-key", ".pi/personas/loose.md:3:1 unknown-key"]);
		for (const d of r.diagnostics) expect(d.hint).toContain("never grant or remove access");
		expect(r.personas.get("loose")?.body?.value).toBe("Be loose.");
	});

	it("tells a role with tools that roles never set tools", () => {
		const r = layout({
			"project/.pi/agents/scout.md": "---\ndescription: Scout\n---\n",
			"project/.pi/roles/scout.md": "---\ntools: read\n---\n",
		}).load();
		expect(r.diagnostics).toHaveLength(1);
		expect(r.diagnostics[0]?.hint).toContain("never sets tools");
	});

	it("flags an unknown settings key with a camelCase suggestion", () => {
		const r = layout({ "project/.pi/subagents.json": '{\n  "max_concurrent": 2\n}\n' }).load();
		expect(where(r)).toEqual([".pi/subagents.json:2:3 unknown-key"]);
		expect(r.diagnostics[0]?.message).toContain("did you mean maxConcurrent");
	});
});

describe("removed-key", () => {
	it("warns about prompt_mode and locked, saying why and what to do, and still loads", () => {
		const r = layout({
			"project/.pi/agents/twin.md": "---\ndescription: Twin\nprompt_mode: append\nlocked: [model]\nmodel: test/model-a\n---\n",
		}).load();
		expect(where(r)).toEqual([".pi/agents/twin.md:3:1 removed-key", ".pi/agents/twin.md:4:1 removed-key"]);
		expect(r.diagnostics.every((d) => d.severity === "warning")).toBe(true);
		expect(r.diagnostics[0]?.message).toContain("one shape");
		expect(r.diagnostics[1]?.message).toContain("request always wins");
		expect(r.diagnostics[1]?.hint).toContain("remove locked");
		expect(r.definitions.get("twin")?.keys.model?.value).toBe("test/model-a");
	});
});

describe("bad-value", () => {
	it("positions the value, lists valid values and keeps the raw value as invalid", () => {
		const r = layout({
			"project/.pi/agents/scout.md": "---\ndescription: Scout\n---\n",
			"project/.pi/roles/scout.md": "---\nthinking:   extreme\n---\n",
		}).load();
		expect(where(r)).toEqual([".pi/roles/scout.md:2:13 bad-value"]);
		expect(r.diagnostics[0]?.message).toContain("off, minimal, low, medium, high, xhigh, max");
		const role = r.roles.get("scout");
		expect(role?.keys.thinking).toBeUndefined();
		expect(role?.invalid.thinking).toEqual({ raw: "extreme", source: ".pi/roles/scout.md:2" });
	});

	it("rejects max_turns below 2, non-boolean flags and tools mixing all with names", () => {
		const r = layout({
			"project/.pi/agents/x.md": "---\nmax_turns: 1\nenabled: yes\ntools: [read, all]\n---\n",
		}).load();
		expect(where(r)).toEqual([".pi/agents/x.md:2:12 bad-value", ".pi/agents/x.md:3:10 bad-value", ".pi/agents/x.md:4:8 bad-value"]);
		const x = r.definitions.get("x");
		expect(x?.keys).toEqual({});
		expect(Object.keys(x?.invalid ?? {}).sort()).toEqual(["enabled", "max_turns", "tools"]);
	});

	it("rejects a synonym that repeats a key already given", () => {
		const r = layout({ "project/.pi/agents/x.md": "---\nthinking: low\neffort: high\n---\n" }).load();
		expect(where(r)).toEqual([".pi/agents/x.md:3:1 bad-value"]);
		expect(r.definitions.get("x")?.keys.thinking?.value).toBe("low");
	});

	it("drops only the bad settings entry", () => {
		const r = layout({
			"project/.pi/agents/scout.md": "Scout.\n",
			"project/.pi/subagents.json": '{"models": {"scout": 7, "plan": "a/b"}, "thinking": {"Plan": "HIGH", "scout": "loud"}}',
		}).load();
		expect(r.diagnostics.map((d) => d.code)).toEqual(["bad-value", "bad-value"]);
		expect(r.settings.models).toEqual({ plan: { value: "a/b", source: "settings:.pi/subagents.json:1" } });
		expect(r.settings.thinking.plan?.value).toBe("high");
		expect(r.settings.invalidPins.models.scout?.raw).toBe(7);
		expect(r.settings.invalidPins.thinking.scout?.raw).toBe("loud");
	});
});

describe("ambiguous-name", () => {
	it("skips x.md beside X.md, reporting both, and uses the lower entry", () => {
		const l = layout({
			"project/.pi/agents/explore.md": "---\nmodel: a/b\n---\n",
			"project/.pi/agents/Explore.md": "---\nmodel: c/d\n---\n",
		});
		const r = l.load();
		expect(where(r).sort()).toEqual([".pi/agents/Explore.md:1:1 ambiguous-name", ".pi/agents/explore.md:1:1 ambiguous-name"]);
		expect(r.definitions.get("explore")?.scope).toBe("bundled");
	});

	it("skips x.md beside x.toml in one scope", () => {
		const r = layout({
			"project/.pi/personas/p.md": "Be p.\n",
			"project/.pi/personas/p.toml": 'instructions = "Be p."\n',
		}).load();
		expect(r.diagnostics.map((d) => d.code)).toEqual(["ambiguous-name", "ambiguous-name"]);
		expect(r.personas.has("p")).toBe(false);
	});

	it("does not apply across scopes", () => {
		const r = layout({ "project/.pi/agents/x.md": "X.\n", "agent/agents/X.md": "Y.\n" }).load();
		expect(r.diagnostics).toEqual([]);
		expect(r.definitions.get("x")?.name).toBe("x");
	});
});

describe("name-mismatch", () => {
	it("skips the file whose name is not its stem and uses the lower entry", () => {
		const r = layout({
			"project/.pi/agents/plan.md": "---\nname: planner\nmodel: a/b\n---\nOther body.\n",
		}).load();
		expect(where(r)).toEqual([".pi/agents/plan.md:2:7 name-mismatch"]);
		expect(r.definitions.get("plan")?.scope).toBe("bundled");
		expect(r.definitions.get("plan")?.keys.model).toBeUndefined();
	});

	it("accepts a name that equals the stem up to case", () => {
		const r = layout({ "project/.pi/agents/scout.md": "---\nname: Scout\n---\nScout.\n" }).load();
		expect(r.diagnostics).toEqual([]);
	});
});

describe("missing-file and path-escape", () => {
	it("reports a missing instructions_file as an error but keeps the key", () => {
		const r = layout({ "project/.pi/personas/strict.md": "---\ninstructions_file: missing.md\n---\nBe strict.\n" }).load();
		expect(where(r)).toEqual([".pi/personas/strict.md:2:20 missing-file"]);
		expect(r.diagnostics[0]?.severity).toBe("error");
		expect(r.diagnostics[0]?.message).toContain('"missing.md"');
		expect(r.personas.get("strict")?.keys.instructions_file?.value).toMatchObject({ written: "missing.md" });
	});

	it("reports a missing role prompt_file as a warning (the role still applies)", () => {
		const r = layout({
			"project/.pi/agents/scout.md": "Scout.\n",
			"project/.pi/roles/scout.md": "---\nprompt_file: prompts/scout.md\n---\n",
		}).load();
		expect(r.diagnostics.map((d) => `${d.severity} ${d.code}`)).toEqual(["warning missing-file"]);
		expect(r.roles.get("scout")?.keys.prompt_file?.value.written).toBe("prompts/scout.md");
	});

	it("reports a path that leaves the project as path-escape and keeps the key", () => {
		const l = layout({
			"project/.pi/agents/scout.md": "Scout.\n",
			"project/.pi/roles/scout.md": "---\nprompt_file: ../../../secret.txt\n---\n",
			"secret.txt": "secret",
		});
		const r = l.load();
		expect(where(r)).toEqual([".pi/roles/scout.md:2:14 path-escape"]);
		expect(r.roles.get("scout")?.keys.prompt_file?.value).toMatchObject({ written: "../../../secret.txt", root: l.project });
	});
});

describe("orphan-role and untrusted-setting", () => {
	it("warns about a role that matches no definition", () => {
		const r = layout({ "project/.pi/roles/ghost.md": "---\nmodel: a/b\n---\n" }).load();
		expect(where(r)).toEqual([".pi/roles/ghost.md:1:1 orphan-role"]);
		expect(r.diagnostics[0]?.severity).toBe("warning");
	});

	it("warns that a persona named none can never be used (reserved-name)", () => {
		const r = layout({ "project/.pi/personas/None.md": "---\ndescription: Nobody\n---\nBe nobody.\n" }).load();
		expect(where(r)).toEqual([".pi/personas/None.md:1:1 reserved-name"]);
		expect(r.diagnostics[0]?.message).toContain('"none" means "no persona"');
	});

	it("warns about project pins and toggles for types that do not exist (orphan-setting), not about user ones", () => {
		const r = layout({
			"project/.pi/subagents.json": '{\n  "models": {"explor": "a/b", "plan": "a/c"},\n  "toggle": {"Ghost": false}\n}\n',
			"agent/subagents.json": '{"thinking": {"only-in-other-projects": "high"}}',
		}).load();
		expect(where(r)).toEqual([".pi/subagents.json:2:14 orphan-setting", ".pi/subagents.json:3:14 orphan-setting"]);
		expect(r.diagnostics[0]?.message).toBe("models.explor names no type, so it has no effect — did you mean explore?");
		expect(r.diagnostics.every((d) => d.severity === "warning")).toBe(true);
	});

	it("positions an inline orphan role on its settings key", () => {
		const r = layout({ "project/.pi/subagents.json": '{\n  "roles": {\n    "ghost": {"model": "a/b"}\n  }\n}\n' }).load();
		expect(where(r)).toEqual([".pi/subagents.json:3:5 orphan-role"]);
	});

	it("ignores toolKinds, allowSharedFallback and baseDir from an untrusted project, honours them when trusted (ADR 0073)", () => {
		const files = {
			"project/.pi/subagents.json": '{"toolKinds": {"mcp_*": "read"}, "worktree": {"allowSharedFallback": true, "baseDir": "wt"}}',
		};
		const untrusted = layout(files).load();
		expect(untrusted.diagnostics.map((d) => d.code)).toEqual(["untrusted-setting", "untrusted-setting", "untrusted-setting"]);
		expect(untrusted.settings.toolKinds).toEqual({});
		expect(untrusted.settings.worktree).toEqual({ baseDir: null, allowSharedFallback: false });
		const trusted = layout(files).load({ projectTrusted: true });
		expect(trusted.diagnostics).toEqual([]);
		expect(trusted.settings.toolKinds).toEqual({ "mcp_*": "read" });
		expect(trusted.settings.worktree).toEqual({ baseDir: "wt", allowSharedFallback: true });
	});

	it("takes telemetry.otlp from user settings and a trusted project only; a value that is not an http(s) URL is an error (ADR 0145)", () => {
		const files = { "project/.pi/subagents.json": '{"telemetry": {"otlp": "http://collector.example:4318"}}' };
		const untrusted = layout(files).load();
		expect(untrusted.diagnostics.map((d) => `${d.file}:${d.line}:${d.column} ${d.code} ${d.message}`)).toEqual([
			".pi/subagents.json:1:16 untrusted-setting telemetry.otlp in project settings is ignored: the project is not trusted",
		]);
		expect(untrusted.settings.telemetry).toEqual({ otlp: null });
		const trusted = layout(files).load({ projectTrusted: true });
		expect(trusted.diagnostics).toEqual([]);
		expect(trusted.settings.telemetry).toEqual({ otlp: "http://collector.example:4318" });
		const user = layout({ "agent/subagents.json": '{"telemetry": {"otlp": "http://127.0.0.1:4318"}}' }).load();
		expect(user.settings.telemetry).toEqual({ otlp: "http://127.0.0.1:4318" });
		const bad = layout({ "agent/subagents.json": '{"telemetry": {"otlp": "file:///etc/passwd", "grpc": true}}' }).load();
		expect(bad.diagnostics.map((d) => `${d.code} ${d.message}`)).toEqual([
			'bad-value telemetry.otlp expects an http(s) URL of an OTLP endpoint, or null: "file:///etc/passwd"',
			"bad-value telemetry.grpc is not a key (telemetry takes otlp): true",
		]);
		expect(bad.settings.telemetry).toEqual({ otlp: null });
	});

	it("reads worktree pool, include, setup and copyUncommitted; include and setup only from trusted files", () => {
		const worktree = {
			pool: { size: 3 },
			include: ["node_modules", "./.env", { path: "data/models", symlink: true }],
			setup: { command: "npm run codegen", timeoutSeconds: 30 },
			copyUncommitted: true,
		};
		const files = { "project/.pi/subagents.json": JSON.stringify({ worktree }) };
		const untrusted = layout(files).load();
		expect(untrusted.diagnostics.map((d) => `${d.code} ${d.message}`)).toEqual([
			"untrusted-setting worktree.include in project settings is ignored: the project is not trusted",
			"untrusted-setting worktree.setup in project settings is ignored: the project is not trusted",
		]);
		expect(untrusted.settings.worktree).toMatchObject({ pool: { size: 3 }, copyUncommitted: { value: true } });
		expect(untrusted.settings.worktree.include).toBeUndefined();
		expect(untrusted.settings.worktree.setup).toBeUndefined();
		const trusted = layout(files).load({ projectTrusted: true });
		expect(trusted.diagnostics).toEqual([]);
		expect(trusted.settings.worktree.include).toEqual([
			{ path: "node_modules", mode: "copy" },
			{ path: ".env", mode: "copy" },
			{ path: "data/models", mode: "symlink" },
		]);
		expect(trusted.settings.worktree.setup).toEqual({ command: "npm run codegen", timeoutMs: 30_000 });
		const user = layout({ "agent/subagents.json": '{"worktree": {"setup": "make gen", "pool": false}}' }).load();
		expect(user.settings.worktree).toMatchObject({ setup: { command: "make gen", timeoutMs: 300_000 }, pool: { size: 0 } });
	});

	it("reads worktree.verify (the merge queue's check) only from trusted files", () => {
		const files = { "project/.pi/subagents.json": JSON.stringify({ worktree: { verify: { command: "npm test", timeoutSeconds: 60 } } }) };
		const untrusted = layout(files).load();
		expect(untrusted.diagnostics.map((d) => `${d.code} ${d.message}`)).toEqual([
			"untrusted-setting worktree.verify in project settings is ignored: the project is not trusted",
		]);
		expect(untrusted.settings.worktree.verify).toBeUndefined();
		expect(layout(files).load({ projectTrusted: true }).settings.worktree.verify).toEqual({ command: "npm test", timeoutMs: 60_000 });
		const user = layout({ "agent/subagents.json": '{"worktree": {"verify": "make check"}}' }).load();
		expect(user.settings.worktree.verify).toEqual({ command: "make check", timeoutMs: 300_000 });
		const bad = layout({ "agent/subagents.json": '{"worktree": {"verify": 3}}' }).load();
		expect(bad.diagnostics.map((d) => d.message).join("\n")).toContain("worktree.verify");
	});

	it("refuses worktree include paths that leave the repository and pool sizes out of range", () => {
		const r = layout({
			"agent/subagents.json": '{"worktree": {"include": ["../secrets", "/etc", ".git/config", "ok"], "pool": {"size": 99}, "setup": ""}}',
		}).load();
		expect(r.diagnostics.map((d) => `${d.line}:${d.column} ${d.code}`)).toEqual(["1:27 bad-value", "1:41 bad-value", "1:49 bad-value", "1:79 bad-value", "1:102 bad-value"]);
		expect(r.settings.worktree.include).toEqual([{ path: "ok", mode: "copy" }]);
		expect(r.settings.worktree.pool).toBeUndefined();
	});

	it("always honours toolKinds from user settings", () => {
		const r = layout({ "agent/subagents.json": '{"toolKinds": {"web_fetch": "read"}}' }).load();
		expect(r.diagnostics).toEqual([]);
		expect(r.settings.toolKinds).toEqual({ web_fetch: "read" });
	});
});

describe("ordering and resilience", () => {
	it("sorts diagnostics by file, line, column and never lets one bad file hide another", () => {
		const r = layout({
			"project/.pi/agents/b.md": "---\nmax_turn: 3\n---\n",
			"project/.pi/agents/a.md": "---\nthinking: loud\nmodle: x\n---\n",
			"project/.pi/agents/c.md": "---\n: : :\n---\n",
		}).load();
		const files = r.diagnostics.map((d) => d.file);
		expect(files).toEqual([...files].sort());
		expect(new Set(files)).toEqual(new Set([".pi/agents/a.md", ".pi/agents/b.md", ".pi/agents/c.md"]));
		const a = r.diagnostics.filter((d) => d.file === ".pi/agents/a.md").map((d) => d.line);
		expect(a).toEqual([2, 3]);
	});

	it("never throws on binary garbage", () => {
		const r = layout({ "project/.pi/agents/bin.md": "---\n\u0000\u0001\u0002: [\n---\n", "agent/subagents.json": "\u0000" }).load();
		expect(r.diagnostics.length).toBeGreaterThan(0);
		expect(r.definitions.has("general-purpose")).toBe(true);
	});
});

describe("odd values", () => {
	it("reports a TOML integer too large for a number as a positioned parse error", () => {
		const r = layout({
			"project/.pi/agents/scout.md": "Scout.\n",
			"project/.pi/roles/scout.toml": 'model = "a/b"\nthinking = 99999999999999999999\n',
		}).load();
		expect(where(r)).toEqual([".pi/roles/scout.toml:2:12 parse-error"]);
		expect(r.roles.has("scout")).toBe(false);
	});

	it("reports a YAML alias bomb as a parse error", () => {
		const bomb = ["a: &a [x, x, x, x, x, x, x, x, x, x]", "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]", "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]", "d: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]"];
		const r = layout({ "project/.pi/agents/bomb.md": `---\n${bomb.join("\n")}\n---\n` }).load();
		expect(r.diagnostics.map((d) => d.code)).toEqual(["parse-error"]);
	});
});
