/**
 * The resolver's inputs and outputs (spec 02): a spawn request, the parent's facts, the model
 * catalog and spawn-time reader it may consult, and the effective runtime config with its trace.
 */
import type { Budget, BudgetDimension } from "../core/budget.ts";
import type { Diagnostic } from "../core/diagnostics.ts";
import type { CapabilityMode, IoType, IsolationMode, SandboxMode, ThinkingLevel } from "../core/values.ts";
import type { FileRef, IoSpec, LoadResult, ToolKind } from "../files/types.ts";

/**
 * The spawn request as the `subagent` tool receives it (snake_case). Values are unvalidated:
 * the resolver refuses invalid ones with `bad-request`.
 */
export interface SpawnRequest {
	prompt?: unknown;
	description?: unknown;
	subagent_type?: unknown;
	model?: unknown;
	thinking?: unknown;
	capability?: unknown;
	persona?: unknown;
	isolation?: unknown;
	copy_uncommitted?: unknown;
	cwd?: unknown;
	max_turns?: unknown;
	run_in_background?: unknown;
	inherit_context?: unknown;
	resume?: unknown;
	/** Input name → value, checked against the persona's `inputs`. */
	inputs?: unknown;
	/** A JSON Schema (or `none`): the child finishes through `submit_result` with a value it accepts. */
	output_schema?: unknown;
	/** `{ tokens?, cost?, time? }` (issue 22): the run's budget, capped by settings `budget.ceiling`. */
	budget?: unknown;
	/** Issue 25: a settings `workspaces` name (or a list of them) the child's tools run on; `local`: here. */
	workspace?: unknown;
}

/** What the parent session contributes (layer `parent`). */
export interface ParentFacts {
	/** Absolute working directory of the parent. */
	cwd: string;
	/** `provider/id`, or null when the parent has no model. */
	model: string | null;
	/** The parent's thinking level; the parent layer always names one. */
	thinking: ThinkingLevel;
	/** The parent's active tool names, in the parent's order. */
	activeTools: string[];
	/**
	 * Every tool a child could have: pi's built-ins in pi's order, then extension tools by name
	 * (spec 04 "Tools a child can have").
	 */
	toolUniverse: string[];
	/**
	 * The git repository root of the parent's cwd, when the host knows it (null: not a repository).
	 * Used only to refuse a request `cwd` outside the repository under worktree isolation; when
	 * undefined or null that check is skipped (no repository is the worktree feasibility check's).
	 */
	repoRoot?: string | null;
	/** Whether pi trusts the project: a project file's `sandbox: off` counts only then (ADR 0150). */
	projectTrusted?: boolean;
	/**
	 * The OS sandbox as the host found this platform (ADR 0150). Absent: not checked — nothing is
	 * sandboxed and nothing is said (pure tests, hosts that never run commands).
	 */
	sandbox?: SandboxPlatform;
	/**
	 * The OS sandbox of each SSH workspace as probed on its host (issue 25, ADR 0191), by settings
	 * name. A workspace not listed was not probed yet: its child counts as sandboxed and the
	 * runtime probes before it runs anything, refusing it when the probe says no (fail closed).
	 */
	remoteSandbox?: Record<string, SandboxPlatform>;
}

/** What the host found of the OS sandbox on this machine. */
export interface SandboxPlatform {
	available: boolean;
	/** Why not (`bwrap is not on PATH`), null when available. */
	reason: string | null;
	/** What to do about it (the install hint). */
	hint: string;
}

/** The answer of the model catalog for one name. */
export type ModelLookup =
	/** `unverified`: pi knows the model but has no credential for it here (explain and prompt only, ADR 0103). */
	| { ok: true; id: string; unverified?: boolean }
	/** `id`: with `no-credentials`, the `provider/id` pi resolved the name to. */
	| { ok: false; reason: "unknown" | "no-credentials"; message: string; closest: string[]; id?: string };

/**
 * Models as pi sees them, snapshotted before resolution so that resolution stays synchronous and
 * pure. The pi adapter builds it from pi's ModelRuntime and resolver; tests build it by hand.
 */
export interface ModelCatalog {
	/** Resolve a name the way pi's `--model` does; only available models resolve. */
	lookup(name: string): ModelLookup;
	/** The level pi would run `level` at on the model `id` (pi's clamp). */
	clampThinking(id: string, level: ThinkingLevel): ThinkingLevel;
}

/** Reading a `prompt_file`/`instructions_file` at spawn time, confined to its scope root. */
export type ReadResult =
	| { ok: true; text: string }
	| { ok: false; code: "missing-file" | "path-escape" | "not-a-file" | "file-too-large"; message: string };

/** What is at a path (following symbolic links), for `file` / `directory` inputs. */
export type Located = { kind: "file" | "directory" | "other"; realPath: string } | null;

export interface SpawnReader {
	read(ref: FileRef): ReadResult;
	/** Whether an absolute path is an existing directory (request `cwd`). */
	isDirectory(path: string): boolean;
	/** What an absolute path is and its real path, or null when nothing is there. */
	locate(path: string): Located;
}

/** The effective config of a run stored for resume (the resolved config of the source run). */
export interface StoredRun {
	id: string;
	/** `interrupted`: loaded from disk, its process ended mid-run (resumable like a finished run). */
	state: "queued" | "running" | "completed" | "failed" | "aborted" | "stopped" | "interrupted";
	config: EffectiveConfig;
}

/**
 * The spawning run of a nested spawn (issue 21): what it resolved to, so its child can never get
 * more. Build it with `spawnerFacts(type, config)` from the spawning run's stored config.
 */
export interface SpawnerFacts {
	/** The spawning run's type. */
	type: string;
	/** Its depth: a child of the root session is 1. */
	depth: number;
	capabilityMode: CapabilityMode | null;
	/** Its effective tools (the delegation tools among them). */
	tools: string[];
	isolation: IsolationMode;
	delegation: Delegation;
	/** Its budget limits (the static cap; what remains at spawn time is the reservation's). */
	budget: Budget;
}

export interface ResolveInput {
	request: SpawnRequest;
	/** The type as given (the request's `subagent_type`, the CLI's positional TYPE); default general-purpose. */
	type: string | null;
	loaded: LoadResult;
	parent: ParentFacts;
	models: ModelCatalog;
	reader: SpawnReader;
	/** Settings `toolKinds` after the trust gate, merged over the built-in kinds. */
	toolKinds?: Record<string, ToolKind>;
	/** For `resume`: the stored run the request names, or null when the id is unknown. */
	resumeFrom?: StoredRun | null;
	/** A nested spawn: the run that spawns (absent or null: the root session spawns, depth 1). */
	spawner?: SpawnerFacts | null;
}

/**
 * Whether a child delegates (issue 21): it gets `subagent`, `get_subagent_result` and
 * `steer_subagent` (they are then in its `tools`) only when its definition's `tools` names
 * `subagent` and its depth is below settings `maxDepth`.
 */
export interface Delegation {
	allowed: boolean;
	/** The types it may spawn as written (`*` = every enabled type); `spawnableTypes` lists them. */
	subagents: "*" | string[];
	/** Why it may not delegate; null when it may. */
	reason: string | null;
	/** Settings `maxDepth` it was decided under. */
	maxDepth: number;
}

/**
 * One input of the spawn, after the check against the persona's `inputs`: `ok` (given and valid),
 * `missing` (required, not given: refused), `not-given` (optional), `invalid` (refused) or
 * `undeclared` (given, not declared by the persona: a warning, passed on).
 */
export interface InputCheck {
	name: string;
	/** The persona's io_type, or null for an undeclared input. */
	ioType: IoType | null;
	required: boolean;
	description: string | null;
	status: "ok" | "missing" | "not-given" | "invalid" | "undeclared";
	/** The value as the child's prompt shows it (a path relative to the child's cwd, JSON as text); null when not passed on. */
	text: string | null;
	/** Why it is missing, invalid or undeclared; null when ok. */
	note: string | null;
}

export interface EffectiveConfig {
	model: string | null;
	reasoningEffort: ThinkingLevel | null;
	capabilityMode: CapabilityMode | null;
	persona: string | null;
	personaInstructions: string | null;
	rolePrompt: string | null;
	rolePromptWarning: string | null;
	roleName: string | null;
	personaError: string | null;
	/** The persona's inputs then the request's undeclared ones, checked; empty when neither names any. */
	inputs: InputCheck[];
	/** The persona's outputs the run's end checks; a file or directory output's `path` defaults to its name. */
	outputs: IoSpec[];
	/** The JSON Schema of the child's `submit_result` (request > definition), or null. */
	outputSchema: Record<string, unknown> | null;
	isolation: IsolationMode;
	/** `sandbox` (role > definition > settings `sandbox.default` > auto, ADR 0150). */
	sandbox?: SandboxMode;
	/** Whether the child's tools run inside the OS sandbox (the mode, and what the platform can); absent in older records. */
	sandboxed?: boolean;
	/** Whether a worktree starts from HEAD plus the parent's uncommitted changes (ADR 0087). */
	copyUncommitted: boolean;
	tools: string[];
	maxTurns: number | null;
	runInBackground: boolean;
	inheritContext: boolean;
	/** The command cadre runs after the child (role > persona > definition; trusted files only), or null; absent in records older than it. */
	verify?: { command: string; timeoutMs: number } | null;
	/** Parent-side directory the child starts from, relative to the project dir when inside it. */
	cwd: string;
	standingInstructions: string | null;
	definition: { name: string; source: string };
	/** How deep the run is: a child of the root session is 1, its children 2 (issue 21). */
	depth: number;
	delegation: Delegation;
	/** The run's limits after the ceiling and the spawner's caps; null = no limit (issue 22). */
	budget: Budget;
	/**
	 * Issue 25: the settings `workspaces` the child may be placed on, by name (`local` is this
	 * machine); `["local"]` by default. Absent in older records: local.
	 */
	workspace?: string[];
}

/**
 * `definition-floor`: the definition's `isolation: worktree`, which only the request can lower
 * (ADR 0078). `resume`: the value was reused from the stored config of the run being resumed.
 */
export type Layer = "request" | "definition-floor" | "role" | "persona" | "pin" | "definition" | "parent" | "default" | "resume";

export type CandidateOutcome = "not-named" | "overridden" | "invalid" | "unresolvable";

export interface Candidate {
	layer: Layer;
	value: unknown;
	source: string | null;
	outcome: CandidateOutcome;
}

/**
 * A cap on a field's winner (issues 21, 22): the spawning run's (`parent`: a nested child never
 * gets more than the run that spawns it) or settings `budget.ceiling`. `asked` is the value before.
 */
export interface Cap {
	by: "parent" | "ceiling";
	/** `parent <type>`, or the ceiling's `settings:path:line`. */
	source: string;
	asked: unknown;
}

export interface TraceEntry {
	value: unknown;
	layer: Layer;
	source: string;
	candidates: Candidate[];
	/** reasoningEffort only: the level the child runs with after pi's clamp. */
	applied?: ThinkingLevel | null;
	/** Present when a cap lowered (isolation: raised) the winner. */
	capped?: Cap;
	/** budget only: each dimension's own pick and cap. */
	dimensions?: Record<BudgetDimension, TraceEntry>;
	/** model only: the model has no credential here, shown by explain instead of a refusal (ADR 0103). */
	unverified?: boolean;
	/** tools only: what the capability filter dropped because the child runs unsandboxed (bash of a read-only child, ADR 0185). */
	unsandboxed?: string[];
}

export type Trace = { [K in keyof EffectiveConfig]-?: TraceEntry };

export type RefusalCode =
	| "unknown-type"
	| "disabled-type"
	| "restriction-unread"
	| "file-invalid"
	| "persona-error"
	| "bad-request"
	| "model-unresolvable"
	| "resume-refused"
	| "input-missing"
	| "input-invalid"
	| "output-schema-invalid"
	| "type-not-allowed"
	| "depth-exceeded"
	| "budget-exhausted"
	| "sandbox-unavailable"
	| "workspace-unknown"
	| "workspace-untrusted-host";

export interface Refusal {
	code: RefusalCode;
	message: string;
}

/** A request value that had no effect, for the requested-vs-used block. */
export interface IgnoredRequestValue {
	key: string;
	requested: unknown;
	reason: string;
}

export interface ResolveResult {
	/** The canonical type name (as given when unknown). */
	type: string;
	/** Null only for `unknown-type`. */
	config: EffectiveConfig | null;
	/** Empty for `unknown-type`. */
	trace: Partial<Trace>;
	/** Load diagnostics (sorted), then the resolution's own in field order. */
	diagnostics: Diagnostic[];
	refused: Refusal | null;
	ignored: IgnoredRequestValue[];
}
