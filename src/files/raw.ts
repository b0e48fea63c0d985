/**
 * Raw key/value trees with positions, read from YAML frontmatter, TOML files and JSON settings.
 * This is the only place that knows the three syntaxes; validation (keys.ts, settings.ts) works on
 * the trees and can position every diagnostic on the offending key or value.
 */
import { parse as parseToml } from "smol-toml";
import { Composer, type CST, type Document, isMap, isScalar, isSeq, LineCounter, type Node, Parser, YAMLParseError } from "yaml";

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

/**
 * Collections may nest this deep, no deeper. `yaml` composes nested collections recursively, and a
 * file nested a few thousand levels made V8 abort the process; nothing cadre reads nests past a
 * handful. Checked on yaml's token tree, which is built without recursion, before composing.
 */
export const MAX_NESTING = 64;

const NESTING_MESSAGE = `collections are nested more than ${MAX_NESTING} levels deep`;

const COLLECTIONS = new Set(["block-map", "block-seq", "flow-collection"]);

/** Offset of the first collection nested deeper than MAX_NESTING in yaml's tokens, or null. */
function tooDeep(tokens: readonly CST.Token[]): number | null {
	const stack = tokens.map((token) => ({ token, depth: 0 }));
	for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
		const depth = COLLECTIONS.has(next.token.type) ? next.depth + 1 : next.depth;
		if (depth > MAX_NESTING) return next.token.offset;
		const t = next.token as { value?: unknown; items?: { key?: CST.Token | null; value?: CST.Token | null }[] };
		if (t.value !== null && typeof t.value === "object") stack.push({ token: t.value as CST.Token, depth });
		for (const item of t.items ?? []) {
			if (item.key) stack.push({ token: item.key, depth });
			if (item.value) stack.push({ token: item.value, depth });
		}
	}
	return null;
}

/** yaml's `parseDocument`, with the nesting checked between parsing and composing; null when too deep. */
function composeDocument(text: string, lineCounter: LineCounter): Document | { tooDeep: number } {
	const tokens = Array.from(new Parser(lineCounter.addNewLine).parse(text));
	const deep = tooDeep(tokens);
	if (deep !== null) return { tooDeep: deep };
	const composer = new Composer({ prettyErrors: false, uniqueKeys: true, strict: true });
	let doc: Document | null = null;
	for (const next of composer.compose(tokens, true, text.length)) {
		if (doc === null) doc = next as Document;
		else {
			doc.errors.push(new YAMLParseError(next.range.slice(0, 2) as [number, number], "MULTIPLE_DOCS", "Source contains multiple documents"));
			break;
		}
	}
	return doc as Document;
}

/** Parses a YAML (or JSON) mapping document; `lineOffset` is added to every line. */
export function parseYamlMapping(text: string, lineOffset = 0): RawParse {
	const lineCounter = new LineCounter();
	let composed: Document | { tooDeep: number };
	try {
		composed = composeDocument(text, lineCounter);
	} catch (error) {
		return { ok: false, error: { pos: { line: 1 + lineOffset, column: 1 }, message: String(error) } };
	}
	const at = (offset: number): Pos => {
		const lp = lineCounter.linePos(offset);
		return { line: lp.line + lineOffset, column: lp.col };
	};
	if ("tooDeep" in composed) return { ok: false, error: { pos: at(composed.tooDeep), message: NESTING_MESSAGE } };
	const doc = composed;
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
	try {
		const tree = toRaw(contents, doc, at);
		return { ok: true, fields: tree.fields ?? [] };
	} catch (error) {
		// e.g. an alias bomb past yaml's alias limit
		return { ok: false, error: { pos: at(contents.range?.[0] ?? 0), message: oneLine((error as Error).message) } };
	}
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
	const firstEnd = src.indexOf("\n");
	const firstLine = (firstEnd < 0 ? src : src.slice(0, firstEnd)).trimEnd();
	if (firstLine !== "---") return { ok: true, fields: [], ...bodyFrom(src, 0) };
	const close = /^(?:---|\.\.\.)[ \t\r]*$/gm;
	close.lastIndex = firstEnd + 1;
	const m = firstEnd < 0 ? null : close.exec(src);
	if (!m) {
		return { ok: false, error: { pos: START, message: "the frontmatter opened by `---` on line 1 is never closed" } };
	}
	const yaml = src.slice(firstEnd + 1, m.index).replace(/\r?\n$/, "");
	const lines = yaml.split(/\r?\n/);
	const fast = fastFrontmatter(lines, 1);
	const parsed = fast ? { ok: true as const, fields: fast } : parseYamlMapping(yaml, 1);
	if (!parsed.ok) return parsed;
	return { ok: true, fields: parsed.fields, ...bodyFrom(src, m.index + m[0].length) };
}

/** The trimmed body after `offset`, and the line its text starts on. */
function bodyFrom(src: string, offset: number): { body: string | null; bodyLine: number } {
	const rest = src.slice(offset);
	const body = rest.trim();
	if (body === "") return { body: null, bodyLine: 1 };
	const start = offset + rest.search(/\S/);
	let line = 1;
	for (let i = src.indexOf("\n"); i >= 0 && i < start; i = src.indexOf("\n", i + 1)) line++;
	return { body, bodyLine: line };
}

const KEY_LINE = /^([A-Za-z_][A-Za-z0-9_-]*):(?:[ ]+(.*))?$/;
const LEADING_INDICATOR = /^(?:[,[\]{}#&*!|>'"%@`]|[-?:](?:\s|$))/;

/** A plain YAML scalar that means the same in every context we accept, or null when unsure. */
function safePlain(text: string, inFlow: boolean): boolean {
	if (text === "" || LEADING_INDICATOR.test(text)) return false;
	if (/:(\s|$)|\s#|\t|[{}[\]]/.test(text)) return false;
	return !(inFlow && /[,"']/.test(text));
}

/** YAML 1.2 core-schema resolution of a plain scalar (what `yaml` does with its default schema). */
function resolvePlain(text: string): unknown {
	if (/^(?:~|null|Null|NULL)$/.test(text)) return null;
	if (/^(?:true|True|TRUE)$/.test(text)) return true;
	if (/^(?:false|False|FALSE)$/.test(text)) return false;
	if (/^[-+]?[0-9]+$/.test(text)) return Number.parseInt(text, 10);
	if (/^0o[0-7]+$/.test(text)) return Number.parseInt(text.slice(2), 8);
	if (/^0x[0-9a-fA-F]+$/.test(text)) return Number.parseInt(text.slice(2), 16);
	if (/^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/.test(text)) return Number.parseFloat(text);
	if (/^[-+]?\.(?:inf|Inf|INF)$/.test(text)) return text.startsWith("-") ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
	if (/^\.(?:nan|NaN|NAN)$/.test(text)) return Number.NaN;
	return text;
}

/**
 * The common frontmatter — `key: plain scalar` and `key: [a, b]` lines — read without the full
 * YAML machinery (which costs ~50x more per file and loading runs at every spawn). Returns null
 * for anything else, and the caller parses with `yaml`; test/files/raw.test.ts checks both agree.
 */
export function fastFrontmatter(lines: string[], lineOffset: number): RawField[] | null {
	const fields: RawField[] = [];
	const seen = new Set<string>();
	const to = lines.length;
	for (let i = 0; i < to; i++) {
		const line = lines[i] ?? "";
		if (line.trim() === "") continue;
		if (line.startsWith("#")) continue;
		const m = KEY_LINE.exec(line);
		if (!m) return null;
		const key = m[1] as string;
		if (seen.has(key)) return null;
		seen.add(key);
		const raw = m[2] ?? "";
		const text = raw.trimEnd();
		const lineNo = i + 1 + lineOffset;
		const keyPos = { line: lineNo, column: 1 };
		const valuePos = { line: lineNo, column: line.length - raw.length + 1 };
		if (text === "") {
			const next = lines[i + 1] ?? "";
			if (i + 1 < to && /^\s/.test(next) && next.trim() !== "") return null;
			fields.push({ key, keyPos, val: { value: null, pos: valuePos } });
			continue;
		}
		if (text.startsWith("[") && text.endsWith("]")) {
			const inner = text.slice(1, -1);
			const items: RawValue[] = [];
			if (inner.trim() !== "") {
				let column = valuePos.column + 1;
				for (const part of inner.split(",")) {
					const item = part.trim();
					if (!safePlain(item, true)) return null;
					items.push({ value: resolvePlain(item), pos: { line: lineNo, column: column + part.search(/\S/) } });
					column += part.length + 1;
				}
			}
			fields.push({ key, keyPos, val: { value: items.map((item) => item.value), pos: valuePos, items } });
			continue;
		}
		if (!safePlain(text, false)) return null;
		fields.push({ key, keyPos, val: { value: resolvePlain(text), pos: valuePos } });
	}
	return fields;
}


/**
 * Parses a TOML file into fields. TOML has no positions in the parser's output, so top-level keys
 * are located by scanning lines; nested values carry their top-level key's position.
 */
export function parseTomlFields(text: string): RawParse {
	let data: Record<string, unknown>;
	try {
		data = parseToml(text, { maxDepth: MAX_NESTING }) as Record<string, unknown>;
	} catch (error) {
		const e = error as { line?: number; column?: number; message?: string };
		const raw = oneLine(String(e.message ?? error).replace(/^Invalid TOML document:\s*/, ""));
		const message = raw.includes("excessively nested") ? NESTING_MESSAGE : raw;
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
