/**
 * Raw key/value trees with positions, read from YAML frontmatter, TOML files and JSON settings.
 * This is the only place that knows the three syntaxes; validation (keys.ts, settings.ts) works on
 * the trees and can position every diagnostic on the offending key or value.
 */
import { parse as parseToml } from "smol-toml";
import { type Document, isMap, isScalar, isSeq, LineCounter, type Node, parseDocument } from "yaml";

/** A 1-based line and column. */
export interface Pos {
	line: number;
	column: number;
}

/** A value with where it was written; mappings and sequences keep their children's positions. */
export interface RawValue {
	value: unknown;
	pos: Pos;
	/** Present when the value is a mapping (in written order). */
	fields?: RawField[];
	/** Present when the value is a sequence. */
	items?: RawValue[];
}

export interface RawField {
	key: string;
	keyPos: Pos;
	val: RawValue;
}

/** A syntax error, positioned. */
export interface RawError {
	pos: Pos;
	message: string;
}

export type RawParse = { ok: true; fields: RawField[] } | { ok: false; error: RawError };

/** A Markdown file split into its frontmatter fields and trimmed body. */
export type FrontmatterParse =
	| { ok: true; fields: RawField[]; body: string | null; bodyLine: number }
	| { ok: false; error: RawError };

const START = { line: 1, column: 1 };

/** Parses a YAML (or JSON) mapping document; `lineOffset` is added to every line. */
export function parseYamlMapping(text: string, lineOffset = 0): RawParse {
	const lineCounter = new LineCounter();
	let doc: Document;
	try {
		doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true, strict: true });
	} catch (error) {
		return { ok: false, error: { pos: { line: 1 + lineOffset, column: 1 }, message: String(error) } };
	}
	const at = (offset: number): Pos => {
		const lp = lineCounter.linePos(offset);
		return { line: lp.line + lineOffset, column: lp.col };
	};
	const first = doc.errors[0];
	if (first) return { ok: false, error: { pos: at(first.pos[0]), message: oneLine(first.message) } };
	const contents = doc.contents;
	if (contents === null || (isScalar(contents) && (contents.value === null || contents.value === ""))) {
		return { ok: true, fields: [] };
	}
	if (!isMap(contents)) {
		return {
			ok: false,
			error: { pos: at(contents.range?.[0] ?? 0), message: "expected a mapping of `key: value` lines" },
		};
	}
	const tree = toRaw(contents, doc, at);
	return { ok: true, fields: tree.fields ?? [] };
}

function toRaw(node: Node | null | unknown, doc: Document, at: (offset: number) => Pos, fallback = START): RawValue {
	if (node === null || node === undefined || typeof node !== "object") return { value: node ?? null, pos: fallback };
	const n = node as Node;
	const pos = n.range ? at(n.range[0]) : fallback;
	if (isMap(n)) {
		const fields: RawField[] = [];
		for (const pair of n.items) {
			const keyNode = pair.key as Node | null;
			const keyPos = keyNode && keyNode.range ? at(keyNode.range[0]) : pos;
			const key = isScalar(keyNode) ? String(keyNode.value) : String(keyNode?.toJSON?.() ?? "");
			fields.push({ key, keyPos, val: toRaw(pair.value, doc, at, keyPos) });
		}
		return { value: n.toJS(doc), pos, fields };
	}
	if (isSeq(n)) {
		return { value: n.toJS(doc), pos, items: n.items.map((item) => toRaw(item, doc, at, pos)) };
	}
	return { value: n.toJS(doc), pos };
}

/**
 * Splits `---` frontmatter from the body. A file without a leading `---` line is all body. The
 * body is trimmed; empty is null. `bodyLine` is the line the body text starts on.
 */
export function parseFrontmatter(text: string): FrontmatterParse {
	const src = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
	const lines = src.split(/\r?\n/);
	if (lines[0]?.trimEnd() !== "---") return { ok: true, fields: [], ...bodyOf(lines, 0) };
	let end = -1;
	for (let i = 1; i < lines.length; i++) {
		const line = lines[i] ?? "";
		if (line.trimEnd() === "---" || line.trimEnd() === "...") {
			end = i;
			break;
		}
	}
	if (end < 0) {
		return { ok: false, error: { pos: START, message: "the frontmatter opened by `---` on line 1 is never closed" } };
	}
	const yaml = lines.slice(1, end).join("\n");
	const parsed = parseYamlMapping(yaml, 1);
	if (!parsed.ok) return parsed;
	return { ok: true, fields: parsed.fields, ...bodyOf(lines, end + 1) };
}

function bodyOf(lines: string[], from: number): { body: string | null; bodyLine: number } {
	let start = from;
	while (start < lines.length && (lines[start] ?? "").trim() === "") start++;
	const body = lines.slice(start).join("\n").trim();
	return { body: body === "" ? null : body, bodyLine: start + 1 };
}

/**
 * Parses a TOML file into fields. TOML has no positions in the parser's output, so top-level keys
 * are located by scanning lines; nested values carry their top-level key's position.
 */
export function parseTomlFields(text: string): RawParse {
	let data: Record<string, unknown>;
	try {
		data = parseToml(text) as Record<string, unknown>;
	} catch (error) {
		const e = error as { line?: number; column?: number; message?: string };
		const message = oneLine(String(e.message ?? error).replace(/^Invalid TOML document:\s*/, ""));
		return { ok: false, error: { pos: { line: e.line ?? 1, column: e.column ?? 1 }, message } };
	}
	const lines = text.split(/\r?\n/);
	const fields: RawField[] = [];
	for (const [key, value] of Object.entries(data)) {
		const found = locateTomlKey(lines, key);
		fields.push({ key, keyPos: found.key, val: tomlRaw(value, found.value) });
	}
	return { ok: true, fields };
}

function tomlRaw(value: unknown, pos: Pos): RawValue {
	if (Array.isArray(value)) return { value, pos, items: value.map((item) => tomlRaw(item, pos)) };
	if (value !== null && typeof value === "object" && !(value instanceof Date)) {
		const fields = Object.entries(value as Record<string, unknown>).map(([k, v]) => ({
			key: k,
			keyPos: pos,
			val: tomlRaw(v, pos),
		}));
		return { value, pos, fields };
	}
	return { value: value instanceof Date ? value.toISOString() : value, pos };
}

function escapeRegExp(s: string): string {
	return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function locateTomlKey(lines: string[], key: string): { key: Pos; value: Pos } {
	const k = escapeRegExp(key);
	const assign = new RegExp(`^(\\s*)(?:"${k}"|'${k}'|${k})\\s*=\\s*`);
	const table = new RegExp(`^(\\s*)\\[\\[?\\s*(?:"${k}"|'${k}'|${k})\\s*\\]`);
	let inTable = false;
	for (let i = 0; i < lines.length; i++) {
		const line = lines[i] ?? "";
		const t = table.exec(line);
		if (t) {
			const column = (t[1]?.length ?? 0) + 1;
			return { key: { line: i + 1, column }, value: { line: i + 1, column } };
		}
		if (/^\s*\[/.test(line)) inTable = true;
		if (inTable) continue;
		const m = assign.exec(line);
		if (m) {
			return { key: { line: i + 1, column: (m[1]?.length ?? 0) + 1 }, value: { line: i + 1, column: m[0].length + 1 } };
		}
	}
	return { key: START, value: START };
}

function oneLine(message: string): string {
	return message.split("\n")[0]?.trim() ?? message;
}
