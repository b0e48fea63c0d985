/**
 * Which file errors refuse which spawn (issue 19, ADR 0100): a definition, role, persona or
 * settings file with an error-severity diagnostic never runs. The loader records, for every file
 * it looked at, what that file would describe (`FileOwner`); `faultsOf` groups the load's errors by
 * owner, and `spawnFaults` is the one function that decides which of them a spawn uses — the
 * resolver refuses with `file-invalid` exactly when it returns something, for every host.
 */
import { type Diagnostic, formatDiagnostic } from "../core/diagnostics.ts";
import { nameKey } from "../core/values.ts";
import type { FileFault, FileOwner } from "./types.ts";

/** The entries one spawn uses, by name (any case). */
export interface SpawnUse {
	type: string;
	/** The persona the spawn uses, when it names one. */
	persona: string | null;
}

/**
 * Groups the error diagnostics of `diagnostics` by the file they are in. A file the loader did not
 * record (or an error tied to no file) belongs to every spawn: what cannot be placed fails closed.
 */
export function faultsOf(diagnostics: readonly Diagnostic[], owners: ReadonlyMap<string, FileOwner>): FileFault[] {
	const byFile = new Map<string, FileFault>();
	for (const d of diagnostics) {
		if (d.severity !== "error") continue;
		const file = d.file ?? "-";
		const fault = byFile.get(file);
		if (fault) fault.errors.push(d);
		else byFile.set(file, { file, owner: owners.get(file) ?? { kind: "settings" }, errors: [d] });
	}
	return [...byFile.values()];
}

function uses(owner: FileOwner, use: SpawnUse): boolean {
	if (owner.kind === "settings") return true;
	if (owner.name === null) return true;
	const name = nameKey(owner.name);
	if (owner.kind === "persona") return use.persona !== null && nameKey(use.persona) === name;
	// A role applies to the type of its name.
	return nameKey(use.type) === name;
}

/** The faults of the files a spawn of `use` would read: the one decision (check, explain, run, the pi tool). */
export function spawnFaults(faults: readonly FileFault[], use: SpawnUse): FileFault[] {
	return faults.filter((fault) => uses(fault.owner, use));
}

function describe(owner: FileOwner): string {
	if (owner.kind === "settings") return "settings file";
	return owner.name === null ? `${owner.kind} folder` : `${owner.kind} ${owner.name}`;
}

/** The `file-invalid` refusal message: each error's file:line:col, what is wrong and the fix. */
export function fileInvalidMessage(faults: readonly FileFault[]): string {
	const parts = faults.map((fault) => {
		const errors = fault.errors.map((d) => formatDiagnostic(d)).join("; ");
		return `${describe(fault.owner)} ${fault.file} has ${fault.errors.length === 1 ? "an error" : `${fault.errors.length} errors`}: ${errors}`;
	});
	return `${parts.join("; ")}; a file with an error never runs: fix it (cadre check lists every problem)`;
}
