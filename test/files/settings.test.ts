/**
 * Layered subagents.json: defaults, user under project, objects merged per key, arrays and
 * scalars replaced, case-insensitive type keys, sources with lines, inline entries.
 */
import { describe, expect, it } from "vitest";
import { layout } from "./fixture.ts";

describe("settings", () => {
	it("has the documented defaults with no files", () => {
		const s = layout().load().settings;
		expect(s.maxConcurrent).toEqual({ value: 4, source: "default" });
		expect(s.maxResultChars).toBe(50_000);
		expect(s.strict).toBe(false);
		expect(s.worktree).toEqual({ baseDir: null, allowSharedFallback: false });
		expect(s.defaultMaxTurns).toBeNull();
		expect(s.files).toEqual([]);
	});

	it("merges objects per key and replaces arrays and scalars, trusted project over user", () => {
		const l = layout({
			"agent/subagents.json": JSON.stringify({
				maxConcurrent: 8,
				defaultMaxTurns: 10,
				models: { Scout: "u/scout", plan: "u/plan" },
				toggle: { plan: false },
				childExtensions: { exclude: ["a", "b"] },
				worktree: { baseDir: "/wt" },
			}),
			"project/.pi/agents/scout.md": "Scout.\n",
			"project/.pi/subagents.json": '{\n  "maxConcurrent": 2,\n  "models": {"scout": "p/scout"},\n  "childExtensions": {"exclude": ["c"]},\n  "defaultBackground": true\n}',
		});
		const r = l.load({ projectTrusted: true });
		expect(r.diagnostics).toEqual([]);
		const s = r.settings;
		expect(s.maxConcurrent).toEqual({ value: 2, source: "settings:.pi/subagents.json:2" });
		expect(s.defaultMaxTurns?.value).toBe(10);
		expect(s.defaultMaxTurns?.source).toBe(`settings:${l.agent}/subagents.json:1`);
		expect(s.defaultBackground).toEqual({ value: true, source: "settings:.pi/subagents.json:5" });
		expect(s.models.scout).toEqual({ value: "p/scout", source: "settings:.pi/subagents.json:3" });
		expect(s.models.plan?.value).toBe("u/plan");
		expect(s.toggle.plan?.value).toBe(false);
		expect(s.childExtensions.exclude).toEqual(["c"]);
		expect(s.worktree.baseDir).toBe("/wt");
		expect(s.files).toEqual([".pi/subagents.json", `${l.agent}/subagents.json`]);
	});

	it("a valid project pin clears a rejected user pin; a rejected project pin is kept above a valid user one", () => {
		const r = layout({
			"agent/subagents.json": '{"models": {"a": 1, "b": "u/b"}}',
			"project/.pi/subagents.json": '{"models": {"a": "p/a", "b": false}}',
		}).load();
		expect(r.settings.models.a?.value).toBe("p/a");
		expect(r.settings.invalidPins.models.a).toBeUndefined();
		expect(r.settings.models.b?.value).toBe("u/b");
		expect(r.settings.invalidPins.models.b?.raw).toBe(false);
	});

	it("reads strict, maxResultChars and rejects bad scalars without losing the rest", () => {
		const r = layout({ "project/.pi/subagents.json": '{"strict": true, "maxResultChars": 1000, "maxConcurrent": 0, "models": []}' }).load();
		expect(r.settings.strict).toBe(true);
		expect(r.settings.maxResultChars).toBe(1000);
		expect(r.settings.maxConcurrent.value).toBe(4);
		expect(r.diagnostics.map((d) => d.code)).toEqual(["bad-value", "bad-value"]);
	});

	it("reads ui.widget (background by default) and rejects other values and keys with a position", () => {
		expect(layout().load().settings.ui).toEqual({ widget: "background", list: true });
		expect(layout({ "project/.pi/subagents.json": '{"ui": {"widget": "all"}}' }).load().settings.ui).toEqual({ widget: "all", list: true });
		const r = layout({ "project/.pi/subagents.json": '{"ui": {"widget": "everything", "widgets": "off"}}' }).load();
		expect(r.settings.ui).toEqual({ widget: "background", list: true });
		expect(r.diagnostics.map((d) => [d.code, d.line, d.column])).toEqual([
			["bad-value", 1, 19],
			["unknown-key", 1, 33],
		]);
	});

	it("reads ui.list (the child list under the editor, on by default) and rejects a non-boolean", () => {
		expect(layout({ "project/.pi/subagents.json": '{"ui": {"list": false}}' }).load().settings.ui).toEqual({ widget: "background", list: false });
		const r = layout({ "project/.pi/subagents.json": '{"ui": {"list": "no"}}' }).load();
		expect(r.settings.ui.list).toBe(true);
		expect(r.diagnostics.map((d) => d.code)).toEqual(["bad-value"]);
	});

	it("turns inline roles and personas into layers with settings sources", () => {
		const r = layout({
			"project/.pi/subagents.json": '{\n "personas": {\n  "Terse": {\n   "instructions": "Be terse.",\n   "effort": "low"\n  }\n }\n}',
		}).load();
		const p = r.personas.get("terse");
		expect(p?.name).toBe("Terse");
		expect(p?.scope).toBe("project-inline");
		expect(p?.body).toEqual({ value: "Be terse.", source: "settings:.pi/subagents.json:4" });
		expect(p?.keys.thinking).toEqual({ value: "low", source: "settings:.pi/subagents.json:5", column: 4 });
	});

	it("reports inline entries that are not objects or repeat a name", () => {
		const r = layout({ "project/.pi/subagents.json": '{"personas": {"a": "text", "B": {}, "b": {}}}' }).load();
		expect(r.diagnostics.map((d) => d.code)).toEqual(["bad-value", "ambiguous-name", "ambiguous-name"]);
		expect(r.personas.size).toBe(0);
	});

	it("rejects a text key in a Markdown file's frontmatter", () => {
		const r = layout({ "project/.pi/personas/p.md": "---\ninstructions: nope\n---\nBody.\n" }).load();
		expect(r.diagnostics.map((d) => d.code)).toEqual(["unknown-key"]);
	});
});
