/**
 * Keys that other tools' agent files carry — Claude Code, opencode, grok-build, Cursor, Gemini CLI,
 * OpenAI Codex CLI and the pi extensions tintinweb/pi-subagents and nicobailon/pi-subagents — and
 * what cadre makes of each (ADR 0072), with those tools' names for pi's built-in tools. This is the
 * one table: the loader reads files through it, and `cadre import` converts files with it (ADR 0094).
 *
 * A key that restricts access in its own tool is never dropped: it is *mapped* to cadre's values
 * (a capability, tool rules, `enabled: false`) when they can say the same or less, and *refused*
 * when they cannot, so a child never gets more access than the file's author wrote. A key that
 * restricts nothing a cadre child could do is *ignored*. Plain data and pure functions.
 */
import { PI_TOOL_NAMES } from "../core/pi-tools.ts";
import { type CapabilityMode, normalizeCapability } from "../core/values.ts";
import type { ToolRule } from "./types.ts";

/** The tools whose files cadre knows, as `cadre import --from` names them. */
export type ForeignSource = "claude" | "opencode" | "grok" | "cursor" | "gemini" | "codex" | "tintinweb" | "nicobailon";

export const SOURCE_NAMES: Readonly<Record<ForeignSource, string>> = {
	claude: "Claude Code",
	opencode: "opencode",
	grok: "grok-build",
	cursor: "Cursor",
	gemini: "Gemini CLI",
	codex: "OpenAI Codex CLI",
	tintinweb: "tintinweb/pi-subagents",
	nicobailon: "nicobailon/pi-subagents",
};

/** The cadre values a foreign key stands for. */
export interface MappedValues {
	capability?: CapabilityMode;
	/** Applied to the child's tools after the selection (last matching rule wins). */
	toolRules?: ToolRule[];
	enabled?: false;
}

/** What cadre makes of one foreign key's value. */
export type ForeignReading =
	/** Read as cadre values; `notes` say where the reading is narrower than the original. */
	| { outcome: "mapped"; values: MappedValues; notes: string[] }
	/** It restricts access and cadre cannot honour it: every spawn using the entry is refused. */
	| { outcome: "refused"; why: string; fix: string }
	/** It restricts nothing a cadre child could do, at least with this value. */
	| { outcome: "ignored"; why: string; instead: string }
	/**
	 * It is cadre's `key` under another name (`body`: the file's Markdown body). The loader ignores
	 * it with a warning, like other tools' keys (files in cadre's folders use cadre's names);
	 * `cadre import` writes `value` under `key`.
	 */
	| { outcome: "renamed"; key: RenamedTarget; value: unknown };

/** The cadre keys other tools' keys are renamed to; `body` is the standing instructions. */
export type RenamedTarget = "max_turns" | "thinking" | "inherit_context" | "run_in_background" | "body";

export interface ForeignKey {
	key: string;
	from: readonly ForeignSource[];
	/** For a key cadre has too (`tools`): whether a value is the other tool's form of the key. */
	claims?: (value: unknown) => boolean;
	read(value: unknown): ForeignReading;
}

const mapped = (values: MappedValues, notes: string[] = []): ForeignReading => ({ outcome: "mapped", values, notes });
const refused = (why: string, fix: string): ForeignReading => ({ outcome: "refused", why, fix });
const ignored = (why: string, instead: string): ForeignReading => ({ outcome: "ignored", why, instead });
const renamed = (key: RenamedTarget) => (value: unknown): ForeignReading => ({ outcome: "renamed", key, value });

const isMapping = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
const isEmpty = (value: unknown) => value === null || value === undefined || value === "" || (Array.isArray(value) && value.length === 0) || (isMapping(value) && Object.keys(value).length === 0);
/** A value as a message quotes it; never throws (a TOML integer may be a BigInt, a map may have no prototype). */
function show(value: unknown): string {
	if (typeof value === "string") return `"${value}"`;
	try {
		return JSON.stringify(value) ?? String(value);
	} catch {
		return typeof value === "bigint" ? String(value) : `a value cadre cannot show (${typeof value})`;
	}
}
const joined = (names: readonly string[]) => names.join(", ");

// ── Tool names ──────────────────────────────────────────────────────────────────────────────

/** Other tools' names for pi's built-ins, lower-cased; a name that is pi's in another case (`Read`) needs none. */
const PI_TOOL_FOR: ReadonlyMap<string, string> = new Map([
	// Claude Code (`Read`, `Write`, `Edit`, `Bash`, `Grep`, `LS` are pi's names in another case)
	["glob", "find"],
	["multiedit", "edit"],
	// opencode (`glob` as above)
	["list", "ls"],
	["patch", "edit"],
	// OpenAI Codex CLI
	["apply_patch", "edit"],
	["shell", "bash"],
	// Gemini CLI
	["read_file", "read"],
	["read_many_files", "read"],
	["write_file", "write"],
	["replace", "edit"],
	["run_shell_command", "bash"],
	["search_file_content", "grep"],
	["grep_search", "grep"],
	["list_directory", "ls"],
]);

/** The pi built-in tool another tool's name stands for (`Read` → `read`, `Glob` → `find`), or null. */
export function piToolFor(name: string): string | null {
	const lower = name.trim().toLowerCase();
	if (PI_TOOL_NAMES.includes(lower)) return lower;
	return PI_TOOL_FOR.get(lower) ?? null;
}

/** Why another tool's tool has no pi counterpart, lower-cased name → [why, what to do]. */
const NO_PI_TOOL: ReadonlyMap<string, readonly [string, string]> = (() => {
	const spawn = ["cadre children never get the spawn tools, so they cannot start children of their own", "remove it"] as const;
	const web = ["pi has no built-in web tool", "if an extension gives the parent a web tool, add its name to tools"] as const;
	const todo = ["pi has no to-do tool", "remove it"] as const;
	const entries: [string[], readonly [string, string]][] = [
		[["task", "agent"], spawn],
		[["webfetch", "websearch", "web_fetch", "google_web_search", "web_search", "codesearch"], web],
		[["todowrite", "todoread", "write_todos"], todo],
		[["notebookedit", "notebookread"], ["pi has no notebook tool (edit and write change .ipynb files as text)", "add edit to tools if the child may change notebooks"]],
		[["skill", "slashcommand"], ["cadre children see the parent's skills and have no slash commands", "remove it"]],
		[["exitplanmode", "enterplanmode"], ["a cadre child has no plan mode", "use `capability: read-only` for a child that only plans"]],
		[["bashoutput", "killshell", "killbash"], ["pi runs shell commands in the foreground only", "remove it"]],
		[["save_memory", "memory"], ["cadre has no agent memory", "remove it"]],
		[["question", "askuserquestion"], ["nobody answers questions in a cadre child", "remove it"]],
		[["lsp"], ["pi has no language-server tool", "if an extension provides one, add its name to tools"]],
	];
	return new Map(entries.flatMap(([names, reason]) => names.map((name) => [name, reason] as const)));
})();

/** What cadre writes in `tools` for one entry of another tool's allowlist. */
export interface ForeignToolName {
	/** The name to write (a pi tool, an MCP tool or pattern, an extension tool), or null: leave it out. */
	name: string | null;
	outcome: "mapped" | "approximated" | "dropped";
	/** Why it differs from what was written, or why it is left out ("" when mapped as is). */
	why: string;
	fix: string;
	/** The name is kept although no pi built-in has it (an MCP or extension tool): `cadre check` warns until toolKinds classifies it. */
	kept?: true;
}

/** Why a kept name (an MCP or extension tool) is approximated: pi itself provides no such tool. */
export const KEPT_WHY = "no pi built-in tool: kept for an extension or MCP server that provides it";

/** pi's MCP tool names (`mcp__<server>__<tool>`): everything but `[A-Za-z0-9_*]` becomes `_`. */
const mcpName = (server: string, tool: string) => `mcp__${server}__${tool}`.replace(/[^A-Za-z0-9_*]/g, "_");

/**
 * The `tools` entry cadre writes for `written`, an entry of another tool's allowlist: pi's name
 * for a built-in (`Glob` → `find`), pi's MCP name (`mcp:github/search` → `mcp__github__search`),
 * or nothing when pi has no such tool or the entry allows only some uses of one (`Bash(git *)`):
 * leaving a tool out never gives a child more than the allowlist did.
 */
export function foreignToolName(written: string): ForeignToolName {
	const name = written.trim();
	const as = (to: string | null, outcome: ForeignToolName["outcome"], why = "", fix = ""): ForeignToolName => ({ name: to, outcome, why, fix });
	const kept = (to: string, why = `${to} is ${KEPT_WHY}`): ForeignToolName => ({ name: to, outcome: "approximated", why, fix: "", kept: true });
	const pattern = /^([^()]+)\((.*)\)$/.exec(name);
	if (pattern) {
		const tool = (pattern[1] as string).trim();
		// `Bash(*)` (and an empty pattern) allows every use: it is the tool itself.
		if (/^\s*\*?\s*$/.test(pattern[2] as string)) return foreignToolName(tool);
		const reason = NO_PI_TOOL.get(tool.toLowerCase());
		if (reason) return as(null, "dropped", reason[0], reason[1]);
		const pi = piToolFor(tool) ?? tool;
		return as(null, "dropped", `${name} allows only some uses of ${tool}, and cadre cannot allow a tool in part, so ${pi} is left out`, `add ${pi} to tools if the child may use it for anything`);
	}
	const pi = piToolFor(name);
	if (pi !== null) return as(pi, "mapped");
	if (name.includes("*") && !/^mcp_/i.test(name)) return as(name, "mapped");
	const mcp = /^mcp__(.+?)__(.+)$/.exec(name);
	if (mcp) {
		const to = mcpName(mcp[1] as string, mcp[2] as string);
		return to === name ? kept(to) : kept(to, `pi spells this MCP tool ${to}, ${KEPT_WHY}`);
	}
	const colon = /^mcp:([^/]+)(?:\/(.+))?$/.exec(name);
	if (colon) return colon[2] === undefined ? as(mcpName(colon[1] as string, "*"), "mapped") : kept(mcpName(colon[1] as string, colon[2]));
	if (name === "mcp_*") return as("mcp__*", "mapped");
	const geminiServer = /^mcp_(.+)_\*$/.exec(name);
	if (geminiServer) return as(mcpName(geminiServer[1] as string, "*"), "mapped");
	const ext = /^ext:([^/]+)(?:\/(.+))?$/.exec(name);
	if (ext) {
		if (ext[2] === undefined) return as(null, "dropped", `cadre cannot tell which tools the extension ${ext[1]} provides`, "list the extension's tools by name in tools");
		return as(ext[2], "approximated", `cadre selects tools by name: ${ext[2]} from whichever extension provides it`);
	}
	const reason = NO_PI_TOOL.get(name.toLowerCase());
	if (reason) return as(null, "dropped", reason[0], reason[1]);
	return { ...kept(name), fix: "check `cadre explain` shows it, or remove it" };
}

/**
 * What to write instead of tool names that are not in the universe: the same name in another case,
 * or the pi tool another tool's name stands for. Names with no counterpart are left out.
 */
export function suggestToolNames(unavailable: readonly string[], universe: readonly string[]): string[] {
	const suggestions: string[] = [];
	for (const name of unavailable) {
		const target = universe.find((tool) => tool.toLowerCase() === name.toLowerCase()) ?? piToolFor(name);
		if (target && universe.includes(target) && !suggestions.includes(target)) suggestions.push(target);
	}
	return suggestions;
}

// ── Tool rules ──────────────────────────────────────────────────────────────────────────────

/** The rules for `name` as written and for the pi built-in it stands for; collects denied names pi does not have. */
function rulesFor(name: string, allow: boolean, unmatched: string[]): ToolRule[] {
	const pi = name.includes("*") ? null : piToolFor(name);
	if (pi === null && !allow && !name.includes("*")) unmatched.push(name);
	return pi !== null && pi !== name ? [{ pattern: name, allow }, { pattern: pi, allow }] : [{ pattern: name, allow }];
}

function unmatchedNote(unmatched: readonly string[]): string[] {
	if (unmatched.length === 0) return [];
	const one = unmatched.length === 1;
	return [`${joined(unmatched)} ${one ? "names" : "name"} no pi built-in tool: only a tool of exactly that name is denied`];
}

/** pi's built-ins only: what a file that loads no extension leaves a child. */
function builtinsOnly(note: string): ForeignReading {
	return mapped({ toolRules: [{ pattern: "*", allow: false }, ...PI_TOOL_NAMES.map((pattern) => ({ pattern, allow: true }))] }, [note]);
}

/** A list or comma-separated string of names; null when it is neither. */
export function nameList(value: unknown): string[] | null {
	const items: unknown[] | null = typeof value === "string" ? value.split(",") : Array.isArray(value) ? value : null;
	if (items === null || !items.every((item) => typeof item === "string")) return null;
	return (items as string[]).map((item) => item.trim()).filter((item) => item !== "");
}

/** opencode's order: shorter patterns first, then by name; the last matching rule wins. */
function bySpecificity<T>(entries: [string, T][]): [string, T][] {
	return [...entries].sort(([a], [b]) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0));
}

/** How rules read in a diagnostic: what the child never gets, or the only tools it keeps. */
export function describeMapping(values: MappedValues): string {
	const parts: string[] = [];
	if (values.capability) parts.push(`capability: ${values.capability}`);
	if (values.enabled === false) parts.push("enabled: false");
	if (values.toolRules) parts.push(describeRules(values.toolRules));
	return parts.join("; ");
}

function describeRules(rules: readonly ToolRule[]): string {
	const patterns = (allow: boolean) => [...new Set(rules.filter((rule) => rule.allow === allow).map((rule) => rule.pattern))];
	const denied = patterns(false);
	const allowed = patterns(true);
	if (denied.includes("*")) {
		if (allowed.length === 0) return "the child gets no tools";
		if (PI_TOOL_NAMES.every((name) => allowed.includes(name)) && allowed.length === PI_TOOL_NAMES.length) return "the child gets only pi's built-in tools";
		return `the child gets only ${joined(allowed)} (of the tools it would have)`;
	}
	// A foreign spelling next to the pi tool it stands for is shown once, as pi's name.
	const shown = denied.filter((name) => {
		const pi = piToolFor(name);
		return pi === null || pi === name || !denied.includes(pi);
	});
	return `the child never gets ${joined(shown)}${allowed.length > 0 ? ` (but keeps ${joined(allowed)})` : ""}`;
}

// ── Readers ─────────────────────────────────────────────────────────────────────────────────

const ASKS_NOTHING = ["default", "acceptedits", "auto", "bypasspermissions"];

/** Claude Code's `permissionMode`, grok-build's `permission_mode`. */
function permissionMode(value: unknown): ForeignReading {
	const fix = "set `capability` (read-only, read-write, execute, all) instead";
	if (typeof value !== "string") return refused(`${show(value)} is not a permission mode, so cadre cannot tell what it allows`, fix);
	const mode = value.trim().toLowerCase().replace(/[-_\s]/g, "");
	if (mode === "plan") return mapped({ capability: "read-only" });
	if (ASKS_NOTHING.includes(mode)) return ignored(`pi never asks before a tool call, so "${value}" changes nothing for a cadre child`, "use `capability` to restrict the child");
	if (mode === "dontask") {
		return refused('"dontAsk" denies every tool that Claude Code\'s own settings do not pre-approve, and cadre cannot read those settings', "list the tools the child may use in `tools` (or set `capability`), then remove the permission mode");
	}
	return refused(`"${value}" is not a permission mode cadre knows (plan, default, acceptEdits, auto, dontAsk, bypassPermissions), so it cannot tell what it allows`, fix);
}

/** Codex's `sandbox_mode`: `read-only` keeps files unchanged; `workspace-write` keeps writes inside the workspace. */
function sandboxMode(value: unknown): ForeignReading {
	const mode = typeof value === "string" ? value.trim().toLowerCase().replace(/_/g, "-") : null;
	if (mode === "read-only") return mapped({ capability: "read-only" });
	if (mode === "danger-full-access") return ignored("it sandboxes nothing", "remove it");
	if (mode === "workspace-write") {
		// The nearest capability that never widens access (ADR 0106): cadre cannot keep writes inside one folder.
		return mapped({ capability: "read-only" }, [
			"Codex lets the child write inside the workspace only, and cadre cannot keep writes inside one folder, so the nearest capability that allows no more is read-only; write capability: read-write (and isolation: worktree) if the child may edit files anywhere you can",
		]);
	}
	return refused(`${show(value)} is not a sandbox mode cadre knows (read-only, workspace-write, danger-full-access)`, "set `capability` (read-only, read-write, execute, all) instead");
}

/** nicobailon's `defaultContext`: `fork` starts the child from the parent's conversation. */
function defaultContext(value: unknown): ForeignReading {
	if (value === "fork") return { outcome: "renamed", key: "inherit_context", value: true };
	if (value === "fresh") return { outcome: "renamed", key: "inherit_context", value: false };
	return ignored(`${show(value)} is neither fork nor fresh`, "write `inherit_context: true` for a child that starts from the parent's conversation");
}

/** Cursor's `readonly`. */
function readonlyFlag(value: unknown): ForeignReading {
	if (value === true) return mapped({ capability: "read-only" });
	if (value === false) return ignored("readonly: false restricts nothing", "remove it");
	return refused(`${show(value)} is not true or false, so cadre cannot tell whether the child is read-only`, "write readonly: true, or `capability: read-only`");
}

/** grok-build's `capability_mode`: cadre's own modes under another name. */
function capabilityMode(value: unknown): ForeignReading {
	const mode = normalizeCapability(value);
	if (mode !== null) return mapped({ capability: mode });
	return refused(`${show(value)} is not a capability mode (read-only, read-write, execute, all)`, "write `capability` with one of read-only, read-write, execute, all");
}

/** Claude Code's `disallowedTools`, tintinweb's `disallowed_tools`, nicobailon's `excludeTools`. */
function denyList(value: unknown): ForeignReading {
	const names = nameList(value);
	if (names === null) return refused("it is not a list of tool names, so cadre cannot tell which tools it denies", "write it as a list or a comma-separated string of tool names");
	if (names.length === 0) return ignored("it denies nothing", "remove it");
	const rules: ToolRule[] = [];
	const notes: string[] = [];
	const unmatched: string[] = [];
	for (const written of names) {
		// Claude Code permission rules (`Bash(git push:*)`) deny one use; cadre can only deny the tool.
		const rule = /^([^()]+)\((.*)\)$/.exec(written);
		const name = rule ? (rule[1] as string).trim() : written;
		if (rule) notes.push(`${written}: cadre cannot deny one use of a tool, so it denies all of ${piToolFor(name) ?? name}`);
		rules.push(...rulesFor(name, false, unmatched));
	}
	return mapped({ toolRules: rules }, [...notes, ...unmatchedNote(unmatched)]);
}

/** opencode's `tools: {name: boolean}` map (`*` patterns; the most specific one wins). */
function opencodeTools(value: unknown): ForeignReading {
	if (!isMapping(value)) return refused("it is not a map of tool names to true or false", "write `tools` as a list of the child's tools");
	const entries = Object.entries(value);
	const bad = entries.find(([, allow]) => typeof allow !== "boolean");
	if (bad) return refused(`${bad[0]} is ${show(bad[1])}, not true or false, so cadre cannot tell whether the tool is allowed`, "write true or false for every tool");
	const odd = entries.find(([pattern]) => /[?[\]{}]/.test(pattern));
	if (odd) return refused(`the pattern ${odd[0]} uses a wildcard other than *, which cadre does not match`, "write exact tool names or * patterns");
	if (entries.every(([, allow]) => allow === true)) {
		return ignored("it only enables tools, and a cadre child already has the parent's tools", "list the child's tools as `tools: read, grep, …`");
	}
	const rules: ToolRule[] = [];
	const unmatched: string[] = [];
	for (const [pattern, allow] of bySpecificity(entries)) rules.push(...rulesFor(pattern, allow as boolean, unmatched));
	return mapped({ toolRules: rules }, unmatchedNote(unmatched));
}

/** opencode permissions that concern nothing a cadre child can do: children never spawn children. */
const PERMISSIONS_WITHOUT_EFFECT = new Set(["doom_loop", "task", "skill"]);

/** One opencode permission: allow keeps, deny and ask deny (nobody is asked in a cadre child). */
function permissionDecision(key: string, value: unknown): { allow: boolean; note: string | null } | null {
	if (value === "allow") return { allow: true, note: null };
	if (value === "deny") return { allow: false, note: null };
	if (value === "ask") return { allow: false, note: `${key}: "ask" is read as "deny": nobody is asked in a cadre child` };
	if (!isMapping(value)) return null;
	const actions = Object.values(value);
	if (!actions.every((action) => action === "allow" || action === "ask" || action === "deny")) return null;
	if (actions.every((action) => action === "allow")) return { allow: true, note: null };
	return { allow: false, note: `${key}: cadre cannot allow some uses of a tool and not others, so it denies ${key} entirely` };
}

/** opencode's `permission`: `{edit, bash, webfetch, …: allow | ask | deny | {pattern: …}}`, or one action for all. */
function opencodePermission(value: unknown): ForeignReading {
	const fix = "write permission as {tool: allow | ask | deny}";
	const entries: [string, unknown][] = typeof value === "string" ? [["*", value]] : isMapping(value) ? Object.entries(value) : [];
	if (!isMapping(value) && typeof value !== "string") return refused("it is neither an action nor a map of tool permissions, so cadre cannot tell what it denies", fix);
	const rules: ToolRule[] = [];
	const notes: string[] = [];
	const unmatched: string[] = [];
	for (const [key, raw] of bySpecificity(entries)) {
		const decision = permissionDecision(key, raw);
		if (decision === null) return refused(`${key} is ${show(raw)}, not allow, ask or deny`, fix);
		if (key === "external_directory") {
			if (decision.allow) continue;
			return refused(`external_directory: ${show(raw)} keeps the child inside the project, and cadre cannot: its children can read and write outside it`, "remove external_directory only if the child may reach files outside the project; otherwise keep this agent out of cadre");
		}
		if (PERMISSIONS_WITHOUT_EFFECT.has(key)) continue;
		if (decision.note) notes.push(decision.note);
		// opencode's `edit` permission covers every tool that changes files.
		for (const name of key === "edit" ? ["edit", "write"] : [key]) rules.push(...rulesFor(name, decision.allow, unmatched));
	}
	if (!rules.some((rule) => !rule.allow)) return ignored("it denies nothing a cadre child has", "remove it");
	return mapped({ toolRules: rules }, [...notes, ...unmatchedNote(unmatched)]);
}

/** tintinweb's `extensions: true | false | [names]`, nicobailon's `extensions:` (empty: none). */
function extensionsKey(value: unknown): ForeignReading {
	const all = value === true || value === "*" || (Array.isArray(value) && value.includes("*"));
	if (all) return ignored("it loads the parent's extensions, as cadre children always do", "remove it");
	if (value === false || isEmpty(value)) return builtinsOnly("extensions still load in the child (cadre children load the parent's); only their tools are taken away");
	return refused("it loads only some extensions, and cadre cannot tell which tools each extension provides", "list the child's tools in `tools` (names or * patterns), then remove extensions");
}

/** tintinweb's `isolated: true`: built-in tools only, no extensions. */
function isolatedFlag(value: unknown): ForeignReading {
	if (value === true) return builtinsOnly("extensions and skills still load in the child; only extension tools are taken away");
	if (value === false || value === null) return ignored("isolated: false restricts nothing", "remove it");
	return refused(`${show(value)} is not true or false`, "write isolated: true, or list the child's tools in `tools`");
}

/** opencode's `disable: true`. */
function disableFlag(value: unknown): ForeignReading {
	if (value === true) return mapped({ enabled: false });
	if (value === false || value === null) return ignored("disable: false changes nothing", "remove it");
	return refused(`${show(value)} is not true or false, so cadre cannot tell whether the agent is disabled`, "write `enabled: false` to disable the type");
}

/** A key whose any nonempty value restricts the child in a way cadre cannot reproduce. */
function unreadable(why: string, fix: string): (value: unknown) => ForeignReading {
	return (value) => (isEmpty(value) || value === false ? ignored("it is empty", "remove it") : refused(why, fix));
}

const BLOCKING_HOOKS = new Set(["pretooluse", "permissionrequest"]);

/** Claude Code and grok-build `hooks`: the ones that can block a tool call are restrictions. */
function hooksKey(value: unknown): ForeignReading {
	const fix = "enforce the rule in a pi extension (cadre children load the parent's extensions) or narrow the child with `tools` or `capability`, then remove hooks";
	if (isEmpty(value)) return ignored("it is empty", "remove it");
	if (!isMapping(value)) return refused("cadre cannot read it, and hooks can block tool calls", fix);
	const blocking = Object.keys(value).filter((event) => BLOCKING_HOOKS.has(event.toLowerCase().replace(/[-_]/g, "")));
	if (blocking.length > 0) return refused(`${joined(blocking)} hooks can block tool calls, and cadre does not run other tools' hooks`, fix);
	return ignored("cadre does not run other tools' hooks, and none of these can block a tool call", "put hooks in a pi extension: cadre children load the parent's extensions");
}

/** Gemini CLI's `kind`: `remote` runs the agent elsewhere. */
function kindKey(value: unknown): ForeignReading {
	if (value === "remote") return refused("it runs the agent on a remote server; cadre would run it here, with this machine's files and the parent's tools", "keep remote agents out of cadre");
	return ignored("cadre runs every child in the parent's process", "remove it");
}

const always = (why: string, instead: string) => (): ForeignReading => ignored(why, instead);

const NO_NESTING = always("cadre children never get the spawn tools, so they cannot start children of their own", "remove it");
const NO_TIMER = always("cadre has no time limits", "bound the child with `max_turns`");
const NO_TRANSCRIPT_KEYS = always("cadre keeps a transcript of every run in its own place", "remove it");
/** Claude Code's `background`, Cursor's `is_background`, nicobailon's `async`: cadre's `run_in_background`. */
function background(value: unknown): ForeignReading {
	if (typeof value === "boolean") return { outcome: "renamed", key: "run_in_background", value };
	return ignored("cadre reads `run_in_background`", "write `run_in_background: true`");
}
const SAMPLING = always("cadre does not set sampling parameters", "remove it");
const SKILLS = always("cadre children see the parent's skills", "remove it");
const MCP_SERVERS = always("cadre children use the parent's MCP tools", "select them with `tools`");
const NO_ASKING = always("pi never asks before a tool call", "use `capability` to restrict the child");
const NICO_ONLY = always("it is a nicobailon/pi-subagents setting with no counterpart in cadre, and it grants nothing", "remove it");

/** Every foreign key cadre knows, by name (ADR 0072 lists them). */
export const FOREIGN_KEYS: ReadonlyMap<string, ForeignKey> = new Map(
	(
		[
			// Restrictions: mapped where cadre can say the same or less, refused where it cannot.
			["permissionMode", ["claude"], permissionMode],
			["permission_mode", ["grok"], permissionMode],
			["capability_mode", ["grok"], capabilityMode],
			["readonly", ["cursor"], readonlyFlag],
			["disallowedTools", ["claude"], denyList],
			["disallowed_tools", ["tintinweb"], denyList],
			["excludeTools", ["nicobailon"], denyList],
			["tools", ["opencode"], opencodeTools, isMapping],
			["permission", ["opencode"], opencodePermission],
			["disable", ["opencode"], disableFlag],
			["extensions", ["tintinweb", "nicobailon"], extensionsKey],
			["isolated", ["tintinweb"], isolatedFlag],
			["hooks", ["claude", "grok"], hooksKey],
			["kind", ["gemini"], kindKey],
			["tool_config", ["grok"], unreadable("cadre cannot read grok-build's tool configuration, which can restrict the child's tools", "express the restriction with `tools` or `capability`, then remove tool_config")],
			[
				"exclude_extensions",
				["tintinweb"],
				unreadable("cadre cannot tell which tools each extension provides", "list the child's tools in `tools` without that extension's (or exclude it from every child with settings childExtensions.exclude), then remove exclude_extensions"),
			],
			["sandbox_mode", ["codex"], sandboxMode],
			["inherit_extensions", ["tintinweb"], extensionsKey],
			[
				"runner",
				["nicobailon"],
				unreadable("it runs another program as the agent, with that program's own limits; a cadre child is a pi session with the parent's tools", "keep command-runner agents out of cadre"),
			],
			["launcher", ["nicobailon"], unreadable("it runs the child inside a sandbox command; cadre runs children in the parent's process, outside it", "run pi itself inside the sandbox, then remove launcher")],
			["machine", ["nicobailon"], unreadable("it runs the child on another machine; cadre would run it here, with this machine's files", "remove machine to run the child here")],
			// Keys cadre has under another name: `cadre import` renames them; the loader rejects them.
			["maxTurns", ["claude"], renamed("max_turns")],
			["developer_instructions", ["codex"], renamed("body")],
			["prompt", ["opencode"], renamed("body")],
			["model_reasoning_effort", ["codex"], renamed("thinking")],
			["reasoningEffort", ["opencode"], renamed("thinking")],
			["defaultContext", ["nicobailon"], defaultContext],
			// Restricting nothing a cadre child could do.
			["color", ["claude", "opencode"], always("cadre has no colours", "`display_name` sets the label")],
			["mcpServers", ["claude", "gemini"], MCP_SERVERS],
			["mcp_servers", ["codex"], MCP_SERVERS],
			["approval_policy", ["codex"], NO_ASKING],
			["nickname_candidates", ["codex"], always("cadre labels every child of a type alike", "set `display_name` for the label")],
			["web_search", ["codex"], always("pi has no built-in web search, and a cadre child gets no tool the parent lacks", "add a web tool an extension provides to `tools`")],
			["agent_card_url", ["gemini"], always("only remote agents use it", "remove it")],
			["agent_card_json", ["gemini"], always("only remote agents use it", "remove it")],
			["skills", ["claude", "codex", "tintinweb", "nicobailon"], SKILLS],
			["inherit_skills", ["tintinweb"], SKILLS],
			["memory", ["claude", "tintinweb", "nicobailon"], always("cadre has no agent memory", "remove it")],
			["background", ["claude"], background],
			["is_background", ["cursor"], background],
			["async", ["nicobailon"], background],
			["initialPrompt", ["claude"], always("a cadre child starts from the task it is given", "remove it")],
			["mode", ["opencode"], always("primary or subagent changes nothing for a cadre child", "remove it")],
			["hidden", ["opencode"], always("cadre shows every enabled type to the parent", "disable the type with `enabled: false` if it must not be used")],
			["temperature", ["opencode", "gemini"], SAMPLING],
			["top_p", ["opencode"], SAMPLING],
			["maxSteps", ["opencode"], renamed("max_turns")],
			["steps", ["opencode"], renamed("max_turns")],
			["timeout_mins", ["gemini"], NO_TIMER],
			["timeoutMs", ["nicobailon"], NO_TIMER],
			["toolTimeoutMs", ["nicobailon"], NO_TIMER],
			["allowedAgents", ["nicobailon"], NO_NESTING],
			["maxSubagentDepth", ["nicobailon"], NO_NESTING],
			["allowNestedSubagents", ["nicobailon"], NO_NESTING],
			["subagentOnlyExtensions", ["nicobailon"], always("cadre children load the parent's extensions and no others", "load the extension in the parent")],
			["acceptanceRole", ["nicobailon"], always("it grants and revokes nothing", "remove it")],
			["systemPromptMode", ["nicobailon"], always("a definition has one shape: a nonempty body replaces the instructions below it", "remove it")],
			["inheritProjectContext", ["nicobailon"], always("cadre children always get the project's context files", "remove it")],
			["inheritSkills", ["nicobailon"], SKILLS],
			["inheritGlobalContext", ["nicobailon"], always("cadre children get the project's context files and pi's own", "remove it")],
			...["package", "advertise", "aliases", "skillPath", "output", "defaultReads", "defaultProgress", "acceptance", "interactive", "mutationTools"].map(
				(key) => [key, ["nicobailon"], NICO_ONLY] as [string, ForeignSource[], (value: unknown) => ForeignReading],
			),
			["persist_session", ["tintinweb"], NO_TRANSCRIPT_KEYS],
			["output_transcript", ["tintinweb"], NO_TRANSCRIPT_KEYS],
			["session_dir", ["tintinweb"], NO_TRANSCRIPT_KEYS],
		] as [string, ForeignSource[], (value: unknown) => ForeignReading, ((value: unknown) => boolean)?][]
	).map(([key, from, read, claims]) => [key, claims ? { key, from, read, claims } : { key, from, read }]),
);

/** The foreign key `key` is when written with `value` (`tools` only as opencode's map), or null. */
export function foreignKeyFor(key: string, value: unknown): ForeignKey | null {
	const spec = FOREIGN_KEYS.get(key);
	if (!spec || (spec.claims && !spec.claims(value))) return null;
	return spec;
}

/** What cadre makes of `key: value` from another tool's file, or null when it is no foreign key. */
export function readForeignKey(key: string, value: unknown): ForeignReading | null {
	return foreignKeyFor(key, value)?.read(value) ?? null;
}

/** `a Claude Code key`, `an opencode key`, `a Claude Code and grok-build key`, … */
export function foreignKeyKind(spec: ForeignKey): string {
	const names = spec.from.map((source) => SOURCE_NAMES[source]);
	const who = names.length <= 1 ? (names[0] ?? "") : `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
	return `${/^[aeiou]/i.test(who) ? "an" : "a"} ${who} key`;
}
