/**
 * Text the TUI shows, and how it is laid out (issue 11 item 5, ADR 0080). Every string that comes
 * from a child, a definition, a request or a file passes through {@link shown} (one line) or
 * {@link shownBlock} (several lines) — cadre's one sanitizer, `core/terminal-text.ts` (ADR 0075) —
 * before any style is added, so it cannot move the cursor, clear the screen or set the title; every
 * line a renderer returns passes through {@link fit}, so it is never wider than the width pi gives. Widths are measured with pi-tui, which counts terminal
 * columns (wide characters, emoji, styles).
 */
import { truncateToWidth, visibleWidth, wrapTextWithAnsi } from "@earendil-works/pi-tui";
import { safeLine, safeText } from "../../../core/terminal-text.ts";

/** The theme colours cadre's renderers use (a subset of pi's theme tokens). */
export type Tone = "accent" | "muted" | "dim" | "success" | "error" | "warning" | "toolTitle" | "toolOutput" | "text" | "customMessageLabel";

/** What renderers need of pi's theme; pi's `Theme` is one, tests pass their own. */
export interface Style {
	fg(tone: Tone, text: string): string;
	bold(text: string): string;
}

/** No colours: for tests, RPC-free text captures and docs. */
export const plainStyle: Style = { fg: (_tone, text) => text, bold: (text) => text };

/** One line of untrusted text, safe to show: control characters (newlines too) appear escaped. */
export function shown(text: string): string {
	return safeLine(text);
}

/** Untrusted text of several lines, safe to show: newlines stay, tabs become two spaces. */
export function shownBlock(text: string): string {
	return safeText(text).replace(/\t/g, "  ");
}

/**
 * The characters beyond ASCII that cadre's own lines use (separators, arrows, marks, the spinner's
 * braille): one column each, and none joins a neighbour into one grapheme (test/ui/text-width.test.ts
 * holds every one against pi-tui's own count).
 */
export const NARROW_SYMBOLS: ReadonlySet<number> = new Set([0xb7, 0x2013, 0x2014, 0x2026, 0x203a, 0x2190, 0x2191, 0x2192, 0x2193, 0x2197, 0x21b3, 0x2264, 0x2500, 0x25a0, 0x25cc, 0x25cf, 0x2713, 0x2717]);
export const BRAILLE_FIRST = 0x2800;
export const BRAILLE_LAST = 0x28ff;

/** The end of the SGR sequence (`ESC [ digits ; : m`) at `at`, or -1 when there is none. */
function sgrEnd(line: string, at: number): number {
	if (line.charCodeAt(at + 1) !== 0x5b) return -1;
	for (let i = at + 2; i < line.length; i++) {
		const code = line.charCodeAt(i);
		if (code === 0x6d) return i;
		if (!((code >= 0x30 && code <= 0x39) || code === 0x3b || code === 0x3a)) return -1;
	}
	return -1;
}

/**
 * Columns of a line made of printable ASCII, {@link NARROW_SYMBOLS}, braille and SGR styles, counted
 * without grapheme segmentation; -1 for anything else (pi-tui counts it). pi-tui keeps the widths of
 * the last lines it measured, but a line whose numbers moved is new to it, and segmenting it costs
 * ~40 µs: the widget's lines while children work (issue 28).
 */
function quickWidth(line: string): number {
	let width = 0;
	for (let i = 0; i < line.length; i++) {
		const code = line.charCodeAt(i);
		if ((code >= 0x20 && code <= 0x7e) || NARROW_SYMBOLS.has(code) || (code >= BRAILLE_FIRST && code <= BRAILLE_LAST)) width++;
		else if (code === 0x1b) {
			const end = sgrEnd(line, i);
			if (end < 0) return -1;
			i = end;
		} else return -1;
	}
	return width;
}

/** Columns of a line, as the terminal counts them (pi-tui's count). */
function columns(line: string): number {
	const quick = quickWidth(line);
	return quick >= 0 ? quick : visibleWidth(line);
}

/** The line cut to `width` columns with an ellipsis (styles kept and closed). */
export function fit(line: string, width: number): string {
	if (width <= 0) return "";
	return columns(line) <= width ? line : truncateToWidth(line, width, "…");
}

/** Every line cut to `width`. */
export function fitAll(lines: readonly string[], width: number): string[] {
	return lines.map((line) => fit(line, width));
}

/** The line padded with spaces (or cut) to exactly `width` columns. */
export function pad(text: string, width: number): string {
	const used = columns(text);
	return used > width ? fit(text, width) : text + " ".repeat(width - used);
}

/** Columns of a line, as the terminal counts them. */
export function widthOf(text: string): number {
	return columns(text);
}

/**
 * Safe text of several lines wrapped to `width`: the first line after `indent`, the others after
 * `hang` (the indent by default), at most `maxLines` lines (the last ends with "…" when text was
 * left out).
 */
export function wrapped(text: string, width: number, indent = "", maxLines = Number.POSITIVE_INFINITY, hang = indent): string[] {
	const inner = Math.max(1, width - Math.max(visibleWidth(indent), visibleWidth(hang)));
	const lines: string[] = [];
	for (const paragraph of shownBlock(text).split("\n")) {
		const pieces = paragraph === "" ? [""] : wrapTextWithAnsi(paragraph, inner);
		for (const piece of pieces) lines.push(fit((lines.length === 0 ? indent : hang) + piece, width));
	}
	if (lines.length <= maxLines) return lines;
	const kept = lines.slice(0, Math.max(0, maxLines));
	if (kept.length > 0) kept[kept.length - 1] = fit(`${kept[kept.length - 1]} …`, width);
	return kept;
}

/**
 * A path shortened to `width` columns by leaving out the middle: the file name is kept whole when it
 * fits (`/home/me/…/cadre/2026-…jsonl`).
 */
export function shortPath(path: string, width: number): string {
	const safe = shown(path);
	if (visibleWidth(safe) <= width) return safe;
	const slash = safe.lastIndexOf("/");
	const name = slash >= 0 ? safe.slice(slash + 1) : safe;
	if (visibleWidth(name) + 2 > width) return fit(`…${name.slice(-Math.max(1, width - 1))}`, width);
	const room = width - visibleWidth(name) - 2;
	return fit(`${safe.slice(0, Math.max(0, room))}…/${name}`, width);
}

/** Parts joined with " · ", empty ones left out. */
export function dotted(parts: readonly (string | null | undefined | false)[]): string {
	return parts.filter((part): part is string => typeof part === "string" && part !== "").join(" · ");
}

/** Parts laid out as " · "-separated lines of at most `width` columns, each after `indent`. */
export function flow(parts: readonly string[], width: number, indent = ""): string[] {
	const lines: string[] = [];
	let line = "";
	for (const part of parts) {
		if (line !== "" && visibleWidth(line) + 3 + visibleWidth(part) > width) {
			lines.push(line);
			line = "";
		}
		line = line === "" ? indent + part : `${line} · ${part}`;
	}
	if (line !== "") lines.push(line);
	return lines.map((text) => fit(text, width));
}
