/**
 * Another tool's agent file as positioned fields and a body (ADR 0094): Markdown with YAML
 * frontmatter (read leniently where the YAML is broken, as Claude Code reads it), TOML (Codex
 * agents, grok-build personas and roles), and opencode's `opencode.json` `agent` entries. One
 * file may hold several agents (opencode.json); each is a {@link ForeignAgent}.
 */
import { parseFrontmatter, parseTomlFields, parseYamlMapping, type Pos, type RawField } from "../files/raw.ts";
import type { EntryKind } from "../files/types.ts";
import type { ForeignFormat } from "../files/foreign-places.ts";

/** One key as the other tool wrote it. */
export interface ForeignField {
	key: string;
	value: unknown;
	line: number;
	column: number;
	/** Set when the YAML around it was broken and the value was read as the text after `key:`. */
	readAsText?: string;
}

/** One agent (definition, persona or role) read from another tool's file. */
export interface ForeignAgent {
	kind: EntryKind;
	format: ForeignFormat;
	/** The name its path gives it (`team/reviewer`), before the file's own `name` key. */
	pathName: string;
	/** opencode.json: the entry's key under `agent`. */
	entry: string | null;
	fields: ForeignField[];
	/** The trimmed Markdown body, or null. */
	body: string | null;
	bodyLine: number;
}

export type ForeignParse = { ok: true; agents: ForeignAgent[] } | { ok: false; line: number; column: number; message: string };

const field = (raw: RawField): ForeignField => ({ key: raw.key, value: raw.val.value, line: raw.keyPos.line, column: raw.keyPos.column });

/** Parses one file of `format` holding agents of `kind`. */
export function parseForeign(text: string, format: ForeignFormat, kind: EntryKind, pathName: string): ForeignParse {
	if (format === "toml") {
		const parsed = parseTomlFields(text);
		if (!parsed.ok) return fail(parsed.error.pos, parsed.error.message);
		return { ok: true, agents: [{ kind, format, pathName, entry: null, fields: parsed.fields.map(field), body: null, bodyLine: 1 }] };
	}
	if (format === "opencode-json") return parseOpencodeJson(text, kind);
	return parseMarkdown(text, kind, pathName);
}

function fail(pos: Pos, message: string): ForeignParse {
	return { ok: false, line: pos.line, column: pos.column, message };
}

function parseMarkdown(text: string, kind: EntryKind, pathName: string): ForeignParse {
	const parsed = parseFrontmatter(text);
	if (parsed.ok) {
		return { ok: true, agents: [{ kind, format: "markdown", pathName, entry: null, fields: parsed.fields.map(field), body: parsed.body, bodyLine: parsed.bodyLine }] };
	}
	const lenient = lenientMarkdown(text, parsed.error.message);
	if (!lenient) return fail(parsed.error.pos, parsed.error.message);
	return { ok: true, agents: [{ kind, format: "markdown", pathName, entry: null, ...lenient }] };
}

/**
 * Frontmatter YAML would reject — a Claude Code description with `: ` in it, examples inline —
 * read key by key: each top-level `key:` block parses on its own, and a block that still fails
 * is the text after `key:` (quotes removed), marked so the report says it was read as text.
 */
function lenientMarkdown(text: string, why: string): { fields: ForeignField[]; body: string | null; bodyLine: number } | null {
	const src = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
	const lines = src.split(/\r?\n/);
	if ((lines[0] ?? "").trimEnd() !== "---") return null;
	const close = lines.findIndex((line, i) => i > 0 && /^(?:---|\.\.\.)\s*$/.test(line));
	if (close < 0) return null;
	const fields: ForeignField[] = [];
	let start = 1;
	while (start < close) {
		const head = /^([A-Za-z_][\w.-]*)\s*:(.*)$/.exec(lines[start] ?? "");
		if (!head) {
			if ((lines[start] ?? "").trim() !== "" && !(lines[start] ?? "").trimStart().startsWith("#")) return null;
			start++;
			continue;
		}
		let end = start + 1;
		while (end < close && !/^[A-Za-z_][\w.-]*\s*:/.test(lines[end] ?? "")) end++;
		const block = lines.slice(start, end).join("\n");
		const parsed = parseYamlMapping(block, start);
		const one = parsed.ok && parsed.fields.length === 1 ? parsed.fields[0] : undefined;
		if (one) fields.push(field(one));
		else {
			const rest = [head[2] as string, ...lines.slice(start + 1, end)].join("\n").trim();
			const quoted = /^(["'])([\s\S]*)\1$/.exec(rest);
			fields.push({ key: head[1] as string, value: quoted ? quoted[2] : rest, line: start + 1, column: 1, readAsText: why });
		}
		start = end;
	}
	const bodyText = lines.slice(close + 1).join("\n");
	const body = bodyText.trim() === "" ? null : bodyText.trim();
	const lead = lines.slice(close + 1).findIndex((line) => line.trim() !== "");
	return { fields, body, bodyLine: body === null ? 1 : close + 2 + lead };
}

/** opencode's config: every entry of its `agent` map is an agent named by its key. */
function parseOpencodeJson(text: string, kind: EntryKind): ForeignParse {
	const parsed = parseYamlMapping(text);
	if (!parsed.ok) return fail(parsed.error.pos, parsed.error.message);
	const agentKey = parsed.fields.find((f) => f.key === "agent");
	if (!agentKey) return { ok: true, agents: [] };
	if (!agentKey.val.fields) return fail(agentKey.val.pos, "`agent` is not a map of agent names to settings");
	const agents: ForeignAgent[] = [];
	for (const entry of agentKey.val.fields) {
		const fields = entry.val.fields ?? [];
		agents.push({ kind, format: "opencode-json", pathName: entry.key, entry: entry.key, fields: fields.map(field), body: null, bodyLine: entry.keyPos.line });
	}
	return { ok: true, agents };
}
