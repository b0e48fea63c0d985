/**
 * Reading run records back (ADR 0068), as untrusted-ish input: a regular file, bounded in size, its
 * shape validated against the record's schema (typebox, compiled once) — a record that is not is
 * skipped with a `run-record-invalid` diagnostic. A record left queued or running by a process
 * that is gone loads as `interrupted`. Writing is run-store.ts; neither imports the other (the
 * file format is run-file.ts).
 */
import { readdirSync } from "node:fs";
import { hostname } from "node:os";
import { dirname, join } from "node:path";
import { type Static, Type } from "typebox";
import { Compile } from "typebox/compile";
import type { Diagnostic } from "../core/diagnostics.ts";
import { CAPABILITY_MODES, IO_TYPES, ISOLATION_MODES, THINKING_LEVELS } from "../core/values.ts";
import { readFileUnder } from "../files/read-confined.ts";
import { ownerState, parseOwner } from "./owner.ts";
import { MAX_RECORD_BYTES, RECORD_SUFFIX, RECORD_VERSION } from "./run-file.ts";
import type { RunRecord } from "./runs.ts";

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);
const Count = Type.Integer({ minimum: 0 });
const Time = Type.Number({ minimum: 0 });
const Text = Nullable(Type.String());

const ConfigSchema = Type.Object({
	model: Text,
	reasoningEffort: Nullable(Type.Enum([...THINKING_LEVELS])),
	capabilityMode: Nullable(Type.Enum([...CAPABILITY_MODES])),
	persona: Text,
	personaInstructions: Text,
	rolePrompt: Text,
	rolePromptWarning: Text,
	roleName: Text,
	personaError: Text,
	// Optional: records written before contracts existed have none (read as none).
	inputs: Type.Optional(
		Type.Array(
			Type.Object({
				name: Type.String(),
				ioType: Nullable(Type.Enum([...IO_TYPES])),
				required: Type.Boolean(),
				description: Text,
				status: Type.Enum(["ok", "missing", "not-given", "invalid", "undeclared"]),
				text: Text,
				note: Text,
			}),
		),
	),
	outputs: Type.Optional(Type.Array(Type.Object({ name: Type.String(), io_type: Type.Enum([...IO_TYPES]), required: Type.Boolean(), description: Text, path: Text }))),
	outputSchema: Type.Optional(Nullable(Type.Record(Type.String(), Type.Unknown()))),
	isolation: Type.Enum([...ISOLATION_MODES]),
	tools: Type.Array(Type.String()),
	maxTurns: Nullable(Type.Integer({ minimum: 1 })),
	runInBackground: Type.Boolean(),
	inheritContext: Type.Boolean(),
	cwd: Type.String(),
	standingInstructions: Text,
	definition: Type.Object({ name: Type.String(), source: Type.String() }),
});

const TraceEntrySchema = Type.Object({
	value: Type.Unknown(),
	layer: Type.String(),
	source: Type.String(),
	candidates: Type.Array(Type.Object({ layer: Type.String(), value: Type.Unknown(), source: Text, outcome: Type.String() })),
	applied: Type.Optional(Text),
});

const ContractSchema = Type.Object({
	ok: Type.Boolean(),
	outputs: Type.Array(Type.Object({ name: Type.String(), ok: Type.Boolean(), path: Type.Optional(Type.String()), reason: Type.Optional(Type.String()) })),
	repair: Nullable(Type.Object({ steered: Type.Boolean(), worked: Type.Boolean(), skipped: Text })),
});

const DiagnosticSchema = Type.Object({
	severity: Type.Enum(["error", "warning"]),
	file: Text,
	line: Nullable(Type.Integer()),
	column: Nullable(Type.Integer()),
	code: Type.String(),
	message: Type.String(),
	hint: Type.Optional(Type.String()),
});

/** What a record file holds (version 1). */
const Limits = Type.Object({ tokens: Nullable(Type.Number()), cost: Nullable(Type.Number()), time: Nullable(Type.Number()) });
const Dimension = Type.Enum(["tokens", "cost", "time"]);
const BudgetSchema = Type.Object({
	limit: Limits,
	reserved: Limits,
	used: Type.Object({ tokens: Type.Number(), cost: Type.Number(), time: Type.Number() }),
	source: Type.String(),
	clamped: Type.Array(Dimension),
	stoppedBy: Nullable(Dimension),
	warned: Type.Boolean(),
});

const RecordSchema = Type.Object({
	version: Type.Literal(RECORD_VERSION),
	/** A run id: a valid git ref component (it names worktree branches). */
	id: Type.String({ pattern: "^[a-z0-9][a-z0-9-]*$", maxLength: 64 }),
	type: Type.String(),
	description: Type.String(),
	prompt: Type.String(),
	plannedCwd: Type.String(),
	background: Type.Boolean(),
	/** cadre writes `interrupted` never itself: it is derived when a queued or running record is read. */
	state: Type.Enum(["queued", "running", "completed", "failed", "aborted", "stopped", "interrupted"]),
	parentSession: Text,
	/** Optional: records written before nesting (issue 21) have none — depth 1, no parent. */
	parentId: Type.Optional(Nullable(Type.String({ pattern: "^[a-z0-9][a-z0-9-]*$", maxLength: 64 }))),
	rootId: Type.Optional(Type.String({ pattern: "^[a-z0-9][a-z0-9-]*$", maxLength: 64 })),
	depth: Type.Optional(Type.Integer({ minimum: 1, maximum: 64 })),
	spawnerCwd: Type.Optional(Nullable(Type.String())),
	treeUsage: Type.Optional(Type.Object({ input: Type.Number(), output: Type.Number(), cacheRead: Type.Number(), cacheWrite: Type.Number(), cost: Type.Number() })),
	descendants: Type.Optional(Type.Integer({ minimum: 0 })),
	/** `formatOwner` of the process that ran it. */
	owner: Type.String(),
	createdAt: Time,
	startedAt: Nullable(Time),
	endedAt: Nullable(Time),
	savedAt: Time,
	turns: Count,
	toolUses: Count,
	usage: Type.Object({ input: Type.Number(), output: Type.Number(), cacheRead: Type.Number(), cacheWrite: Type.Number(), cost: Type.Number() }),
	text: Text,
	/** Optional: records written before contracts existed have none. */
	contract: Type.Optional(Nullable(ContractSchema)),
	structured: Type.Optional(Type.Unknown()),
	/** Optional: records written before verify existed have none (issue 23). */
	verify: Type.Optional(Nullable(Type.Record(Type.String(), Type.Unknown()))),
	receipt: Type.Optional(Nullable(Type.Record(Type.String(), Type.Unknown()))),
	error: Text,
	transcript: Text,
	isolation: Nullable(Type.Record(Type.String(), Type.Unknown())),
	limitReached: Type.Boolean(),
	/** Optional: records written before budgets (issue 22) have none. */
	stopReason: Type.Optional(Nullable(Type.Literal("budget"))),
	budget: Type.Optional(Nullable(BudgetSchema)),
	resumeOf: Text,
	/** Optional: records written before telemetry (ADR 0145) have none. */
	traceId: Type.Optional(Nullable(Type.String({ pattern: "^[0-9a-f]{32}$" }))),
	config: ConfigSchema,
	trace: Type.Record(Type.String(), TraceEntrySchema),
	ignored: Type.Array(Type.Object({ key: Type.String(), requested: Type.Unknown(), reason: Type.String() })),
	diagnostics: Type.Array(DiagnosticSchema),
});

/** A record as stored on disk. */
export type StoredRecord = Static<typeof RecordSchema>;

let validator: ReturnType<typeof Compile<typeof RecordSchema>> | null = null;
/** The record validator, compiled once (an interpreted check costs ~10× more per record). */
const recordValidator = () => (validator ??= Compile(RecordSchema));

function invalid(file: string, reason: string): Diagnostic {
	return {
		severity: "warning",
		file,
		line: 1,
		column: 1,
		code: "run-record-invalid",
		message: `this run record was skipped: ${reason}`,
		hint: "the run is not listed and cannot be resumed; remove the file, or restore it from a backup",
	};
}

/** A stored record's shape problem, e.g. `/state must be …`. */
function shapeProblem(value: unknown): string {
	const [first] = recordValidator().Errors(value);
	if (!first) return "its shape is not a run record";
	return `${first.instancePath || "/"} ${first.message}`;
}

/** The run a stored record describes; a queued or running one whose owner is gone is `interrupted`. */
function runFrom(stored: StoredRecord, owner: NonNullable<ReturnType<typeof parseOwner>>): RunRecord {
	const config = stored.config as RunRecord["config"];
	const run: RunRecord = {
		...stored,
		parentId: stored.parentId ?? null,
		rootId: stored.rootId ?? stored.id,
		depth: stored.depth ?? 1,
		config: { ...config, inputs: config.inputs ?? [], outputs: config.outputs ?? [], outputSchema: config.outputSchema ?? null },
		contract: (stored.contract ?? null) as RunRecord["contract"],
		structured: stored.structured ?? null,
		verify: (stored.verify ?? null) as RunRecord["verify"],
		receipt: (stored.receipt ?? null) as RunRecord["receipt"],
		stopReason: stored.stopReason ?? null,
		budget: (stored.budget ?? null) as RunRecord["budget"],
		trace: stored.trace as RunRecord["trace"],
		diagnostics: stored.diagnostics as Diagnostic[],
		owner,
		activity: stored.state,
		currentTool: null,
		context: null,
		lastEventAt: stored.savedAt,
		// An earlier process's notifications are not sent again.
		fetched: true,
		notified: true,
		persistError: null,
	};
	if (stored.state !== "queued" && stored.state !== "running") return run;
	const where = owner.host === hostname() ? `pid ${owner.pid}` : `pid ${owner.pid} on host ${owner.host}`;
	const state = ownerState(owner);
	if (state === "gone") {
		run.state = "interrupted";
		run.activity = "interrupted";
		run.endedAt = stored.savedAt;
		run.error = `interrupted: its parent pi process (${where}) ended while the run was ${stored.state}; its record was last saved at ${new Date(stored.savedAt).toISOString()}. Resume it to continue from its transcript.`;
		return run;
	}
	run.activity = `${stored.state} in another pi process (${where})`;
	return run;
}

/** Read one record file: the run, or why it was skipped. */
export function loadRun(file: string, shownAs: string = file): { ok: true; run: RunRecord } | { ok: false; diagnostic: Diagnostic } {
	// A record is ours, but its directory may hold anything: a regular file, bounded, not a link out.
	const read = readFileUnder(file, { confine: "project", root: dirname(file), maxBytes: MAX_RECORD_BYTES });
	if (!read.ok) return { ok: false, diagnostic: invalid(shownAs, `it ${read.reason}`) };
	let value: unknown;
	try {
		value = JSON.parse(read.text);
	} catch (error) {
		return { ok: false, diagnostic: invalid(shownAs, `it is not JSON (${(error as Error).message})`) };
	}
	const version = (value as { version?: unknown } | null)?.version;
	if (typeof value === "object" && value !== null && !Array.isArray(value) && version !== RECORD_VERSION) {
		return { ok: false, diagnostic: invalid(shownAs, `it has format version ${JSON.stringify(version)}; this cadre reads version ${RECORD_VERSION}`) };
	}
	if (!recordValidator().Check(value)) return { ok: false, diagnostic: invalid(shownAs, shapeProblem(value)) };
	const stored = value as StoredRecord;
	if (!file.endsWith(`/${stored.id}${RECORD_SUFFIX}`)) {
		return { ok: false, diagnostic: invalid(shownAs, `its id "${stored.id}" does not match its file name`) };
	}
	const owner = parseOwner(stored.owner);
	if (!owner) return { ok: false, diagnostic: invalid(shownAs, `/owner is not an owner line ("cadre-owner pid=… start=… host=…")`) };
	return { ok: true, run: runFrom(stored, owner) };
}

/** Which records of a directory a session sees. */
export interface ListRunsOptions {
	/** Only runs of this parent session id (a directory may hold several sessions' records). */
	parentSession?: string | null;
	/** Only runs created before this time (epoch ms). */
	createdBefore?: number;
}

/**
 * The runs recorded in `dir`, oldest first, and a diagnostic per record file that was skipped.
 * A directory that does not exist holds no runs.
 */
export function listRuns(dir: string, options: ListRunsOptions = {}): { runs: RunRecord[]; diagnostics: Diagnostic[] } {
	let names: string[];
	try {
		names = readdirSync(dir);
	} catch {
		return { runs: [], diagnostics: [] };
	}
	const runs: RunRecord[] = [];
	const diagnostics: Diagnostic[] = [];
	for (const name of names.sort()) {
		if (!name.endsWith(RECORD_SUFFIX) || name.startsWith(".")) continue;
		const loaded = loadRun(join(dir, name));
		if (!loaded.ok) {
			diagnostics.push(loaded.diagnostic);
			continue;
		}
		const run = loaded.run;
		if (options.parentSession !== undefined && run.parentSession !== options.parentSession) continue;
		if (options.createdBefore !== undefined && run.createdAt >= options.createdBefore) continue;
		runs.push(run);
	}
	runs.sort((a, b) => a.createdAt - b.createdAt);
	return { runs, diagnostics };
}

/**
 * Where an agent dir holds run records: `cadre run`'s (`<agentDir>/cadre/transcripts`) and each pi
 * session's children's under pi's default sessions folder (`<agentDir>/sessions/<project>/cadre/<session id>/`,
 * ADR 0045). A sessions folder moved by pi's `sessionDir` setting is not among them.
 */
export function recordDirs(agentDir: string): string[] {
	const sessions = join(agentDir, "sessions");
	const dirs = [join(agentDir, "cadre", "transcripts")];
	for (const project of subdirs(sessions)) for (const session of subdirs(join(sessions, project, "cadre"))) dirs.push(join(sessions, project, "cadre", session));
	return dirs;
}

function subdirs(dir: string): string[] {
	try {
		return readdirSync(dir, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name).sort();
	} catch {
		return [];
	}
}
