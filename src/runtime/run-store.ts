/**
 * Run records on disk (spec 04 "Runs", ADR 0068): one JSON file per run next to its transcript,
 * `<transcript dir>/<run id>.run.json`, so a resumed or restarted parent session lists its earlier
 * runs and can resume them from their stored config. Written atomically (temp file + rename) by
 * the run registry at creation, state changes, rarely on progress and at the end. Reading them
 * back is run-reader.ts, which holds the record's schema: a spawn that only writes records never
 * loads typebox (about 140 ms of a `cadre run`'s start-up).
 */
import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Diagnostic } from "../core/diagnostics.ts";
import { formatOwner } from "./owner.ts";
import type { StoredRecord } from "./run-reader.ts";
import { isResolutionDiagnostic } from "./result.ts";
import { MAX_RECORD_BYTES, RECORD_SUFFIX, RECORD_VERSION } from "./run-file.ts";
import type { RecordWriter, RunRecord } from "./runs.ts";

export { MAX_RECORD_BYTES, RECORD_SUFFIX, RECORD_VERSION } from "./run-file.ts";
/** The final text and the prompt are stored up to this many characters, then point to the transcript. */
export const MAX_STORED_TEXT = 256 * 1024;


/** The record file of run `id` in `dir`. */
export function recordPath(dir: string, id: string): string {
	return join(dir, `${id}${RECORD_SUFFIX}`);
}

function capped(text: string, transcript: string | null): string {
	if (text.length <= MAX_STORED_TEXT) return text;
	return `${text.slice(0, MAX_STORED_TEXT)}\n[… ${text.length - MAX_STORED_TEXT} more characters; the full text is in the transcript ${transcript ?? "(not persisted)"}]`;
}

/** The record of a run as written to disk (plain data; long texts capped). */
export function storedRecord(run: RunRecord, savedAt: number = Date.now()): StoredRecord {
	return {
		version: RECORD_VERSION,
		id: run.id,
		type: run.type,
		description: run.description,
		prompt: capped(run.prompt, run.transcript),
		plannedCwd: run.plannedCwd,
		background: run.background,
		state: run.state,
		parentSession: run.parentSession,
		parentId: run.parentId ?? null,
		rootId: run.rootId ?? run.id,
		depth: run.depth ?? 1,
		spawnerCwd: run.spawnerCwd ?? null,
		...(run.treeUsage ? { treeUsage: { ...run.treeUsage }, descendants: run.descendants ?? 0 } : {}),
		owner: formatOwner(run.owner),
		createdAt: run.createdAt,
		startedAt: run.startedAt,
		endedAt: run.endedAt,
		savedAt,
		turns: run.turns,
		toolUses: run.toolUses,
		usage: { ...run.usage },
		text: run.text === null ? null : capped(run.text, run.transcript),
		contract: run.contract,
		verify: (run.verify ?? null) as StoredRecord["verify"],
		receipt: (run.receipt ?? null) as StoredRecord["receipt"],
		structured: run.structured,
		error: run.error,
		transcript: run.transcript,
		isolation: run.isolation,
		limitReached: run.limitReached,
		stopReason: run.stopReason ?? null,
		budget: run.budget ? structuredClone(run.budget) : null,
		resumeOf: run.resumeOf,
		traceId: run.traceId ?? null,
		config: run.config as StoredRecord["config"],
		trace: run.trace as StoredRecord["trace"],
		ignored: run.ignored,
		// Resolution never reports `info` (only check and list do); the record keeps errors and warnings.
		diagnostics: run.diagnostics.filter(isResolutionDiagnostic).filter((d): d is Diagnostic & { severity: "error" | "warning" } => d.severity !== "info"),
	};
}

/** The record file, its temp file and text for a write of `run` into `dir`, or why there is none. */
function prepareWrite(dir: string, run: RunRecord): { file: string; temp: string; text: string } | string {
	const file = recordPath(dir, run.id);
	let text: string;
	try {
		text = JSON.stringify(storedRecord(run));
	} catch (error) {
		return `the run record could not be saved to ${file}: ${(error as Error).message}`;
	}
	const bytes = Buffer.byteLength(text);
	if (bytes > MAX_RECORD_BYTES) return `the run record could not be saved to ${file}: it is ${bytes} bytes, over the ${MAX_RECORD_BYTES} a record may have`;
	return { file, temp: join(dir, `.${run.id}${RECORD_SUFFIX}.${process.pid}.tmp`), text };
}

const unsaved = (dir: string, error: unknown) => `the run record could not be saved to ${dir}: ${(error as Error).message}`;

/**
 * Write the run's record into `dir` atomically (a temp file renamed over the record, so a reader
 * never sees half a record). Resolves null, or why it could not be written — never rejects: a
 * record that cannot be written must not end the run. The record is taken when called.
 */
export async function saveRun(dir: string, run: RunRecord): Promise<string | null> {
	const write = prepareWrite(dir, run);
	if (typeof write === "string") return write;
	try {
		await mkdir(dir, { recursive: true });
		await writeFile(write.temp, write.text, { mode: 0o600 });
		await rename(write.temp, write.file);
		return null;
	} catch (error) {
		await rm(write.temp, { force: true }).catch(() => undefined);
		return unsaved(dir, error);
	}
}

/** {@link saveRun}, done before it returns (the end of a run: written before its terminal event). */
export function saveRunNow(dir: string, run: RunRecord): string | null {
	const write = prepareWrite(dir, run);
	if (typeof write === "string") return write;
	try {
		mkdirSync(dir, { recursive: true });
		writeFileSync(write.temp, write.text, { mode: 0o600 });
		renameSync(write.temp, write.file);
		return null;
	} catch (error) {
		try {
			rmSync(write.temp, { force: true });
		} catch {
			// no temp file was made
		}
		return unsaved(dir, error);
	}
}

/** The registry's record writer for records in `dir`. */
export function recordWriter(dir: string): RecordWriter {
	return { save: (run) => saveRun(dir, run), saveNow: (run) => saveRunNow(dir, run) };
}
