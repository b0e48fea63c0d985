/**
 * What `cadre import` says about every file and every field (ADR 0094, docs/cli-import.md): each
 * field is `mapped` (cadre says the same), `approximated` (what it became and why it differs) or
 * `dropped` (why, and what to do). Plain data; `--json` prints it as it is.
 */
import type { Diagnostic } from "../core/diagnostics.ts";
import type { EntryKind } from "../files/types.ts";

export type FieldOutcome = "mapped" | "approximated" | "dropped";

export interface FieldReport {
	/** The key as the other tool wrote it; `body` for the Markdown body. */
	key: string;
	line: number | null;
	column: number | null;
	outcome: FieldOutcome;
	/** What it became in the cadre file (`tools: read, grep`), or null when it left nothing to write. */
	written: string | null;
	/** Why an approximated value differs, or why a field is dropped. */
	why: string | null;
	/** What to do about a dropped field (or one kept on trust). */
	fix: string | null;
}

/** What happened to one imported agent's cadre file. */
export type FileAction = "create" | "overwrite" | "unchanged" | "conflict" | "skip";

export interface FileReport {
	/** The foreign file as shown (`.claude/agents/reviewer.md`, `opencode.json#agent.review`). */
	from: string;
	/** The cadre file as shown, or null when nothing would be written. */
	to: string | null;
	kind: EntryKind;
	name: string | null;
	action: FileAction;
	/** Whether the file was written now (never with --dry-run). */
	written: boolean;
	/** Why a file is a conflict or skipped. */
	reason: string | null;
	fields: FieldReport[];
	/** What `cadre check` says about the written file (warnings; errors never reach a written file). */
	diagnostics: Diagnostic[];
}

export interface ImportReport {
	ok: boolean;
	source: string;
	scope: "project" | "user";
	dryRun: boolean;
	force: boolean;
	/** Where cadre files are written (`.pi` of the project, or the agent dir). */
	target: string;
	/** The folders and files looked in (shown paths). */
	searched: string[];
	files: FileReport[];
	summary: Record<FileAction, number>;
}

export function summarize(files: readonly FileReport[]): Record<FileAction, number> {
	const summary: Record<FileAction, number> = { create: 0, overwrite: 0, unchanged: 0, conflict: 0, skip: 0 };
	for (const file of files) summary[file.action]++;
	return summary;
}
