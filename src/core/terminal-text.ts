/**
 * Text a terminal shows (issue 9, ADR 0075). Everything cadre prints for a person — `list`, `check`,
 * `explain`, `prompt`, `worktrees`, pi's `/subagents` and the completion notification — can hold
 * text from a repository's files, a child's output or a request, and a terminal acts on control
 * characters in it: ESC starts CSI/OSC/DCS sequences that clear the screen, set the title or forge
 * hyperlinks; C1 characters do the same in one byte; bidi controls reorder what a line seems to say.
 * This module turns any text into text that is only shown: each such character appears escaped
 * (`\x1b`, `\x9b`, `\u202e`), so the person sees that something was there and nothing acts. The rest
 * of an escape sequence is printable and is shown as it is.
 *
 * Use it once, where text leaves cadre for a terminal: a host sanitizes the plain data it hands a
 * renderer ({@link safeFields}) or the finished text of a renderer without styles ({@link safeText});
 * styles are added after, by the renderer, with {@link bold}, {@link dim}, {@link red} and
 * {@link yellow} — the only escape sequences cadre itself writes. A TUI renders `safeLine(s)` and
 * measures and cuts it with pi-tui's width functions.
 */

/** One character as a person reads it: `\xHH` up to U+00FF (with `\n`, `\r`, `\t` by name), else `\uHHHH`. */
function escaped(char: string): string {
	const code = char.codePointAt(0) as number;
	if (char === "\n") return "\\n";
	if (char === "\r") return "\\r";
	if (char === "\t") return "\\t";
	return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
}

/**
 * What a terminal acts on besides newline and tab: C0 controls, DEL, C1 controls, the bidi marks,
 * embeddings, overrides and isolates (U+061C, U+200E–U+200F, U+202A–U+202E, U+2066–U+2069) and the
 * Unicode line and paragraph separators (U+2028, U+2029).
 */
const CONTROLS = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;
const CONTROLS_AND_BREAKS = /[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;

/**
 * Text safe to write to a terminal, several lines allowed: newlines and tabs stay, CRLF becomes a
 * newline, every other control character is shown escaped. Idempotent.
 */
export function safeText(text: string): string {
	return text.replace(/\r\n/g, "\n").replace(CONTROLS, escaped);
}

/**
 * One line safe to write to a terminal: like {@link safeText}, and newlines, carriage returns and
 * tabs are shown escaped too, so a name, path or message cannot start a line that looks like
 * cadre's own output. Idempotent.
 */
export function safeLine(text: string): string {
	return text.replace(CONTROLS_AND_BREAKS, escaped);
}

/**
 * A copy of plain data (objects, arrays, strings, numbers, …) with every string and object key
 * made safe by `each` (default {@link safeLine}): what a host hands a renderer that adds styles.
 * Values that are not plain objects or arrays are returned as they are.
 */
export function safeFields<T>(value: T, each: (text: string) => string = safeLine): T {
	if (typeof value === "string") return each(value) as T;
	if (Array.isArray(value)) return value.map((item) => safeFields(item, each)) as T;
	if (value === null || typeof value !== "object") return value;
	const proto = Object.getPrototypeOf(value);
	if (proto !== Object.prototype && proto !== null) return value;
	const copy: Record<string, unknown> = proto === null ? Object.create(null) : {};
	for (const [key, item] of Object.entries(value)) copy[each(key)] = safeFields(item, each);
	return copy as T;
}

// ── cadre's own styles ──
// The only escape sequences cadre writes: SGR bold, dim, red and yellow, each reset by its own
// closing code so styles nest (and the full reset `ESC[0m` older renderers close with). Apply them
// to text that is already safe.

const STYLES = {
	bold: ["\x1b[1m", "\x1b[22m"],
	dim: ["\x1b[2m", "\x1b[22m"],
	red: ["\x1b[31m", "\x1b[39m"],
	yellow: ["\x1b[33m", "\x1b[39m"],
} as const;

const style =
	([open, close]: readonly [string, string]) =>
	(text: string): string =>
		`${open}${text}${close}`;

export const bold = style(STYLES.bold);
export const dim = style(STYLES.dim);
export const red = style(STYLES.red);
export const yellow = style(STYLES.yellow);

/**
 * Back to the start of the line and erase it: `cadre run`'s live status line on stderr rewrites
 * itself with this (the one escape sequence cadre writes besides its styles).
 */
export const ERASE_LINE = "\r\x1b[2K";

/** SGR reset, which some renderers (worktree-report.ts) write to close a style. */
const RESET = "\x1b[0m";

const OWN_STYLES = new RegExp(
	[...new Set([...Object.values(STYLES).flat(), RESET])].map((code) => code.replace(/[[\]]/g, "\\$&")).join("|"),
	"g",
);

/** The text without cadre's own style codes (for tests and for measuring width). */
export function stripOwnStyles(text: string): string {
	return text.replace(OWN_STYLES, "");
}
