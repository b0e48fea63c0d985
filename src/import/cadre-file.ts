/**
 * The text of a cadre file `cadre import` writes, and what cadre's own loader says about it: the
 * file is rendered from canonical keys (Markdown with YAML frontmatter, or TOML for personas and
 * roles read from TOML), then checked with the loader's `validateLayer`, so a written file never
 * has an error `cadre check` would report (ADR 0094). Deterministic: the same keys give the same
 * bytes, which is what makes a second import report "unchanged".
 */
import { stringify as tomlStringify } from "smol-toml";
import { stringify as yamlStringify } from "yaml";
import type { Diagnostic } from "../core/diagnostics.ts";
import { TEXT_KEY, validateLayer } from "../files/keys.ts";
import { parseFrontmatter, parseTomlFields, type RawField } from "../files/raw.ts";
import { DEFAULT_MAX_FILE_BYTES } from "../files/read-confined.ts";
import type { EntryKind, ToolKind } from "../files/types.ts";

export type CadreFormat = "markdown" | "toml";

const plain = (key: string, value: unknown) => (key === "tools" && Array.isArray(value) ? value.join(", ") : value);

/**
 * Renders keys and text as a cadre file; `comments` are `#` lines written above a top-level key
 * (one line each, already free of line breaks).
 */
export function renderCadreFile(kind: EntryKind, format: CadreFormat, keys: readonly [string, unknown][], text: string | null, comments: Readonly<Record<string, readonly string[]>> = {}): string {
	const data: Record<string, unknown> = {};
	for (const [key, value] of keys) data[key] = plain(key, value);
	if (format === "toml") {
		const textKey = TEXT_KEY[kind];
		if (textKey !== null && text !== null) data[textKey] = text;
		return `${withComments(tomlStringify(data).trimEnd(), comments, " =")}\n`;
	}
	const frontmatter = keys.length === 0 ? "" : withComments(yamlStringify(data, { lineWidth: 0 }), comments, ":");
	return `---\n${frontmatter}---\n${text === null ? "" : `\n${text}\n`}`;
}

/** `text` with each key's comment lines above the first line that starts the key. */
function withComments(text: string, comments: Readonly<Record<string, readonly string[]>>, separator: string): string {
	let out = text;
	for (const [key, lines] of Object.entries(comments)) {
		const found = out.startsWith(`${key}${separator}`) ? 0 : out.indexOf(`\n${key}${separator}`);
		if (found < 0) continue;
		const at = found === 0 ? 0 : found + 1;
		out = `${out.slice(0, at)}${lines.map((line) => `# ${line.replace(/[\r\n]+/g, " ")}\n`).join("")}${out.slice(at)}`;
	}
	return out;
}

/** Where the checked file would live, for the loader's messages and confinement. */
export interface CheckPlace {
	/** The file as shown. */
	file: string;
	name: string;
	/** Its folder (relative file keys resolve against it). */
	baseDir: string;
	/** The scope root it must stay inside, and how (ADR 0060). */
	root: string;
	confine: "project" | "user";
	toolKinds?: Readonly<Record<string, ToolKind>>;
}

export interface CheckedFile {
	diagnostics: Diagnostic[];
	/** The written key on `line`, for dropping a key the loader rejects. */
	keyAt(line: number | null): string | null;
}

/** What cadre's loader says about `text` (a file of `kind` in `format`). */
export function checkCadreFile(text: string, kind: EntryKind, format: CadreFormat, place: CheckPlace): CheckedFile {
	const parsed = format === "toml" ? parseTomlFields(text) : parseFrontmatter(text);
	if (!parsed.ok) {
		const { pos, message } = parsed.error;
		const diagnostic: Diagnostic = { severity: "error", file: place.file, line: pos.line, column: pos.column, code: "parse-error", message };
		return { diagnostics: [diagnostic], keyAt: () => null };
	}
	const result = validateLayer(kind, parsed.fields, {
		kind,
		file: place.file,
		sourcePrefix: place.file,
		name: place.name,
		baseDir: place.baseDir,
		root: place.root,
		confine: place.confine,
		maxBytes: DEFAULT_MAX_FILE_BYTES,
		textInKeys: format === "toml",
		toolKinds: place.toolKinds,
	});
	return { diagnostics: result.diagnostics, keyAt: (line) => keyOnLine(parsed.fields, line) };
}

function keyOnLine(fields: readonly RawField[], line: number | null): string | null {
	if (line === null) return null;
	let found: string | null = null;
	for (const field of fields) if (field.keyPos.line <= line) found = field.key;
	return found;
}
