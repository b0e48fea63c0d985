/**
 * PLACEHOLDER for `src/core/terminal-text.ts` (issue 9, branch i9-terminal), with the same two
 * functions and meaning: every control character a terminal acts on is shown escaped. `text.ts` is
 * the one importer; when the sanitizer lands, `text.ts` imports it instead and this file goes.
 */

function escaped(char: string): string {
	const code = char.codePointAt(0) as number;
	if (char === "\n") return "\\n";
	if (char === "\r") return "\\r";
	if (char === "\t") return "\\t";
	return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
}

const CONTROLS = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;
const CONTROLS_AND_BREAKS = /[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;

/** Several lines: newlines and tabs stay, every other control character is shown escaped. */
export function safeText(text: string): string {
	return text.replace(/\r\n/g, "\n").replace(CONTROLS, escaped);
}

/** One line: like {@link safeText}, and newlines, carriage returns and tabs are shown escaped too. */
export function safeLine(text: string): string {
	return text.replace(CONTROLS_AND_BREAKS, escaped);
}
