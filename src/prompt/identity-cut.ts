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
 * quotes `<skills>` or `<cwd>` lines sits inside its section and cannot move the cut.
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
	/** pi section names kept, in order (`preamble`, `docs`, `addendum`, `project_context`). */
	kept: string[];
	/** Whether the parent prompt matched pi 1.6's shape (false: kept whole up to a `<cwd>` block). */
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

/** Offset of a structural `<cwd>` block in a prompt of unknown shape (the first after which no pi block follows), or -1. */
function structuralCwd(text: string): number {
	for (let at = text.indexOf("<cwd>\n"); at !== -1; at = text.indexOf("<cwd>\n", at + 1)) {
		if (!atBlockStart(text, at)) continue;
		const ends = closeCandidates(text, at, "cwd");
		const end = ends[0];
		if (end !== undefined && tailFits(text, end)) return at;
	}
	return -1;
}

/** 1-based line of a character offset. */
function lineOf(text: string, offset: number): number {
	let line = 1;
	for (let i = text.indexOf("\n"); i !== -1 && i < offset; i = text.indexOf("\n", i + 1)) line++;
	return line;
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
	const cwdAt = structuralCwd(text);
	const whole = (cwdAt === -1 ? text : text.slice(0, cwdAt)).trimEnd();
	const where = cwdAt === -1 ? "whole" : `whole up to its <cwd> block (line ${lineOf(text, cwdAt)})`;
	return {
		text: whole.length > 0 ? whole : GENERIC_IDENTITY,
		kept: [],
		recognized: false,
		diagnostics: [
			{
				severity: "warning",
				file: source,
				line: cwdAt === -1 ? 1 : lineOf(text, cwdAt),
				column: 1,
				code: "identity-unrecognized",
				message: `the parent prompt does not have pi 1.6's section shape, so the child inherits it ${where}, including any tool list, rules or skills it holds`,
				hint: "pass the prompt exactly as pi wrote it (ctx.getSystemPrompt()), or check which extension rewrote it",
			},
		],
	};
}
