/**
 * `cadre import --from SOURCE [--scope project|user] [--dry-run] [--force] [--json] [PATH…]`
 * (ADR 0094, docs/cli-import.md): converts another tool's agent files into cadre files and
 * reports every file and field. pi's SDK is imported only to resolve model names, and only when a
 * file names a model; without pi installed, import still works and keeps models as written.
 */
import { resolve } from "node:path";
import { formatDiagnostic } from "../../core/diagnostics.ts";
import { bold, dim, safeFields, yellow } from "../../core/terminal-text.ts";
import { SOURCE_NAMES } from "../../files/foreign-keys.ts";
import { agentDirFrom, findGitRoot, findProjectDir } from "../../files/discovery.ts";
import { IMPORT_SOURCES, type ImportSource } from "../../files/foreign-places.ts";
import type { ModelResolver } from "../../import/field-values.ts";
import type { FileAction, FileReport, ImportReport } from "../../import/report.ts";
import { runImport } from "../../import/run-import.ts";
import { type CliIo, EXIT_FAILED, EXIT_OK, UsageError } from "./io.ts";
import { cliCwd, cliHome, useColor } from "./list-command.ts";
import type { CommonOptions } from "./options.ts";
import { counted } from "./plural.ts";

export interface ImportOptions extends CommonOptions {
	from?: string;
	scope?: string;
	dryRun?: boolean;
	force?: boolean;
}

export async function runImportCommand(paths: string[], opts: ImportOptions, io: CliIo): Promise<number> {
	const source = (opts.from ?? "").trim().toLowerCase();
	if (!(IMPORT_SOURCES as readonly string[]).includes(source)) {
		throw new UsageError(`--from ${opts.from ? `"${opts.from}" ` : ""}must name the tool whose files to import: ${IMPORT_SOURCES.join(", ")}`);
	}
	const scope = (opts.scope ?? "project").trim().toLowerCase();
	if (scope !== "project" && scope !== "user") throw new UsageError(`--scope "${opts.scope}" is not project or user`);
	const cwd = cliCwd(opts, io);
	const homeDir = cliHome(io);
	const agentDir = agentDirFrom(io.env, homeDir);
	const projectDir = findProjectDir(cwd, agentDir, homeDir) ?? findGitRoot(cwd) ?? cwd;
	const report = await runImport({
		source: source as ImportSource,
		scope,
		dryRun: opts.dryRun === true,
		force: opts.force === true,
		paths: paths.map((path) => resolve(cwd, path)),
		dirs: { projectDir, homeDir, agentDir, env: io.env },
		models: () => piModels(agentDir),
	});
	if (opts.json) io.out(`${JSON.stringify(report, null, 2)}\n`);
	else io.out(renderReport(safeFields(report), useColor(io)));
	return report.ok ? EXIT_OK : EXIT_FAILED;
}

/** pi's model resolver over the agent dir's configuration, or null when pi's packages are missing. */
async function piModels(agentDir: string): Promise<ModelResolver> {
	let sdk: typeof import("../../runtime/pi/model-catalog.ts");
	try {
		sdk = await import("../../runtime/pi/model-catalog.ts");
	} catch {
		return null;
	}
	let catalog: Awaited<ReturnType<typeof sdk.createModelCatalog>>;
	try {
		catalog = await sdk.createModelCatalog({ agentDir });
	} catch (error) {
		const message = `pi could not load its model configuration (${(error as Error).message})`;
		return () => ({ ok: false, message });
	}
	return (name) => {
		const found = catalog.lookup(name);
		return found.ok ? { ok: true, id: found.id } : { ok: false, message: found.message };
	};
}

const DONE: Record<FileAction, [string, string]> = {
	create: ["created", "would create"],
	overwrite: ["overwritten", "would overwrite"],
	unchanged: ["unchanged", "unchanged"],
	conflict: ["conflict", "conflict"],
	skip: ["skipped", "skipped"],
};

/** The human report: per file its action and paths, per field its outcome, then a summary. */
export function renderReport(report: ImportReport, color: boolean): string {
	const lines: string[] = [];
	const who = SOURCE_NAMES[report.source as ImportSource] ?? report.source;
	if (report.files.length === 0) {
		return `no ${who} agent files found (looked in ${report.searched.join(", ") || "nothing"})\n`;
	}
	for (const file of report.files) lines.push(...renderFile(file, report.dryRun, color));
	const counts = (Object.entries(report.summary) as [FileAction, number][])
		.filter(([, n]) => n > 0)
		.map(([action, n]) => `${n} ${DONE[action][report.dryRun ? 1 : 0]}`);
	lines.push(`${who}: ${counts.join(", ")}${report.dryRun ? " (dry run: nothing was written)" : ""}`);
	lines.push(...disabledNote(report));
	if (report.summary.conflict > 0) lines.push("conflicts are not written: run with --force to overwrite files that differ");
	return `${lines.join("\n")}\n`;
}

/** Which written files are disabled and by which key, for the summary: "4 created" alone hid them (issue 19). */
function disabledNote(report: ImportReport): string[] {
	const why = report.files.flatMap((file) => {
		if (file.name === null || !["create", "overwrite", "unchanged"].includes(file.action)) return [];
		const keys = file.fields.filter((f) => f.written === "enabled: false");
		if (keys.length === 0) return [];
		const refused = keys.filter((f) => f.outcome !== "mapped").map((f) => f.key);
		return [refused.length > 0 ? `${file.name} — its ${refused.join(", ")} cannot be honoured` : `${file.name} — its ${keys.map((f) => f.key).join(", ")} disables it`];
	});
	if (why.length === 0) return [];
	const one = why.length === 1;
	return [`${counted(why.length, "file")} ${one ? "is" : "are"} written disabled (enabled: false), so no spawn uses ${one ? "it" : "them"}: ${why.join("; ")} (the comment above enabled says why)`];
}

/** A written value as a line shows it: long text (a description with examples) cut, the file holds all of it. */
function short(written: string): string {
	const line = written.replace(/\\n/g, " ").replace(/\s+/g, " ");
	return line.length <= 100 ? line : `${line.slice(0, 99)}…`;
}

function renderFile(file: FileReport, dryRun: boolean, color: boolean): string[] {
	const action = DONE[file.action][dryRun ? 1 : 0];
	const head = `${action}  ${file.to ?? "-"}  ← ${file.from}${file.reason ? `  (${file.reason})` : ""}`;
	const lines = [color ? bold(head) : head];
	const width = Math.max(0, ...file.fields.map((f) => f.key.length));
	for (const f of file.fields) {
		const outcome = f.outcome.padEnd(12);
		const what = [f.written ? `→ ${short(f.written)}` : null, f.why, f.fix ? `fix: ${f.fix}` : null].filter((part) => part !== null).join(" — ");
		const line = `  ${color && f.outcome !== "mapped" ? yellow(outcome) : outcome}  ${f.key.padEnd(width)}  ${what}`;
		lines.push(color && f.outcome === "mapped" ? dim(line) : line.trimEnd());
	}
	for (const d of file.diagnostics) lines.push(`  ${formatDiagnostic(d)}`);
	return lines;
}
