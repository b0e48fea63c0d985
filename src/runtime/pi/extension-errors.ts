/**
 * A child's extension errors as `extension-error` diagnostics: an extension that failed to load
 * in the child or whose handler threw, kept distinct and bounded per child.
 */

import type { Diagnostic } from "../../core/diagnostics.ts";

/** At most this many distinct extension errors are kept per child (a handler may throw on every event). */
const MAX_EXTENSION_ERRORS = 20;

/**
 * An `extension-error` diagnostic: the extension's file (with the line and column the stack names
 * in it, when it does), what failed, and what to do.
 */
export function extensionErrorDiagnostic(error: { path: string; event: string; error: string; stack?: string }): Diagnostic {
	const frame = error.stack?.split("\n").find((line) => line.includes(error.path));
	const at = frame ? /:(\d+):(\d+)\)?\s*$/.exec(frame) : null;
	return {
		severity: "error",
		file: error.path,
		line: at ? Number(at[1]) : null,
		column: at ? Number(at[2]) : null,
		code: "extension-error",
		message:
			error.event === "load"
				? `this extension failed to load in the sub-agent, which ran without it: ${error.error}`
				: `this extension's ${error.event} handler threw in the sub-agent: ${error.error}`,
		hint: "fix the extension, or keep it out of sub-agents with childExtensions.exclude in subagents.json",
	};
}

/** Collects a child's extension errors: distinct ones, up to {@link MAX_EXTENSION_ERRORS}. */
export function extensionErrorLog() {
	const seen = new Set<string>();
	const diagnostics: Diagnostic[] = [];
	return {
		add(error: { path: string; event: string; error: string; stack?: string }) {
			const key = `${error.path}\0${error.event}\0${error.error}`;
			if (seen.has(key) || diagnostics.length >= MAX_EXTENSION_ERRORS) return;
			seen.add(key);
			diagnostics.push(extensionErrorDiagnostic(error));
		},
		list: () => [...diagnostics],
	};
}
