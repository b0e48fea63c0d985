/**
 * The keys of contracts at load (issue 13): an output's `path` (relative, inside the child's cwd,
 * only for file, directory and json outputs), a definition's `output_schema` (a JSON Schema the
 * validator accepts, with ajv's message otherwise) or `output_schema_file` (one key, two
 * spellings), and settings `contracts.repair`.
 */
import { describe, expect, it } from "vitest";
import { layout } from "./fixture.ts";

const persona = (outputs: string) => `---\ndescription: P\noutputs:\n${outputs}---\nBe.\n`;

describe("output path", () => {
	it("is kept for file, directory and json outputs; a file or directory output without one has none at load", () => {
		const l = layout({
			"project/.pi/personas/p.md": persona(
				"  - name: patch\n    io_type: file\n    path: out/patch.diff\n  - name: dist\n    io_type: directory\n  - name: data\n    io_type: json\n    path: data.json\n",
			),
		});
		const loaded = l.load();
		expect(loaded.diagnostics).toEqual([]);
		expect(loaded.personas.get("p")?.keys.outputs?.value.map((spec) => [spec.name, spec.path])).toEqual([
			["patch", "out/patch.diff"],
			["dist", null],
			["data", "data.json"],
		]);
	});

	it.each([
		["/etc/passwd", "absolute"],
		["../outside.txt", "leaves the child's working directory"],
		["a/../../b", "leaves the child's working directory"],
	])("%s is a bad value (%s) and drops the key", (path, why) => {
		const l = layout({ "project/.pi/personas/p.md": persona(`  - name: patch\n    path: ${path}\n`) });
		const loaded = l.load();
		const diagnostic = loaded.diagnostics.find((d) => d.code === "bad-value");
		expect(diagnostic?.message).toContain(why);
		expect(diagnostic?.line).toBe(4);
		expect(loaded.personas.get("p")?.keys.outputs).toBeUndefined();
	});

	it("a text output with a path is a bad value: a text output is a section of the final answer", () => {
		const loaded = layout({ "project/.pi/personas/p.md": persona("  - name: report\n    io_type: text\n    path: r.md\n") }).load();
		expect(loaded.diagnostics.find((d) => d.code === "bad-value")?.message).toContain("a text or url output is a section of the final answer");
	});

	it("path is not an input key, and two outputs of one name are a bad value", () => {
		const input = layout({ "project/.pi/personas/p.md": "---\ninputs:\n  - name: diff\n    path: x\n---\nBe.\n" }).load();
		expect(input.diagnostics.find((d) => d.code === "unknown-key")?.message).toContain("unknown key path in an input");
		const twice = layout({ "project/.pi/personas/p.md": persona("  - name: report\n  - name: Report\n") }).load();
		expect(twice.diagnostics.find((d) => d.code === "bad-value")?.message).toContain("names Report twice");
	});
});

describe("output_schema", () => {
	it("an inline schema is kept; one ajv rejects is a bad value with ajv's reason", () => {
		const good = layout({ "project/.pi/agents/s.md": "---\noutput_schema:\n  type: object\n  properties:\n    score: { type: integer }\n---\nS.\n" }).load();
		expect(good.diagnostics).toEqual([]);
		expect(good.definitions.get("s")?.keys.output_schema?.value).toEqual({ inline: { type: "object", properties: { score: { type: "integer" } } } });
		const bad = layout({ "project/.pi/agents/s.md": "---\noutput_schema:\n  type: object\n  requird: [score]\n---\nS.\n" }).load();
		const diagnostic = bad.diagnostics.find((d) => d.code === "bad-value");
		expect(diagnostic?.message).toContain('is not a usable JSON Schema (strict mode: unknown keyword: "requird")');
		expect(bad.definitions.get("s")?.keys.output_schema).toBeUndefined();
		expect(bad.definitions.get("s")?.invalid.output_schema).toBeDefined();
	});

	it("output_schema_file is the same key in a file: both in one definition repeat it, and a missing file is an error at load", () => {
		const both = layout({
			"project/.pi/agents/s.md": "---\noutput_schema: { type: object }\noutput_schema_file: s.json\n---\nS.\n",
			"project/.pi/agents/s.json": "{}",
		}).load();
		expect(both.diagnostics.find((d) => d.code === "bad-value")?.message).toBe("output_schema_file repeats output_schema (the same setting); this one is ignored");
		const missing = layout({ "project/.pi/agents/s.md": "---\noutput_schema_file: nope.json\n---\nS.\n" }).load();
		expect(missing.diagnostics.map((d) => d.code)).toContain("missing-file");
		const escape = layout({ "project/.pi/agents/s.md": "---\noutput_schema_file: ../../../outside.json\n---\nS.\n", "outside.json": "{}" }).load();
		expect(escape.diagnostics.map((d) => d.code)).toContain("path-escape");
	});
});

describe("settings contracts", () => {
	it("repair defaults to true; false turns it off; a bad value or an unknown key is an error", () => {
		expect(layout().load().settings.contracts).toEqual({ repair: true });
		expect(layout({ "agent/subagents.json": '{"contracts": {"repair": false}}' }).load().settings.contracts).toEqual({ repair: false });
		const bad = layout({ "agent/subagents.json": '{"contracts": {"repair": "no", "repiar": true}}' }).load();
		expect(bad.diagnostics.map((d) => [d.code, d.message])).toEqual([
			["bad-value", 'contracts.repair expects true or false: "no"'],
			["unknown-key", "unknown key repiar in contracts — did you mean repair?"],
		]);
	});
});
