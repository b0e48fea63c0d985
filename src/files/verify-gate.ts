/**
 * The trust gate of the `verify` key (issue 23, ADR 0117): a definition's, role's or persona's
 * `verify` is a command cadre runs itself, so like `worktree.setup` (ADR 0073) it is honoured only
 * from user files or a trusted project. An untrusted project's `verify` is dropped with a warning
 * that says where, why and what to do; the rest of the file still loads.
 */
import type { Diagnostic } from "../core/diagnostics.ts";
import type { EntryLayer, Rejected } from "./types.ts";

/** Where a key's source (`file:line:col`) points. */
function position(source: string): { file: string; line: number | null; column: number | null } {
	const match = /^(.*):(\d+):(\d+)$/.exec(source);
	return match ? { file: match[1] as string, line: Number(match[2]), column: Number(match[3]) } : { file: source, line: null, column: null };
}

/** Removes `verify` from the project layers when the project is not trusted, with a diagnostic each. */
export function gateVerify(layers: EntryLayer[], projectTrusted: boolean, diagnostics: Diagnostic[]): void {
	if (projectTrusted) return;
	for (const layer of layers) {
		const keys = layer.keys as { verify?: { source: string } };
		if (layer.scope !== "project" || !keys.verify) continue;
		const where = position(keys.verify.source);
		diagnostics.push({
			severity: "warning",
			...where,
			code: "untrusted-setting",
			message: `verify of ${layer.kind} ${layer.name} is ignored: the project is not trusted, and verify runs a command`,
			hint: "trust the project in pi (cadre: --trust-project), or put the verify in a user-scope file",
		});
		// kept as rejected, marked: the resolver tells a spawn of this entry that its verify is not run
		(layer.invalid as { verify?: Rejected }).verify = { raw: { untrusted: true }, source: keys.verify.source };
		delete keys.verify;
	}
}
