/**
 * `cadre check [--strict]` (spec 06): loads everything and prints every diagnostic as
 * `path:line:col severity code message`. Exit 1 on any error, or on warnings too under `--strict`
 * or settings `strict: true`. Loads files only — never pi's SDK.
 */
import { type Diagnostic, formatDiagnostic } from "../../core/diagnostics.ts";
import { dim, red, safeFields, yellow } from "../../core/terminal-text.ts";
import { type CliIo, EXIT_FAILED, EXIT_OK } from "./io.ts";
import { foreignNotices, loadForCli, problemSummary, useColor } from "./list-command.ts";
import type { CommonOptions } from "./options.ts";
import { modelDiagnostics } from "./known-models.ts";
import { loadedCounts } from "./plural.ts";

export interface CheckOptions extends CommonOptions {
	strict?: boolean;
}

/** Under strict mode every warning is reported (and counted) as an error. */
export function applyStrict(diagnostics: Diagnostic[], strict: boolean): Diagnostic[] {
	return strict ? diagnostics.map((d) => (d.severity === "warning" ? { ...d, severity: "error" } : d)) : diagnostics;
}

export async function runCheck(opts: CheckOptions, io: CliIo): Promise<number> {
	const loaded = loadForCli(opts, io);
	const strict = Boolean(opts.strict) || loaded.settings.strict;
	const diagnostics = applyStrict([...loaded.diagnostics, ...(await modelDiagnostics(loaded))], strict);
	const notices = foreignNotices(loaded, opts, io);
	const errors = diagnostics.filter((d) => d.severity === "error").length;
	const code = errors > 0 ? EXIT_FAILED : EXIT_OK;
	if (opts.json) {
		const warnings = diagnostics.filter((d) => d.severity === "warning").length;
		const infos = notices.length;
		io.out(`${JSON.stringify({ ok: code === EXIT_OK, strict, errors, warnings, infos, diagnostics: [...diagnostics, ...notices] }, null, 2)}\n`);
		return code;
	}
	const color = useColor(io);
	const paint = (d: Diagnostic, line: string) => {
		if (!color) return line;
		const sev = d.severity === "error" ? red("error") : d.severity === "warning" ? yellow("warning") : dim("info");
		return line.replace(` ${d.severity} `, ` ${sev} `);
	};
	// Paths, keys and values come from the repository: shown escaped, one line each (ADR 0075).
	for (const d of safeFields([...diagnostics, ...notices])) io.out(`${paint(d, formatDiagnostic(d))}\n`);
	const counts = loadedCounts(loaded);
	if (diagnostics.length === 0) io.out(`ok: ${counts}, no problems${strict ? " (strict)" : ""}\n`);
	else io.out(`${problemSummary(diagnostics)} in ${counts}${strict ? " (strict: warnings are errors)" : ""}\n`);
	// The same faults the resolver refuses with (ADR 0100): check and explain agree by construction.
	const refusing = safeFields(loaded.faults.map((fault) => ({ file: fault.file })));
	if (refusing.length > 0) io.out(`every spawn that reads ${refusing.map((f) => f.file).join(", ")} is refused (file-invalid) until ${refusing.length === 1 ? "its errors are" : "their errors are"} fixed\n`);
	return code;
}
