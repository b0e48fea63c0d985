/**
 * The scope merge: project-inline > project > user-inline > user > bundled, key by key, body wholly
 * when nonempty, canonical name from the highest layer, skipped files falling back to lower ones.
 */
import { describe, expect, it } from "vitest";
import { bundledDefinitions } from "../../src/files/builtins.ts";
import { mergeLayers } from "../../src/files/merge.ts";
import type { EntryLayer } from "../../src/files/types.ts";
import { layout } from "./fixture.ts";

describe("built-ins", () => {
	it("an empty project has general-purpose, explore and plan", () => {
		const r = layout().load();
		expect([...r.definitions.keys()]).toEqual(["general-purpose", "explore", "plan"]);
		const gp = r.definitions.get("general-purpose");
		expect(gp?.body).toBeNull();
		expect(gp?.keys.tools).toBeUndefined();
		for (const name of ["explore", "plan"]) {
			const d = r.definitions.get(name);
			expect(d?.keys.tools?.value).toEqual(["read", "grep", "find", "ls"]);
			expect(d?.keys.capability).toEqual({ value: "read-only", source: "bundled" });
			expect(d?.body?.value.length).toBeGreaterThan(100);
		}
		expect(r.definitions.get("plan")?.body?.value).toContain("Critical files for implementation");
		expect(r.diagnostics).toEqual([]);
	});
});

describe("key-by-key merge", () => {
	it("a metadata-only project explore.md keeps the bundled body, tools and capability", () => {
		const r = layout({ "project/.pi/agents/explore.md": "---\nmodel: test/model-c\n---\n" }).load();
		const explore = r.definitions.get("explore");
		expect(explore?.scope).toBe("project");
		expect(explore?.path).toBe(".pi/agents/explore.md");
		expect(explore?.keys.model).toEqual({ value: "test/model-c", source: ".pi/agents/explore.md:2", column: 1 });
		expect(explore?.keys.capability?.source).toBe("bundled");
		expect(explore?.body?.source).toBe("bundled");
		expect(explore?.layers.map((l) => l.scope)).toEqual(["project", "bundled"]);
	});

	it("a nonempty body replaces the lower body wholly", () => {
		const r = layout({ "project/.pi/agents/plan.md": "---\nthinking: high\n---\n\nPlan briefly.\n" }).load();
		expect(r.definitions.get("plan")?.body).toEqual({ value: "Plan briefly.", source: ".pi/agents/plan.md:5" });
		expect(r.definitions.get("plan")?.keys.tools?.source).toBe("bundled");
	});

	it("project beats user key by key; user fills what the project does not name", () => {
		const r = layout({
			"agent/agents/scout.md": "---\nmodel: user/m\nthinking: low\nmax_turns: 9\n---\nUser body.\n",
			"project/.pi/agents/Scout.md": "---\nmodel: proj/m\n---\n",
		}).load();
		const scout = r.definitions.get("scout");
		expect(scout?.name).toBe("Scout");
		expect(scout?.keys.model?.value).toBe("proj/m");
		expect(scout?.keys.thinking?.value).toBe("low");
		expect(scout?.keys.max_turns?.source).toBe(`${r.agentDir}/agents/scout.md:4`);
		expect(scout?.body?.value).toBe("User body.");
	});

	it("orders project-inline > project > user-inline > user for roles", () => {
		const r = layout({
			"agent/subagents.json": '{"roles": {"plan": {"model": "ui/m", "thinking": "low", "isolation": "worktree", "capability": "execute"}}}',
			"agent/roles/plan.md": "---\nmodel: u/m\nthinking: minimal\nisolation: none\ncapability: all\ndescription: user\n---\nUser role.\n",
			"project/.pi/roles/plan.md": "---\nmodel: p/m\nthinking: medium\n---\n",
			"project/.pi/subagents.json": '{"roles": {"plan": {"model": "pi/m", "prompt": "Inline prompt."}}}',
		}).load();
		const plan = r.roles.get("plan");
		expect(plan?.layers.map((l) => l.scope)).toEqual(["project-inline", "project", "user-inline", "user"]);
		expect(plan?.scope).toBe("project-inline");
		expect(plan?.path).toBe("settings:.pi/subagents.json");
		expect(plan?.keys.model).toEqual({ value: "pi/m", source: "settings:.pi/subagents.json:1", column: 21 });
		expect(plan?.keys.thinking?.value).toBe("medium");
		expect(plan?.keys.isolation?.value).toBe("worktree");
		expect(plan?.keys.capability?.value).toBe("execute");
		expect(plan?.keys.description?.value).toBe("user");
		expect(plan?.body?.value).toBe("Inline prompt.");
	});

	it("a malformed higher-scope file falls back to the lower one", () => {
		const r = layout({
			"agent/agents/scout.md": "---\nmodel: user/m\n---\nUser body.\n",
			"project/.pi/agents/scout.md": "---\nmodel: [broken\n---\nProject body.\n",
		}).load();
		expect(r.definitions.get("scout")?.scope).toBe("user");
		expect(r.definitions.get("scout")?.body?.value).toBe("User body.");
		expect(r.diagnostics.map((d) => d.code)).toEqual(["parse-error"]);
	});
});

describe("invalid values across layers", () => {
	const layer = (scope: EntryLayer["scope"], keys: EntryLayer<"role">["keys"], invalid: EntryLayer<"role">["invalid"]): EntryLayer<"role"> => ({
		kind: "role",
		name: "r",
		scope,
		path: scope,
		body: null,
		keys,
		invalid,
	});

	it("keeps a rejected value above the layer that supplies the key", () => {
		const e = mergeLayers([
			layer("project", {}, { thinking: { raw: "loud", source: "p:2" } }),
			layer("user", { thinking: { value: "low", source: "u:2" } }, {}),
		]);
		expect(e.keys.thinking?.value).toBe("low");
		expect(e.invalid.thinking).toEqual({ raw: "loud", source: "p:2" });
	});

	it("drops a rejected value below the layer that supplies the key", () => {
		const e = mergeLayers([
			layer("project", { thinking: { value: "high", source: "p:2" } }, {}),
			layer("user", {}, { thinking: { raw: "loud", source: "u:2" } }),
		]);
		expect(e.invalid).toEqual({});
	});

	it("keeps the highest rejected value when no layer supplies the key", () => {
		const e = mergeLayers([
			layer("project", {}, { model: { raw: 1, source: "p:2" } }),
			layer("user", {}, { model: { raw: 2, source: "u:2" } }),
		]);
		expect(e.keys.model).toBeUndefined();
		expect(e.invalid.model?.raw).toBe(1);
	});

	it("loads a bad project role value above a good definition-independent user value", () => {
		const r = layout({
			"project/.pi/agents/scout.md": "Scout.\n",
			"agent/roles/scout.md": "---\nthinking: medium\n---\n",
			"project/.pi/roles/scout.md": "---\nthinking: extreme\n---\n",
		}).load();
		expect(r.roles.get("scout")?.keys.thinking?.value).toBe("medium");
		expect(r.roles.get("scout")?.invalid.thinking?.raw).toBe("extreme");
	});

	it("bundled layers are fresh copies", () => {
		const a = bundledDefinitions();
		(a[1]?.keys.tools?.value as string[]).push("bash");
		expect(bundledDefinitions()[1]?.keys.tools?.value).toEqual(["read", "grep", "find", "ls"]);
	});
});

describe("keys and synonyms", () => {
	it("folds effort / reasoning_effort / default_capability_mode / default_isolation", () => {
		const r = layout({
			"project/.pi/agents/a.md": "---\neffort: HIGH\n---\n",
			"project/.pi/agents/b.md": "---\nreasoning_effort: none\n---\n",
			"project/.pi/roles/a.md": "---\ndefault_capability_mode: ReadOnly\ndefault_isolation: work_tree\n---\n",
		}).load();
		expect(r.definitions.get("a")?.keys.thinking?.value).toBe("high");
		expect(r.definitions.get("b")?.keys.thinking?.value).toBe("off");
		expect(r.roles.get("a")?.keys.capability?.value).toBe("read-only");
		expect(r.roles.get("a")?.keys.isolation?.value).toBe("worktree");
	});

	it("treats model: inherit and thinking: inherit as not named", () => {
		const r = layout({ "project/.pi/agents/explore.md": "---\nmodel: inherit\nthinking: Inherit\n---\n" }).load();
		expect(r.diagnostics).toEqual([]);
		expect(r.definitions.get("explore")?.keys.model).toBeUndefined();
		expect(r.definitions.get("explore")?.keys.thinking).toBeUndefined();
	});

	it("reads tools as a list, a comma string, all or none", () => {
		const r = layout({
			"project/.pi/agents/a.md": "---\ntools: [read, bash, read]\n---\n",
			"project/.pi/agents/b.md": "---\ntools: read, mcp_*\n---\n",
			"project/.pi/agents/c.md": "---\ntools: ALL\n---\n",
			"project/.pi/agents/d.md": "---\ntools: none\n---\n",
		}).load();
		expect(r.definitions.get("a")?.keys.tools?.value).toEqual(["read", "bash"]);
		expect(r.definitions.get("b")?.keys.tools?.value).toEqual(["read", "mcp_*"]);
		expect(r.definitions.get("c")?.keys.tools?.value).toBe("all");
		expect(r.definitions.get("d")?.keys.tools?.value).toBe("none");
	});

	it("loads a grok-build TOML persona with inputs and outputs", () => {
		const l = layout({
			"project/.pi/personas/writer.toml": [
				'description = "Writes docs"',
				'instructions = """',
				"Write plainly.",
				'"""',
				'instructions_file = "texts/extra.md"',
				'reasoning_effort = "low"',
				'default_isolation = "none"',
				"",
				"[[inputs]]",
				'name = "spec"',
				"required = true",
				"",
				"[[outputs]]",
				'name = "doc"',
				'io_type = "TEXT"',
				'description = "the page"',
			].join("\n"),
			"project/.pi/personas/texts/extra.md": "Short sentences.\n",
		});
		const r = l.load();
		expect(r.diagnostics).toEqual([]);
		const p = r.personas.get("writer");
		expect(p?.body).toEqual({ value: "Write plainly.", source: ".pi/personas/writer.toml:2" });
		expect(p?.keys.thinking).toEqual({ value: "low", source: ".pi/personas/writer.toml:6", column: 1 });
		expect(p?.keys.isolation?.value).toBe("none");
		expect(p?.keys.instructions_file?.value).toEqual({
			written: "texts/extra.md",
			baseDir: `${l.project}/.pi/personas`,
			root: l.project,
			declaredIn: ".pi/personas/writer.toml",
			confine: "project",
			maxBytes: 1024 * 1024,
		});
		expect(p?.keys.inputs?.value).toEqual([{ name: "spec", io_type: "file", required: true, description: null, path: null }]);
		expect(p?.keys.outputs?.value).toEqual([{ name: "doc", io_type: "text", required: false, description: "the page", path: null }]);
	});

	it("loads a grok-build TOML role and positions its keys", () => {
		const r = layout({
			"project/.pi/agents/scout.md": "Scout.\n",
			"project/.pi/roles/scout.toml": 'description = "r"\ndefault_capability_mode = "read_only"\nmodel = "a/b"\nmax_turns = 3\n',
		}).load();
		expect(r.roles.get("scout")?.keys.capability?.value).toBe("read-only");
		expect(r.roles.get("scout")?.keys.model?.source).toBe(".pi/roles/scout.toml:3");
		expect(r.diagnostics.map((d) => `${d.line}:${d.column} ${d.code}`)).toEqual(["4:1 unknown-key"]);
	});

	it("resolves inline prompt_file against the settings scope root", () => {
		const l = layout({
			"project/.pi/agents/scout.md": "Scout.\n",
			"project/.pi/subagents.json": '{"roles": {"scout": {"prompt_file": "docs/role.md"}}}',
			"project/docs/role.md": "Role text.",
		});
		const r = l.load();
		expect(r.diagnostics).toEqual([]);
		expect(r.roles.get("scout")?.keys.prompt_file?.value).toMatchObject({ baseDir: l.project, root: l.project });
	});
});
