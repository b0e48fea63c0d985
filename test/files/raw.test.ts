/**
 * The raw readers: frontmatter splitting (BOM, CRLF, `...`, no frontmatter), and the fast path for
 * common frontmatter agreeing exactly — values and positions — with the full YAML parser.
 */
import { describe, expect, it } from "vitest";
import { fastFrontmatter, parseFrontmatter, parseTomlFields, parseYamlMapping } from "../../src/files/raw.ts";

const AGREE = [
	"description: Finds bugs in code\nmodel: anthropic/claude-sonnet-4\nthinking: high",
	"tools: [read, grep, find, ls]\ncapability: read-only\nmax_turns: 12\nenabled: false\nrun_in_background: True",
	"tools: []\nmodel:\nthinking: ~\nisolation: null\nmax_turns: 0x1F\nx: 0o17\ny: +3\nz: 1.5e3\nw: .inf\nv: -.INF\nu: .nan",
	"description: Say \"hi\" to the user, don't shout\nname: scout",
	"# a comment\n\ndescription: with blank lines\n\n\nmodel: a/b   ",
	"tools: [ read ,grep,  find ]\nmodel: http://example.com/x",
	"description: 12 monkeys\nmodel: a:b",
	"tools: [1, true, null, x]",
	"description: -starts with dash\nmax_turns: -3\nx: ?q",
	// found by test/fuzz/parsers.test.ts: an empty value after spaces is positioned after them
	"description: \nmodel:   \nthinking:",
];

const FALLBACK = [
	"description: a: b",
	"description: text # comment",
	"outputs:\n  - name: report",
	"description: 'quoted'",
	"description: |\n  block",
	"tools: [read, [nested]]",
	"tools: [\"read\"]",
	"a: 1\na: 2",
	"- a\n- b",
	"key:value",
	"anchor: &a x",
	"description:\n  continued",
	"description: - item",
	"description: x\n  continued",
];

describe("fast frontmatter", () => {
	it.each(AGREE)("agrees with the YAML parser on %j", (text) => {
		const fast = fastFrontmatter(text.split("\n"), 1);
		const full = parseYamlMapping(text, 1);
		expect(fast).not.toBeNull();
		expect(full.ok).toBe(true);
		if (full.ok) expect(fast).toEqual(full.fields);
	});

	it.each(FALLBACK)("leaves %j to the YAML parser", (text) => {
		expect(fastFrontmatter(text.split("\n"), 1)).toBeNull();
	});
});

describe("parseFrontmatter", () => {
	it("splits frontmatter and body and numbers the body line", () => {
		const r = parseFrontmatter("---\nmodel: a/b\n---\n\n\n  Body text.\n\nMore.\n");
		expect(r).toEqual({
			ok: true,
			fields: [{ key: "model", keyPos: { line: 2, column: 1 }, val: { value: "a/b", pos: { line: 2, column: 8 } } }],
			body: "Body text.\n\nMore.",
			bodyLine: 6,
		});
	});

	it("handles a BOM, CRLF line ends and a `...` closing line", () => {
		const r = parseFrontmatter("\ufeff---\r\nmodel: a/b\r\n...\r\nBody\r\n");
		expect(r.ok && r.fields[0]?.val.value).toBe("a/b");
		expect(r.ok && r.body).toBe("Body");
		expect(r.ok && r.bodyLine).toBe(4);
	});

	it("treats a file without a leading --- as all body", () => {
		expect(parseFrontmatter("Just text.\n---\nmodel: x\n")).toMatchObject({ ok: true, fields: [], body: "Just text.\n---\nmodel: x", bodyLine: 1 });
		expect(parseFrontmatter("")).toMatchObject({ ok: true, fields: [], body: null });
	});

	it("uses the YAML parser for nested values, keeping positions", () => {
		const r = parseFrontmatter("---\noutputs:\n  - name: report\n    io_type: text\n---\n");
		expect(r.ok && r.fields[0]?.val.items?.[0]?.fields?.[1]).toEqual({
			key: "io_type",
			keyPos: { line: 4, column: 5 },
			val: { value: "text", pos: { line: 4, column: 14 } },
		});
	});
});

describe("parseTomlFields", () => {
	it("locates top-level keys and array tables by scanning lines", () => {
		const r = parseTomlFields('# c\n  model = "a/b"\n\n[[inputs]]\nname = "x"\n');
		expect(r.ok && r.fields.map((f) => [f.key, f.keyPos, f.val.pos])).toEqual([
			["model", { line: 2, column: 3 }, { line: 2, column: 11 }],
			["inputs", { line: 4, column: 1 }, { line: 4, column: 1 }],
		]);
	});
});
