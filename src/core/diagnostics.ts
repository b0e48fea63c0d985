/**
 * Diagnostics: every problem cadre finds in files, settings or a request, positioned where the
 * user can fix it. Codes are stable strings (spec 01 "Diagnostics", spec 02 "Failures").
 */

/** `info` only points something out (ADR 0096): it never fails `check`, even under `--strict`. */
export type Severity = "error" | "warning" | "info";

/** Stable diagnostic codes. Tests and `--json` consumers match on these strings. */
export type DiagnosticCode =
	// loading (spec 01)
	| "parse-error"
	| "unknown-key"
	| "removed-key"
	| "bad-value"
	| "ambiguous-name"
	| "name-mismatch"
	| "missing-file"
	| "path-escape"
	| "not-a-file"
	| "file-too-large"
	| "ignored-file"
	| "orphan-role"
	| "reserved-name"
	| "orphan-setting"
	| "untrusted-setting"
	// a spawn's verify from an untrusted project, not run (issue 23)
	| "verify-untrusted"
	| "foreign-key"
	| "restriction-unread"
	| "unknown-tool"
	| "model-unknown"
	| "foreign-files"
	// resolution (spec 02, 04)
	| "tool-unavailable"
	| "tool-dropped"
	| "model-unresolvable"
	| "model-unverified"
	| "thinking-clamped"
	| "request-ignored"
	| "input-missing"
	| "input-unknown"
	| "input-invalid"
	| "output-schema-invalid"
	// prompt (spec 03)
	| "identity-unrecognized"
	// isolation (spec 05)
	| "worktree-unavailable"
	// the OS sandbox (ADR 0150)
	| "sandbox-unavailable"
	| "sandbox-blocked"
	// run records (spec 04, ADR 0068)
	| "run-record-invalid"
	// a run's own (spec 04, ADR 0079): an extension of the child that failed, a steer pi refused
	| "extension-error"
	| "steer-undelivered"
	| "budget-clamped";

export interface Diagnostic {
	severity: Severity;
	/** Path as shown to the user (relative to the project directory when inside it), or null. */
	file: string | null;
	/** 1-based line of the offending key or value, or null when not tied to a file. */
	line: number | null;
	/** 1-based column, or null. */
	column: number | null;
	code: DiagnosticCode;
	/** What is wrong, in one sentence. */
	message: string;
	/** What to do about it. */
	hint?: string;
}

/** Orders load diagnostics by file, line, column (spec 02 "Diagnostics"); file-less ones last. */
export function compareDiagnostics(a: Diagnostic, b: Diagnostic): number {
	if (a.file !== b.file) {
		if (a.file === null) return 1;
		if (b.file === null) return -1;
		return a.file < b.file ? -1 : 1;
	}
	return (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0);
}

/** `path:line:col severity code message` — the one-line form `cadre check` prints ("-" for no file). */
export function formatDiagnostic(d: Diagnostic): string {
	return `${d.file === null ? "-" : `${d.file}:${d.line ?? 1}:${d.column ?? 1}`} ${unplaced(d)}`;
}

/** The same line with no place marker when there is no file: an item of a list (a result's warnings). */
export function formatListedDiagnostic(d: Diagnostic): string {
	return d.file === null ? unplaced(d) : formatDiagnostic(d);
}

/** `severity code message (hint)`. */
function unplaced(d: Diagnostic): string {
	return `${d.severity} ${d.code} ${d.message}${d.hint ? ` (${d.hint})` : ""}`;
}
