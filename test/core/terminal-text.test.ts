/**
 * src/core/terminal-text.ts: what may reach a terminal. Examples for each class of control
 * character, then properties over arbitrary strings (fast-check): the output never holds a control
 * character, printable text passes unchanged, and escaping twice changes nothing.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bold, dim, red, safeFields, safeLine, safeText, stripOwnStyles, yellow } from "../../src/core/terminal-text.ts";

/** Anything a terminal could act on: C0 but newline and tab, DEL, C1, bidi and line separators. */
const UNSAFE_IN_TEXT = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/u;
const UNSAFE_IN_LINE = /[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/u;

/** Strings rich in what attacks a terminal: escape sequences, C1, bidi, plus ordinary text. */
const hostile = fc
	.array(
		fc.oneof(
			fc.constantFrom("\x1b[2J", "\x1b]0;owned\x07", "\x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\", "\x1bP1$r\x1b\\", "\x9b31m", "\x9d0;t\x9c", "\u202e", "\u2066", "\r", "\r\n", "\n", "\t", "\x7f", "\x00", "\\x1b"),
			fc.string({ unit: "binary", maxLength: 8 }),
			fc.string({ maxLength: 8 }),
		),
		{ maxLength: 12 },
	)
	.map((parts) => parts.join(""));

/** Over hostile strings: `sanitize` leaves nothing `unsafe` matches, and a second pass changes nothing. */
function expectSafeAndIdempotent(sanitize: (text: string) => string, unsafe: RegExp): void {
	fc.assert(
		fc.property(hostile, (s) => {
			const safe = sanitize(s);
			expect(safe).not.toMatch(unsafe);
			expect(sanitize(safe)).toBe(safe);
		}),
		{ numRuns: 500 },
	);
}

describe("safeText", () => {
	it("shows ESC, so CSI, OSC and DCS sequences arrive as visible text", () => {
		expect(safeText("a\x1b[2Jb")).toBe("a\\x1b[2Jb");
		expect(safeText("\x1b]0;title\x07")).toBe("\\x1b]0;title\\x07");
		expect(safeText("\x1bP1$r\x1b\\")).toBe("\\x1bP1$r\\x1b\\");
	});

	it("shows C1 controls (8-bit CSI, OSC, ST) and DEL", () => {
		expect(safeText("\x9b31m \x9d0;t\x9c \x85 \x7f")).toBe("\\x9b31m \\x9d0;t\\x9c \\x85 \\x7f");
	});

	it("shows the other C0 controls, a lone carriage return and NUL", () => {
		expect(safeText("a\x00b\x07c\x08d\x0be\x0cf\rg")).toBe("a\\x00b\\x07c\\x08d\\x0be\\x0cf\\rg");
	});

	it("keeps newlines and tabs, and turns CRLF into a newline", () => {
		expect(safeText("one\ttwo\nthree\r\nfour")).toBe("one\ttwo\nthree\nfour");
	});

	it("shows bidi overrides and isolates, and the Unicode line separators", () => {
		expect(safeText("abc\u202edef\u2066x\u2069\u200f\u061c\u2028")).toBe("abc\\u202edef\\u2066x\\u2069\\u200f\\u061c\\u2028");
	});

	it("leaves printable text alone, emoji and combining marks included", () => {
		const text = "naïve café — 漢字 👩‍💻 e\u0301 <tag> \\x1b";
		expect(safeText(text)).toBe(text);
	});

	it("never lets a control character through, and is idempotent", () => {
		expectSafeAndIdempotent(safeText, UNSAFE_IN_TEXT);
	});
});

describe("safeLine", () => {
	it("also shows newlines and tabs: the text stays on one line", () => {
		expect(safeLine("a\nb\tc\r\nd")).toBe("a\\nb\\tc\\r\\nd");
	});

	it("never lets a control character or a line break through, and is idempotent", () => {
		expectSafeAndIdempotent(safeLine, UNSAFE_IN_LINE);
	});
});

describe("safeFields", () => {
	it("makes every string of plain data one safe line, keys included, and keeps the shape", () => {
		const value = { name: "a\x1b[31m", list: ["x\ny", 3, null, true], nested: { "k\x07": { deep: "\u202e" } } };
		expect(safeFields(value)).toEqual({ name: "a\\x1b[31m", list: ["x\\ny", 3, null, true], nested: { "k\\x07": { deep: "\\u202e" } } });
		expect(value.name).toBe("a\x1b[31m");
	});

	it("keeps multi-line text when given safeText", () => {
		expect(safeFields({ text: "a\nb\x1b" }, safeText)).toEqual({ text: "a\nb\\x1b" });
	});
});

describe("cadre's own styles", () => {
	it("are the only escape sequences stripOwnStyles removes", () => {
		const styled = `${bold("B")}${dim("D")}${red("R")}${yellow("Y")}`;
		expect(styled).toContain("\x1b[");
		expect(stripOwnStyles(styled)).toBe("BDRY");
		expect(stripOwnStyles("\x1b[8mhidden\x1b[2J")).toBe("\x1b[8mhidden\x1b[2J");
	});

	it("survive around safe text, and escaped input can never forge one", () => {
		fc.assert(
			fc.property(hostile, (s) => {
				expect(stripOwnStyles(red(safeText(s)))).not.toMatch(UNSAFE_IN_TEXT);
			}),
			{ numRuns: 300 },
		);
	});
});
