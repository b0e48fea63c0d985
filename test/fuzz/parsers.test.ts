/**
 * Fuzzing the three syntaxes cadre reads (raw.ts): random text never makes a parser throw, every
 * error is positioned, and the fast frontmatter path agrees with the YAML parser whenever it
 * answers (it must never read a line differently than `yaml` would).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fastFrontmatter, parseFrontmatter, parseTomlFields, parseYamlMapping, type Pos } from "../../src/files/raw.ts";
import { aliasBomb, bytes, deep, FUZZ_TIMEOUT, markdown, params, settings, toml } from "./support.ts";

const text = fc.oneof(markdown, toml, settings, deep, aliasBomb, bytes, fc.string({ unit: "binary", maxLength: 300 })).map((t) =>
	typeof t === "string" ? t : Buffer.from(t).toString("utf8"),
);

function positioned(pos: Pos): void {
	if (!(Number.isInteger(pos.line) && pos.line >= 1 && Number.isInteger(pos.column) && pos.column >= 1)) {
		throw new Error(`bad position ${JSON.stringify(pos)}`);
	}
}

/** `key: value` lines the fast path may take: plain scalars and flow lists of them. */
const TRICKY = ["yes", "on", "0b1", "1_000", ".5", "5.", "1e5", "-.inf", "+.nan", "0x", "0o", "~", "Null", "TRUE", "2001-12-14", "don't", "a#b", "a #b", "%x", "@x", "`x", "!x", "&x", "*x", "|", ">", "-", "- x", "? x", ":x", "x:", "a\tb", "-0", "+0", "0.0", "1e", "e1", "0x1G", "\"", "'"];
const plainish = fc.oneof(fc.stringMatching(/^[A-Za-z0-9 ._\/~+\-@%'",:#]{1,16}$/), fc.constantFrom(...TRICKY));
const fastLine = fc
	.tuple(
		fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_-]{0,8}$/),
		fc.oneof(plainish, fc.array(plainish, { maxLength: 4 }).map((items) => `[${items.join(",")}]`), fc.constant("")),
		fc.constantFrom("", " ", "  # note"),
	)
	.map(([k, v, tail]) => `${k}:${v === "" ? "" : ` ${v}`}${tail}`);

describe("fuzz: parsers", () => {
	it(
		"never throw and position every error",
		() => {
			fc.assert(
				fc.property(text, (t) => {
					for (const parsed of [parseFrontmatter(t), parseYamlMapping(t), parseTomlFields(t)]) {
						if (parsed.ok) parsed.fields.forEach((f) => positioned(f.keyPos));
						else positioned(parsed.error.pos);
					}
				}),
				params(150),
			);
		},
		FUZZ_TIMEOUT,
	);

	it(
		"fast frontmatter agrees with the YAML parser when it answers",
		() => {
			fc.assert(
				fc.property(fc.array(fastLine, { maxLength: 6 }), (lines) => {
					const fast = fastFrontmatter(lines, 1);
					if (fast === null) return;
					const full = parseYamlMapping(lines.join("\n"), 1);
					expect(full.ok).toBe(true);
					if (full.ok) expect(fast).toEqual(full.fields);
				}),
				params(300),
			);
		},
		FUZZ_TIMEOUT,
	);
});
