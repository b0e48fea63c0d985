/**
 * How cadre counts a line's columns (issue 28): lines made of ASCII, the symbols cadre's own rows
 * use, the spinner's braille and SGR styles are counted without grapheme segmentation; anything
 * else is counted by pi-tui. Both counts must be the same for every line, or a row would be cut
 * where pi-tui would not (or overflow the terminal).
 */
import { truncateToWidth, visibleWidth } from "@earendil-works/pi-tui";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BRAILLE_FIRST, BRAILLE_LAST, fit, NARROW_SYMBOLS, pad, widthOf } from "../../src/hosts/pi/ui/text.ts";

const symbols = [...NARROW_SYMBOLS].map((code) => String.fromCharCode(code));
const braille = Array.from({ length: BRAILLE_LAST - BRAILLE_FIRST + 1 }, (_, i) => String.fromCharCode(BRAILLE_FIRST + i));
const styles = ["\x1b[0m", "\x1b[1m", "\x1b[22m", "\x1b[36m", "\x1b[39m", "\x1b[38;5;244m", "\x1b[38;2;10;20;30m", "\x1b[4:3m"];

/** A line of the kinds the quick count takes: ASCII, cadre's symbols, braille and styles, mixed. */
const quickLine = fc
	.array(fc.oneof(fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)) }), fc.constantFrom(...symbols), fc.constantFrom(...braille), fc.constantFrom(...styles)), { maxLength: 40 })
	.map((parts) => parts.join(""));

describe("a line's columns", () => {
	it("are one for each of cadre's symbols and each braille character, as pi-tui counts them", () => {
		for (const char of [...symbols, ...braille]) {
			expect(visibleWidth(char), `U+${char.charCodeAt(0).toString(16)}`).toBe(1);
			expect(widthOf(char)).toBe(1);
			// none joins the character before it into one grapheme
			expect(visibleWidth(`a${char}`)).toBe(2);
		}
	});

	it("are pi-tui's count for every line of those characters and styles, and `fit` cuts where pi-tui would", () => {
		fc.assert(
			fc.property(quickLine, fc.integer({ min: 1, max: 60 }), (line, width) => {
				expect(widthOf(line)).toBe(visibleWidth(line));
				expect(fit(line, width)).toBe(visibleWidth(line) <= width ? line : truncateToWidth(line, width, "…"));
				expect(widthOf(pad(line, width))).toBe(visibleWidth(pad(line, width)));
			}),
			{ numRuns: 2000 },
		);
	});

	it("are pi-tui's count for what the quick count does not take: wide, joined and zero-width characters, other escapes", () => {
		const lines = ["漢字 review", "done ✅", "e\u0301 accent", "flag 🇩🇪", "tab\there", "zero\u200bwidth", "soft\u00adhyphen", "\x1b]8;;https://x\x07link\x1b]8;;\x07", "\x1b[2Kcleared", "· ok ✓ 漢"];
		for (const line of lines) expect(widthOf(line), JSON.stringify(line)).toBe(visibleWidth(line));
	});
});
