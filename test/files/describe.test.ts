/**
 * Default descriptions: the description key, else the first sentence of the first prose paragraph
 * (definitions, ≤ 200 characters) or that paragraph (personas), else the name.
 */
import { describe, expect, it } from "vitest";
import { describeEntry, firstProseParagraph, firstSentence } from "../../src/files/describe.ts";
import { layout } from "./fixture.ts";

describe("describeEntry", () => {
	it("uses the description key when present", () => {
		const r = layout({ "project/.pi/agents/a.md": "---\ndescription: Explicit.\n---\nBody text here.\n" }).load();
		expect(describeEntry(r.definitions.get("a")!)).toBe("Explicit.");
	});

	it("takes the first sentence of the first prose paragraph, skipping headings, lists and code", () => {
		const body = "# Title\n\n- a list\n\n```\ncode. here\n```\n\nFinds the bugs. Then fixes\nthem.\n";
		const r = layout({ "project/.pi/agents/a.md": body, "project/.pi/personas/p.md": body }).load();
		expect(describeEntry(r.definitions.get("a")!)).toBe("Finds the bugs.");
		expect(describeEntry(r.personas.get("p")!)).toBe("Finds the bugs. Then fixes them.");
	});

	it("falls back to the name, and uses the inherited body for metadata-only overrides", () => {
		const r = layout({ "project/.pi/agents/empty.md": "---\nmodel: a/b\n---\n", "project/.pi/agents/explore.md": "---\nmodel: a/b\n---\n" }).load();
		expect(describeEntry(r.definitions.get("empty")!)).toBe("empty");
		expect(describeEntry(r.definitions.get("explore")!)).toMatch(/^Search the codebase/);
	});

	it("describes the built-ins in one sentence each", () => {
		const r = layout().load();
		for (const d of r.definitions.values()) {
			const text = describeEntry(d);
			expect(text.length).toBeGreaterThan(20);
			expect(text.length).toBeLessThanOrEqual(200);
		}
	});
});

describe("firstSentence / firstProseParagraph", () => {
	it("cuts long sentences at a word boundary to at most 200 characters", () => {
		const long = `${"word ".repeat(80)}end.`;
		const s = firstSentence(long);
		expect(s.length).toBeLessThanOrEqual(200);
		expect(s.endsWith("…")).toBe(true);
		expect(s).not.toContain("wor…");
	});

	it("does not split on a period inside a word", () => {
		expect(firstSentence("Reads package.json files and more. Second.")).toBe("Reads package.json files and more.");
	});

	it("is null when there is no prose", () => {
		expect(firstProseParagraph("# Only a heading\n\n- and a list\n")).toBeNull();
	});
});
