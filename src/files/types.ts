/**
 * What loading produces: definitions, roles and personas merged across scopes, the layered
 * settings, and every diagnostic found on the way (spec 01). Plain data; the resolver reads it and
 * never touches the file system except through its injected reader.
 */
import type { Diagnostic } from "../core/diagnostics.ts";
import type { BudgetDimension, BudgetValue } from "../core/budget.ts";
import type { CapabilityMode, IoType, IsolationMode, SandboxMode, ThinkingLevel } from "../core/values.ts";

export type EntryKind = "definition" | "role" | "persona";

/** Where an entry came from, highest priority first (spec 01 "Priority"). */
export type Scope = "project-inline" | "project" | "user-inline" | "user" | "bundled";

/**
 * A value with the place it was written:
 * - `path:line` of the key for files (path relative to the project directory when inside it),
 * - `settings:<path>:<line>` for settings entries,
 * - `bundled` for cadre's built-ins.
 */
export interface Sourced<T> {
	value: T;
	source: string;
	/** The column of the key, when it was written in a file or settings (for diagnostics). */
	column?: number;
}

/** A value the loader rejected (bad-value etc.), kept so the trace can show it as `invalid`. */
export interface Rejected {
	raw: unknown;
	source: string;
}

/**
 * A reference to a file named by `prompt_file` / `instructions_file`. It is read at spawn time
 * through the resolver's reader, which checks confinement again on the real path.
 */
export interface FileRef {
	/** The path as written in the file or settings entry. */
	written: string;
	/** Directory the path resolves against (the declaring file's directory, or the scope root). */
	baseDir: string;
	/** The scope root the resolved real path must stay inside. */
	root: string;
	/** Display form of the declaring file (for messages). */
	declaredIn: string;
	/**
	 * How the root confines it (ADR 0060): `project` (default) on the real path; `user` on the path
	 * as written, following the user's own symlinks.
	 */
	confine?: "project" | "user";
	/** The size limit in bytes when read (default 1 MiB). */
	maxBytes?: number;
}

export interface IoSpec {
	name: string;
	io_type: IoType;
	required: boolean;
	description: string | null;
	/**
	 * Outputs of io_type `file` / `directory` (and a `json` output kept in a file): where it must
	 * be, relative to the child's cwd; null for the default (a file or directory output: its name).
	 */
	path: string | null;
}

/**
 * A definition's `output_schema`: the JSON Schema written inline, or the file `output_schema_file`
 * names (read and checked at every spawn, confined like `prompt_file`).
 */
export type OutputSchemaKey = { inline: Record<string, unknown> } | { file: FileRef };

/**
 * One rule of a definition's tool filter, read from another tool's key (`disallowedTools`,
 * opencode's `tools` map, …; ADR 0072): the last rule whose `*` pattern matches a tool decides
 * whether the child keeps it, and a tool no rule matches is kept. Rules never add a tool.
 */
export interface ToolRule {
	pattern: string;
	allow: boolean;
	/**
	 * The key the rule was read from, as a number: each key's rules filter on their own, and the
	 * child keeps a tool only when every key's rules keep it, so one key's `allow` never gives back
	 * a tool another key denied. Rules without one form one set.
	 */
	set?: number;
}

/**
 * A key that restricts access in the tool it was written for and that cadre cannot honour
 * (ADR 0072): every spawn using the entry is refused `restriction-unread`.
 */
export interface UnreadRestriction {
	key: string;
	/** `path:line:col` of the key, as diagnostics show it. */
	where: string;
	/** What the key restricts and why cadre cannot honour it. */
	why: string;
	/** What the author can do. */
	fix: string;
}

/** Canonical keys per kind, after synonyms are folded (effort/reasoning_effort → thinking, …). */
export interface DefinitionKeys {
	description: string;
	display_name: string;
	/** `all`, `none`, or an ordered list of names / `*` globs. */
	tools: "all" | "none" | string[];
	capability: CapabilityMode;
	/** As written (pi's resolver decides what it means); `inherit` is never stored. */
	model: string;
	thinking: ThinkingLevel;
	isolation: IsolationMode;
	/** ADR 0150: `off` counts only from user files or a trusted project. */
	sandbox: SandboxMode;
	persona: string;
	max_turns: number;
	run_in_background: boolean;
	inherit_context: boolean;
	enabled: boolean;
	/** `output_schema` or `output_schema_file` (one key: both in one file is an error). */
	output_schema: OutputSchemaKey;
	/** Never written as such: what other tools' deny lists and tool maps were read as (ADR 0072). */
	tool_rules: ToolRule[];
	/** The types the child may spawn when it delegates: `*` or names as written (issue 21). */
	subagents: "*" | string[];
	/** The child's budget, only the dimensions written (issue 22). */
	budget: BudgetValue;
	/** A command cadre runs after the child (issue 23); from user files or a trusted project only. */
	verify: VerifyKey;
	/** Issue 25: the settings `workspaces` the child may run on (`[]`: local). */
	workspace: string[];
}

/** `verify`: the command and its timeout. */
export interface VerifyKey {
	command: string;
	timeoutMs: number;
}

export interface RoleKeys {
	description: string;
	capability: CapabilityMode;
	model: string;
	thinking: ThinkingLevel;
	isolation: IsolationMode;
	sandbox: SandboxMode;
	prompt_file: FileRef;
	subagents: "*" | string[];
	budget: BudgetValue;
	verify: VerifyKey;
	workspace: string[];
}

export interface PersonaKeys {
	description: string;
	instructions_file: FileRef;
	model: string;
	thinking: ThinkingLevel;
	isolation: IsolationMode;
	inputs: IoSpec[];
	outputs: IoSpec[];
	verify: VerifyKey;
}

export interface KeysOf {
	definition: DefinitionKeys;
	role: RoleKeys;
	persona: PersonaKeys;
}

/** One file (or inline settings entry, or built-in) of one kind, before the scope merge. */
export interface EntryLayer<K extends EntryKind = EntryKind> {
	kind: K;
	/** The name as spelled by this layer (file stem or settings key). */
	name: string;
	scope: Scope;
	/** Display path of the file (or `settings:<path>` for inline entries, `bundled` for built-ins). */
	path: string;
	/**
	 * The trace source of the entry as a whole when `path` is not one: `settings:<path>:<line>` of an
	 * inline entry's name. Absent for files and built-ins (their `path` is their source).
	 */
	origin?: string;
	/** Trimmed body text, null when empty after trimming. */
	body: Sourced<string> | null;
	keys: { [P in keyof KeysOf[K]]?: Sourced<KeysOf[K][P]> };
	/** Keys present with a value the loader rejected. */
	invalid: { [P in keyof KeysOf[K]]?: Rejected };
	/** Restrictions written for another tool that cadre cannot honour (absent: none). */
	unread?: UnreadRestriction[];
}

/** An entry after the scope merge: settings key by key, body from the highest nonempty layer. */
export interface Entry<K extends EntryKind = EntryKind> {
	kind: K;
	/** The canonical name: the spelling of the highest-priority layer. */
	name: string;
	/** Where the highest-priority layer came from. */
	scope: Scope;
	path: string;
	/** The highest layer's `origin` (inline entries: `settings:<path>:<line>`). */
	origin?: string;
	/** The effective body (inherited from a lower layer when higher ones are empty). */
	body: Sourced<string> | null;
	keys: { [P in keyof KeysOf[K]]?: Sourced<KeysOf[K][P]> };
	/**
	 * For each key, the rejected value of a layer *above* the layer that supplied `keys[key]` (or of
	 * any layer when no layer supplied a valid value) — the trace's `invalid` candidate.
	 */
	invalid: { [P in keyof KeysOf[K]]?: Rejected };
	/**
	 * Every layer's unread restrictions: a restriction no layer can honour stays whatever a higher
	 * layer says, so every spawn using the entry is refused.
	 */
	unread: UnreadRestriction[];
	/** Every layer that contributed, highest first (for `cadre list`: what this entry shadows). */
	layers: EntryLayer<K>[];
}

export type ToolKind = "read" | "write" | "execute";

/**
 * Layered `subagents.json` (spec 01 "Settings"). Type-name keys are stored lower-cased, in records
 * without a prototype (`nameRecord()`), so a type called `constructor` finds only its own entry.
 */
export interface Settings {
	maxConcurrent: Sourced<number>;
	defaultMaxTurns: Sourced<number> | null;
	defaultBackground: Sourced<boolean> | null;
	/** Operator model pin per type (layer `pin`). */
	models: Record<string, Sourced<string>>;
	/** Operator thinking pin per type (layer `pin`). */
	thinking: Record<string, Sourced<ThinkingLevel>>;
	/** Rejected pin values, per field then type, for the trace's `invalid` candidates. */
	invalidPins: { models: Record<string, Rejected>; thinking: Record<string, Rejected> };
	toggle: Record<string, Sourced<boolean>>;
	/** Glob → kind. Only from user settings, or project settings when the project is trusted. */
	toolKinds: Record<string, ToolKind>;
	childExtensions: { exclude: string[] };
	worktree: WorktreeSettings;
	maxResultChars: number;
	/** The size limit per file read (1 MiB); raised by user settings or a trusted project only (ADR 0060). */
	maxFileBytes: number;
	strict: boolean;
	/** pi's TUI: `ui.widget` says which runs the live widget lists (issue 11). */
	/** `widget`: which runs the TUI widget lists; `list`: the child list under the editor (issue 24). */
	ui: { widget: "background" | "all" | "off"; list: boolean };
	/** Persona outputs and structured results (ADR 0099): `repair: false` turns the repair turn off. */
	contracts: { repair: boolean };
	/** Settings `maxDepth` (issue 21): how deep runs nest; the root session is 0, its children 1 (2). */
	maxDepth: Sourced<number>;
	/** Settings `budget` (issue 22): per-run default, per-run ceiling, and the session's total. */
	budget: BudgetSettings;
	/** `telemetry.otlp`: the OTLP/HTTP endpoint traces go to (user settings or a trusted project only; ADR 0145). */
	telemetry: { otlp: string | null };
	/** Settings `sandbox` (ADR 0150): see src/files/sandbox-settings.ts. */
	sandbox: SandboxSettings;
	/** Settings `workspaces` (issue 25, ADR 0180): user settings or a trusted project only. */
	workspaces: Record<string, WorkspaceSpec>;
	/** The settings files that exist, highest first. */
	files: string[];
}

/** A budget's dimensions, each with where it was written. */
export type SourcedBudget = Partial<Record<BudgetDimension, Sourced<number>>>;

/** Settings `budget`; `ceiling` and `session` from user settings or a trusted project, else only lowered. */
export interface BudgetSettings {
	default: SourcedBudget;
	ceiling: SourcedBudget;
	session: SourcedBudget;
}

/**
 * Settings `sandbox` (ADR 0150). `default` and `env.allow`/`allowNetwork` (which widen access) count
 * from user settings or a trusted project only — `default: off` too; `denyRead` from any file adds.
 */
export interface SandboxSettings {
	default: Sourced<SandboxMode>;
	/** Extra paths the child's commands and tools cannot read (`~/` is the home directory). */
	denyRead: string[];
	/** Credential-looking variables passed to the child's commands anyway. */
	envAllow: string[];
	/** Domains the child's commands may reach (none by default). */
	allowNetwork: string[];
}

/** One settings `workspaces` entry (issue 25): an SSH host a child's tools run on. */
export interface WorkspaceSpec {
	type: "ssh";
	host: string;
	port: number;
	user: string;
	/** Absolute path of the private key (`~/` is the home directory). */
	identityFile: string;
	/** Absolute path of a known_hosts file the host key must be in (never trust on first use). */
	knownHosts: string;
	/** Remote directory under which cadre keeps its clones and worktrees. */
	root: string;
	/** How many children may run there at once. */
	maxConcurrent: number;
	/** How long the host may stay unreachable before a run fails `workspace-lost` (60). */
	graceSeconds?: number;
	/** `settings:path:line:col` of the entry. */
	source: string;
}

/** Settings `worktree` (docs/isolation.md). The optional keys are absent unless a file set them. */
export interface WorktreeSettings {
	baseDir: string | null;
	allowSharedFallback: boolean;
	/** `pool`: prepared worktrees kept per repository; `size: 0` turns the pool off (absent: the default, ADR 0085). */
	pool?: { size: number };
	/** `include` (trusted files only): ignored paths of the parent brought into each worktree (ADR 0086). */
	include?: WorktreeInclude[];
	/** `setup` (trusted files only): a command run in the worktree before the child starts (ADR 0086). */
	setup?: { command: string; timeoutMs: number };
	/** `verify` (trusted files only): run by the merge queue on each merged tree before your branch moves (ADR 0115). */
	verify?: { command: string; timeoutMs: number };
	/** `copyUncommitted`: the default of the request's `copy_uncommitted` (ADR 0087). */
	copyUncommitted?: Sourced<boolean>;
}

/** One `worktree.include` entry: a repository-relative path, copied, or symlinked when the operator says so. */
export interface WorktreeInclude {
	path: string;
	mode: "copy" | "symlink";
}

export interface LoadOptions {
	/** Where to start looking for the project (`.pi/`), usually the parent's cwd. */
	cwd: string;
	/** `$PI_CODING_AGENT_DIR` or `~/.pi/agent`, resolved by the caller from the environment. */
	agentDir: string;
	/** The home directory (a `.pi` that is `$HOME/.pi` is never a project). */
	homeDir: string;
	/** Whether pi trusts the project: gates `toolKinds` and `worktree.allowSharedFallback`. */
	projectTrusted: boolean;
}

/**
 * What a file (or folder) would describe: one named entry of a kind (a file `agents/x.md` is
 * definition x, even when it was skipped whole), every entry of a kind (a kind folder that could
 * not be read), or everything (a settings file, the project's `.pi`).
 */
export type FileOwner = { kind: EntryKind; name: string } | { kind: EntryKind; name: null } | { kind: "settings" };

/** The errors of one file, with what that file describes. */
export interface FileFault {
	file: string;
	owner: FileOwner;
	errors: Diagnostic[];
}

export interface LoadResult {
	/** Absolute project directory (the folder holding `.pi/`), or null when there is no project scope. */
	projectDir: string | null;
	agentDir: string;
	/** Keyed by lower-cased name. Disabled definitions are included (resolution refuses them). */
	definitions: Map<string, Entry<"definition">>;
	roles: Map<string, Entry<"role">>;
	personas: Map<string, Entry<"persona">>;
	settings: Settings;
	/** Every load diagnostic, sorted by file, line, column. */
	diagnostics: Diagnostic[];
	/** The errors of `diagnostics` by file, with what each file describes: a spawn using one is refused (ADR 0100). */
	faults: FileFault[];
	/** Files in kind folders that are not entries and are no problem (a README), in load order. */
	skipped: SkippedFile[];
}

/** A file the loader passed over on purpose (ADR 0062). */
export interface SkippedFile {
	/** Display path. */
	path: string;
	/** Why, in a few words. */
	reason: string;
}
