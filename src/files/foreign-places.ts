/**
 * Where other tools keep their agent files (ADR 0094): per `cadre import --from` source and scope,
 * the folders (and opencode's `opencode.json`) that hold definitions, personas and roles, how a
 * foreign file's path becomes a cadre name, and the light listing `cadre import` reads from and
 * `cadre check` / `cadre list` notice (ADR 0096). Listing reads folders; the notice reads at most the
 * first few kilobytes of each foreign file, for its `name`.
 */
import { type Dirent, lstatSync, readdirSync } from "node:fs";
import { join, relative, sep } from "node:path";
import type { Diagnostic } from "../core/diagnostics.ts";
import { SOURCE_NAMES } from "./foreign-keys.ts";
import { readFileUnder } from "./read-confined.ts";
import type { EntryKind } from "./types.ts";

/** The tools `cadre import --from` converts files of. */
export const IMPORT_SOURCES = ["claude", "opencode", "gemini", "codex", "tintinweb", "nicobailon", "grok"] as const;
export type ImportSource = (typeof IMPORT_SOURCES)[number];

/** How a place's files are written. */
export type ForeignFormat = "markdown" | "toml" | "opencode-json";

/** One place a tool reads agent files from. */
export interface ForeignPlace {
	source: ImportSource;
	scope: "project" | "user";
	kind: EntryKind;
	format: ForeignFormat;
	/** Absolute folder (or, for `opencode-json`, the file). */
	path: string;
	/** The root files this place points to must stay inside (the project, the tool's home). */
	root: string;
	/** Whether subfolders hold files too (their path becomes part of the name). */
	recursive: boolean;
	/** cadre reads this folder itself (tintinweb's and nicobailon's `.pi/agents`). */
	cadreOwn: boolean;
}

/** The directories places are found from. */
export interface PlaceDirs {
	/** The project root: the folder holding `.pi/`, else the git root, else the working directory. */
	projectDir: string;
	homeDir: string;
	/** pi's agent dir (`$PI_CODING_AGENT_DIR`, else `~/.pi/agent`). */
	agentDir: string;
	env: NodeJS.ProcessEnv;
}

type PlaceSpec = [scope: "project" | "user", kind: EntryKind, format: ForeignFormat, base: string, dir: string, recursive: boolean];

function specsFor(source: ImportSource, dirs: PlaceDirs): PlaceSpec[] {
	const p = dirs.projectDir;
	const home = dirs.homeDir;
	const xdg = dirs.env.XDG_CONFIG_HOME?.trim() || join(home, ".config");
	const codexHome = dirs.env.CODEX_HOME?.trim() || join(home, ".codex");
	switch (source) {
		case "claude":
			return [["project", "definition", "markdown", p, ".claude/agents", true], ["user", "definition", "markdown", join(home, ".claude"), "agents", true]];
		case "opencode":
			return [
				["project", "definition", "markdown", p, ".opencode/agent", true],
				["project", "definition", "markdown", p, ".opencode/agents", true],
				["project", "definition", "opencode-json", p, "opencode.json", false],
				["user", "definition", "markdown", join(xdg, "opencode"), "agent", true],
				["user", "definition", "markdown", join(xdg, "opencode"), "agents", true],
				["user", "definition", "opencode-json", join(xdg, "opencode"), "opencode.json", false],
			];
		case "gemini":
			return [
				["project", "definition", "markdown", p, ".gemini/agents", false],
				["user", "definition", "markdown", join(home, ".gemini"), "agents", false],
				["user", "definition", "markdown", join(xdg, "gemini-cli"), "agents", false],
			];
		case "codex":
			return [["project", "definition", "toml", p, ".codex/agents", false], ["user", "definition", "toml", codexHome, "agents", false]];
		case "tintinweb":
			return [
				["project", "definition", "markdown", p, ".pi/agents", false],
				["project", "definition", "markdown", p, ".agents/agents", false],
				["user", "definition", "markdown", dirs.agentDir, "agents", false],
			];
		case "nicobailon":
			return [
				["project", "definition", "markdown", p, ".pi/agents", true],
				["project", "definition", "markdown", p, ".agents", true],
				["user", "definition", "markdown", dirs.agentDir, "agents", true],
			];
		case "grok":
			return (["project", "user"] as const).flatMap((scope): PlaceSpec[] => {
				const base = scope === "project" ? p : join(home, ".grok");
				const at = (dir: string) => (scope === "project" ? `.grok/${dir}` : dir);
				// grok-build's personas and roles are TOML; Markdown beside them is prompt text they point to.
				return [
					[scope, "definition", "markdown", base, at("agents"), false],
					[scope, "persona", "toml", base, at("personas"), false],
					[scope, "role", "toml", base, at("roles"), false],
				];
			});
	}
}

/** The places `source` keeps files in, for one scope or both. */
export function foreignPlaces(source: ImportSource, dirs: PlaceDirs, scope?: "project" | "user"): ForeignPlace[] {
	const cadreAgents = [join(dirs.projectDir, ".pi", "agents"), join(dirs.agentDir, "agents")];
	return specsFor(source, dirs)
		.filter(([s]) => scope === undefined || s === scope)
		.map(([s, kind, format, base, dir, recursive]) => {
			const path = join(base, ...dir.split("/"));
			return { source, scope: s, kind, format, path, root: base, recursive, cadreOwn: cadreAgents.includes(path) };
		});
}

/** A file found in a place: its path and the part of its path that names it (`team/reviewer`). */
export interface PlaceFile {
	path: string;
	/** Path inside the place without the extension, `/`-separated. */
	stem: string;
}

const MAX_DEPTH = 4;
const MAX_FILES = 500;
/** Files in agent folders that are not agents: documentation, nicobailon's chains and skills. */
const NOT_AGENTS = /^(readme|agents|claude|license|changelog)\.md$/i;

/** The files of one place (sorted; dot-files, symlinked folders and non-agent files skipped), bounded. */
export function listPlaceFiles(place: ForeignPlace): PlaceFile[] {
	if (place.format === "opencode-json") return isFileEntry(place.path) ? [{ path: place.path, stem: "opencode" }] : [];
	const ext = place.format === "toml" ? ".toml" : ".md";
	const out: PlaceFile[] = [];
	const walk = (dir: string, depth: number) => {
		let entries: Dirent[];
		try {
			entries = readdirSync(dir, { withFileTypes: true });
		} catch {
			return;
		}
		for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
			if (out.length >= MAX_FILES || entry.name.startsWith(".")) continue;
			const path = join(dir, entry.name);
			if (entry.isDirectory()) {
				if (place.recursive && depth < MAX_DEPTH && entry.name !== "skills") walk(path, depth + 1);
				continue;
			}
			if (!(entry.isFile() || entry.isSymbolicLink()) || !entry.name.toLowerCase().endsWith(ext)) continue;
			if (NOT_AGENTS.test(entry.name) || entry.name.toLowerCase().endsWith(".chain.md")) continue;
			const rel = relative(place.path, path).split(sep).join("/");
			out.push({ path, stem: rel.slice(0, -ext.length) });
		}
	};
	walk(place.path, 0);
	return out;
}

function isFileEntry(path: string): boolean {
	try {
		const stat = lstatSync(path);
		return stat.isFile() || stat.isSymbolicLink();
	} catch {
		return false;
	}
}

const MAX_NAME = 64;

/**
 * The cadre name for a foreign agent's name or path (`team/Code Reviewer` → `team-Code-Reviewer`):
 * letters, digits, `-` and `_`, starting with a letter or digit, at most 64 characters. Names are
 * case-insensitive in cadre, so case is kept.
 */
export function cadreNameFor(written: string): string {
	const name = written
		.trim()
		.replace(/[^A-Za-z0-9_-]+/g, "-")
		.replace(/-{2,}/g, "-")
		.replace(/^[-_]+|[-_]+$/g, "")
		.slice(0, MAX_NAME)
		.replace(/[-_]+$/g, "");
	return name === "" ? "agent" : name;
}

/** How much of a file the notice reads for its `name` key. */
const NAME_BYTES = 4096;

/**
 * The top-level keys of a regular file the notice reads: its text before the first TOML table
 * (`[[outputs]]` holds a `name` of its own) or its frontmatter, from the first few kilobytes only;
 * null when the file is not a regular file or has no frontmatter. Symlinks are not followed.
 */
function headOf(path: string, format: ForeignFormat): string | null {
	try {
		if (!lstatSync(path).isFile()) return null;
	} catch {
		return null;
	}
	// The one reader: non-blocking, a regular file by its descriptor too, the first NAME_BYTES only.
	const read = readFileUnder(path, { confine: "any", root: "", maxBytes: NAME_BYTES, head: true });
	if (!read.ok) return null;
	if (format === "toml") return read.text.split(/^\s*\[/m)[0] as string;
	return /^---\r?\n([\s\S]*?)\r?\n---/.exec(read.text)?.[1] ?? null;
}

/** A top-level key's one-line value in a head (`key: x` in frontmatter, `key = "x"` in TOML), else null. */
function topLevelValue(head: string | null, format: ForeignFormat, key: "name" | "mode"): string | null {
	if (head === null) return null;
	const found = (format === "toml" ? new RegExp(`^${key}\\s*=\\s*["']([^"'\\n]+)["']`, "m") : new RegExp(`^${key}:\\s*["']?([^"'\\n#]+?)["']?\\s*$`, "m")).exec(head);
	return found ? (found[1] as string) : null;
}

/** Files `cadre import` skips on purpose (opencode's primary agents), so no notice asks to import them. */
function importSkips(source: ImportSource, head: string | null, format: ForeignFormat): boolean {
	return source === "opencode" && topLevelValue(head, format, "mode") === "primary";
}

// ── Notices ─────────────────────────────────────────────────────────────────────────────────

/**
 * One `foreign-files` info per tool and scope whose files cadre does not read and which no cadre
 * entry of the same name replaces yet (ADR 0096): where they are and the `cadre import` that
 * converts them. `known` says whether cadre already has an entry of that kind and name.
 */
export function foreignFileNotices(dirs: PlaceDirs, known: (kind: EntryKind, name: string) => boolean, show: (path: string) => string): Diagnostic[] {
	const notices: Diagnostic[] = [];
	for (const source of IMPORT_SOURCES) {
		for (const scope of ["project", "user"] as const) {
			const places = foreignPlaces(source, dirs, scope).filter((place) => !place.cadreOwn && place.format !== "opencode-json");
			const files = places.flatMap((place) => listPlaceFiles(place).map((file) => ({ place, file })));
			const fresh = files.filter(({ place, file }) => {
				const head = headOf(file.path, place.format);
				if (importSkips(source, head, place.format)) return false;
				return !known(place.kind, cadreNameFor(topLevelValue(head, place.format, "name") ?? file.stem));
			});
			const first = fresh[0];
			if (!first) continue;
			const folders = [...new Set(fresh.map(({ place }) => show(place.path)))].join(", ");
			const count = `${fresh.length} ${SOURCE_NAMES[source]} file${fresh.length === 1 ? "" : "s"}`;
			const command = `cadre import --from ${source}${scope === "user" ? " --scope user" : ""}`;
			notices.push({
				severity: "info",
				file: show(first.file.path),
				line: 1,
				column: 1,
				code: "foreign-files",
				message: `${count} in ${folders} ${fresh.length === 1 ? "is not a cadre file" : "are not cadre files"}, so no spawn uses ${fresh.length === 1 ? "it" : "them"}`,
				hint: `\`${command}\` converts ${fresh.length === 1 ? "it" : "them"} into ${scope === "user" ? "your agent dir" : ".pi/"}; add --dry-run to see the report first`,
			});
		}
	}
	return notices;
}
