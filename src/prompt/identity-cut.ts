/**
 * The identity cut (spec 03): what a child inherits from its parent's prompt. pi 1.6 builds the
 * prompt from named sections; a child keeps the preamble, `<docs>`, `<addendum>` and — when it
 * works in the parent's cwd — `<project_context>`, and drops `<tools>`, `<rules>`, `<skills>`,
 * `<cwd>` and every section or block extensions added.
 *
 * Two inputs, one result. From pi's structured options the cut is by section name. From text,
 * sections are found by whole-line tags at the positions pi writes them: the text is parsed against
 * pi's grammar (preamble, then pi's sections in pi's order, each `<name>` … `</name>` on whole lines
 * separated by one blank line, then only non-pi blocks after `<cwd>`), so a context file that
 * quotes `<skills>` or `<cwd>` lines sits inside its section and cannot move the cut. Text of
 * another shape is cut by its top-level tags, nesting tracked, dropping pi's session blocks
 * (ADR 0077).
 */
import type { Diagnostic } from "../core/diagnostics.ts";
import {
	DOCS_HEADING,
	PI_DEFAULT_PREAMBLE,
	PI_SECTION_ORDER,
	PROJECT_CONTEXT_HEADING,
	SECTION_SEPARATOR,
	SKILLS_HEADING,
	renderPiDocs,
	renderProjectContextBody,
	wrapSection,
} from "./pi-prompt-shape.ts";
import type { ParentPromptOptions } from "./types.ts";

/** The inherited identity and how it was cut. */
export interface IdentityCut {
	/** The identity text (section 1), never empty. */
	text: string;
	/**
	 * pi section names kept, in order (`preamble`, `docs`, `addendum`, `project_context`); in an
	 * unrecognized prompt, kept free text and blocks pi does not name count as `preamble`.
	 */
	kept: string[];
	/** Whether the parent prompt matched pi 1.6's shape (false: cut by its top-level tags, ADR 0077). */
	recognized: boolean;
	diagnostics: Diagnostic[];
}

/** The identity of a child spawned without any parent prompt (CLI runs): claims no capabilities. */
export const GENERIC_IDENTITY =
	"You are an agent working on a task another agent delegated to you. Follow the instructions below and report back what you did.";

/**
 * Cuts the identity from pi's structured options. `keepProjectContext` is true when the child's
 * cwd equals the parent's. A forced prompt (`forceSystemPrompt`) is opaque to pi too, so it is cut
 * as text.
 */
export function cutIdentityFromOptions(options: ParentPromptOptions, keepProjectContext: boolean): IdentityCut {
	if (options.forceSystemPrompt !== null) {
		return cutIdentityFromText(options.forceSystemPrompt, keepProjectContext, "forced system prompt");
	}
	const parts: Array<[string, string]> = [];
	// pi tests `if (customPrompt)`: an empty custom prompt means the default one.
	if (options.customPrompt) parts.push(["preamble", options.customPrompt]);
	else {
		parts.push(["preamble", PI_DEFAULT_PREAMBLE]);
		parts.push(["docs", renderPiDocs(options.docPaths)]);
	}
	if (options.appendSystemPrompt) parts.push(["addendum", options.appendSystemPrompt]);
	if (keepProjectContext && options.contextFiles.length > 0) {
		parts.push(["project_context", renderProjectContextBody(options.contextFiles)]);
	}
	return {
		text: parts.map(([name, body]) => wrapSection(name, body)).join(SECTION_SEPARATOR),
		kept: parts.map(([name]) => name),
		recognized: true,
		diagnostics: [],
	};
}

/** One section of a parsed pi prompt: `start`/`end` are character offsets of the whole block. */
export interface ParsedSection {
	name: string;
	start: number;
	end: number;
}

/** A prompt parsed against pi 1.6's grammar. */
export interface ParsedPiPrompt {
	/** The preamble first, then pi's sections in order; `cwd` is always last. */
	sections: ParsedSection[];
	/** Offset where the text after `<cwd>` (extension sections and appended blocks) begins. */
	tailStart: number;
}

const GENERATED = new Set(["tools", "rules", "docs", "skills"]);

/** Whether `pos` is where pi could start a block: the start of the text or after one blank line. */
function atBlockStart(text: string, pos: number): boolean {
	return pos === 0 || (pos >= 2 && text.startsWith(SECTION_SEPARATOR, pos - 2));
}

/** Whether a block may end at `end`: at the end of the text or before a blank line. */
function atBlockEnd(text: string, end: number): boolean {
	return end === text.length || text.startsWith(SECTION_SEPARATOR, end);
}

/** Ends (exclusive offsets) at which a `<name>` block opened at `pos` could close, in order. */
function closeCandidates(text: string, pos: number, name: string): number[] {
	const open = `<${name}>\n`;
	const close = `\n</${name}>`;
	const bodyStart = pos + open.length;
	if (name === "cwd") {
		const eol = text.indexOf("\n", bodyStart);
		if (eol <= bodyStart || !text.startsWith(close, eol) || !atBlockEnd(text, eol + close.length)) return [];
		return [eol + close.length];
	}
	const ends: number[] = [];
	for (let at = text.indexOf(close, bodyStart - 1); at !== -1; at = text.indexOf(close, at + 1)) {
		const end = at + close.length;
		if (!atBlockEnd(text, end)) continue;
		if (!bodyFits(name, text.slice(bodyStart, Math.max(bodyStart, at)))) continue;
		ends.push(end);
		// pi generates these bodies line by line with fixed prefixes: the first closing line is theirs.
		if (GENERATED.has(name)) break;
	}
	return ends;
}

/** Shape checks on a section body, from what pi writes there. */
function bodyFits(name: string, body: string): boolean {
	switch (name) {
		case "tools":
			return body.endsWith("Additional tools may be available.");
		case "rules":
			return body.startsWith("- ");
		case "docs":
			return body.startsWith(DOCS_HEADING);
		case "skills":
			return body.startsWith(SKILLS_HEADING);
		case "project_context":
			return (
				body.startsWith(`${PROJECT_CONTEXT_HEADING}\n\n<project_instructions path="`) &&
				body.endsWith("\n</project_instructions>")
			);
		default:
			return body.length > 0;
	}
}

/** A line `<name>` for one of pi's own sections at a block start anywhere in `text` from `from`. */
function hasPiBlock(text: string, from: number): boolean {
	for (const name of PI_SECTION_ORDER) {
		const open = `<${name}>\n`;
		for (let at = text.indexOf(open, from); at !== -1; at = text.indexOf(open, at + 1)) {
			if (atBlockStart(text, at)) return true;
		}
	}
	return false;
}

/** After `<cwd>` pi writes only extension sections: the tail must hold none of pi's own blocks. */
function tailFits(text: string, end: number): boolean {
	return end === text.length || (text.startsWith(SECTION_SEPARATOR, end) && !hasPiBlock(text, end + 2));
}

/** Parses the sections from `pos` on, allowed names from `order[index]` on; null when they do not fit. */
function parseSections(text: string, pos: number, order: readonly string[], index: number): ParsedSection[] | null {
	for (let i = index; i < order.length; i++) {
		const name = order[i] as string;
		if (!text.startsWith(`<${name}>\n`, pos)) continue;
		for (const end of closeCandidates(text, pos, name)) {
			const section = { name, start: pos, end };
			if (name === "cwd") {
				if (tailFits(text, end)) return [section];
				continue;
			}
			if (!text.startsWith(SECTION_SEPARATOR, end)) continue;
			const rest = parseSections(text, end + SECTION_SEPARATOR.length, order, i + 1);
			if (rest) return [section, ...rest];
		}
		return null;
	}
	return null;
}

const DEFAULT_ORDER = PI_SECTION_ORDER;
/** With a custom preamble pi writes no tools, rules or docs. */
const CUSTOM_ORDER = PI_SECTION_ORDER.filter((name) => !["tools", "rules", "docs"].includes(name));
/** With pi's default preamble the tools, rules and docs sections always follow it. */
const REQUIRED_AFTER_DEFAULT = ["tools", "rules", "docs"];

/** Parses a system prompt against pi 1.6's grammar; null when it does not have that shape. */
export function parsePiPrompt(text: string): ParsedPiPrompt | null {
	const defaultStart = PI_DEFAULT_PREAMBLE + SECTION_SEPARATOR;
	// pi's default preamble followed by a tools block is pi's default shape or nothing: a custom
	// preamble would not start with pi's own tool list.
	if (text.startsWith(`${defaultStart}<tools>\n`)) {
		const sections = parseSections(text, defaultStart.length, DEFAULT_ORDER, 0);
		if (sections && REQUIRED_AFTER_DEFAULT.every((name, i) => sections[i]?.name === name)) {
			return finish({ name: "preamble", start: 0, end: PI_DEFAULT_PREAMBLE.length }, sections);
		}
		return null;
	}
	// A custom preamble is free text: its end is the earliest block start from which the rest of
	// the text parses as pi's sections.
	for (let at = text.indexOf(`${SECTION_SEPARATOR}<`); at !== -1; at = text.indexOf(`${SECTION_SEPARATOR}<`, at + 1)) {
		const pos = at + SECTION_SEPARATOR.length;
		if (at === 0) continue;
		const sections = parseSections(text, pos, CUSTOM_ORDER, 0);
		if (sections) return finish({ name: "preamble", start: 0, end: at }, sections);
	}
	return null;
}

function finish(preamble: ParsedSection, sections: ParsedSection[]): ParsedPiPrompt {
	const last = sections[sections.length - 1] as ParsedSection;
	return { sections: [preamble, ...sections], tailStart: last.end };
}

/** One line of a prompt: its text and where it starts and ends (before its newline). */
interface Line {
	text: string;
	start: number;
	end: number;
}

function linesOf(text: string): Line[] {
	const lines: Line[] = [];
	for (let start = 0; start <= text.length; ) {
		const eol = text.indexOf("\n", start);
		const end = eol === -1 ? text.length : eol;
		lines.push({ text: text.slice(start, end), start, end });
		if (eol === -1) break;
		start = eol + 1;
	}
	return lines;
}

/** The tag name of a whole line `<name>` / `<name attr="…">`, or of a closing `</name>` (`close`). */
function tagOf(line: string): { name: string; close: boolean } | null {
	const match = /^<(\/?)([a-z][a-z0-9_-]*)(?:\s[^<>]*)?>$/.exec(line.trim());
	if (!match || (match[1] === "/" && line.trim() !== `</${match[2]}>`)) return null;
	return { name: match[2] as string, close: match[1] === "/" };
}

/** A top-level piece of a prompt of unknown shape: free text, or a tagged block with its nesting skipped. */
interface Piece {
	/** The block's tag, or null for free text. */
	name: string | null;
	/** Index of the first line and one past the last. */
	from: number;
	to: number;
}

const PI_TAGS: ReadonlySet<string> = new Set(PI_SECTION_ORDER);
/** pi's sections the child never inherits (`project_context` is decided by the cwd). */
const DROPPED: ReadonlySet<string> = new Set(["tools", "rules", "skills", "cwd"]);

/**
 * For every whole-line opening tag, the line of its matching closing tag: tags of the same name
 * nest (a stack per name), any other line inside is content. One pass over the lines.
 */
function matchingCloses(tags: (ReturnType<typeof tagOf>)[]): Map<number, number> {
	const open = new Map<string, number[]>();
	const closes = new Map<number, number>();
	tags.forEach((tag, i) => {
		if (!tag) return;
		const stack = open.get(tag.name) ?? [];
		open.set(tag.name, stack);
		if (!tag.close) stack.push(i);
		else if (stack.length > 0) closes.set(stack.pop() as number, i);
	});
	return closes;
}

/**
 * The top-level pieces of a prompt: a whole-line tag opens a block that ends at its matching
 * closing line, so tags quoted inside a block (a context file quoting `<skills>`) stay inside it.
 * An unclosed tag is text — unless it is one of pi's dropped sections, which then runs to the next
 * line opening one of pi's sections (failing closed: an unclosed tool list is still dropped).
 */
function topLevelPieces(lines: Line[]): Piece[] {
	const tags = lines.map((line) => tagOf(line.text));
	const closes = matchingCloses(tags);
	const opensPiSection = (i: number) => tags[i]?.close === false && PI_TAGS.has(tags[i]?.name ?? "");
	const pieces: Piece[] = [];
	for (let i = 0; i < lines.length; ) {
		const tag = tags[i];
		const close = closes.get(i);
		const unclosedDropped = tag !== null && tag !== undefined && !tag.close && close === undefined && DROPPED.has(tag.name);
		let to = close === undefined ? i + 1 : close + 1;
		if (unclosedDropped) while (to < lines.length && !opensPiSection(to)) to++;
		const name = tag && (close !== undefined || unclosedDropped) ? tag.name : null;
		const last = pieces[pieces.length - 1];
		if (name === null && last?.name === null && last.to === i) last.to = to;
		else pieces.push({ name, from: i, to });
		i = to;
	}
	return pieces;
}

/**
 * The cut of a prompt that does not parse as pi 1.6's shape, failing closed: pi's own `<tools>`,
 * `<rules>`, `<skills>` and `<cwd>` blocks are dropped wherever they stand at top level (and
 * `<project_context>` unless the cwd is the parent's), and so is everything after the last
 * top-level `<cwd>` but pi's kept sections — what extensions append. Free text, `<docs>`,
 * `<addendum>` and blocks pi does not name before `<cwd>` are kept.
 */
function cutUnrecognized(text: string, keepProjectContext: boolean, source: string | null): IdentityCut {
	const lines = linesOf(text);
	const pieces = topLevelPieces(lines);
	const lastCwd = pieces.map((piece) => piece.name).lastIndexOf("cwd");
	const keptNames = new Set(["docs", "addendum", ...(keepProjectContext ? ["project_context"] : [])]);
	const kept: string[] = [];
	const parts: string[] = [];
	const dropped: Piece[] = [];
	let tailDropped = false;
	pieces.forEach((piece, index) => {
		const pi = piece.name !== null && PI_TAGS.has(piece.name);
		const keep = pi ? keptNames.has(piece.name as string) : lastCwd === -1 || index < lastCwd;
		const body = text.slice((lines[piece.from] as Line).start, (lines[piece.to - 1] as Line).end).replace(/^\n+|\n+$/g, "");
		if (body.trim() === "") return;
		if (!keep) {
			if (pi) dropped.push(piece);
			else tailDropped = true;
			return;
		}
		parts.push(body);
		const name = pi ? (piece.name as string) : "preamble";
		if (!kept.includes(name)) kept.push(name);
	});
	const list = [
		...dropped.map((piece) => `<${piece.name}> (line ${piece.from + 1})`),
		...(tailDropped ? ["what follows <cwd>"] : []),
	];
	const what = list.length > 0 ? `dropped its top-level ${list.join(", ")}` : "found none of pi's blocks to drop";
	const first = dropped[0];
	return {
		text: parts.length > 0 ? parts.join(SECTION_SEPARATOR) : GENERIC_IDENTITY,
		kept,
		recognized: false,
		diagnostics: [
			{
				severity: "warning",
				file: source,
				line: first ? first.from + 1 : 1,
				column: 1,
				code: "identity-unrecognized",
				message: `the parent prompt does not have pi 1.6's section shape, so cadre cut it by its top-level tags: ${what}; the rest is kept`,
				hint: "pass the prompt exactly as pi wrote it (ctx.getSystemPrompt()), or check which extension rewrote it",
			},
		],
	};
}

/**
 * Cuts the identity from prompt text. `source` names where the text came from, for the
 * `identity-unrecognized` diagnostic.
 */
export function cutIdentityFromText(text: string, keepProjectContext: boolean, source: string | null): IdentityCut {
	const parsed = parsePiPrompt(text);
	if (parsed) {
		const kept = parsed.sections.filter(
			(s) => s.name === "preamble" || s.name === "docs" || s.name === "addendum" || (keepProjectContext && s.name === "project_context"),
		);
		return {
			text: kept.map((s) => text.slice(s.start, s.end)).join(SECTION_SEPARATOR),
			kept: kept.map((s) => s.name),
			recognized: true,
			diagnostics: [],
		};
	}
	return cutUnrecognized(text, keepProjectContext, source);
}
