/**
 * A temporary layout for loading tests: a project (with `.git`, so it is a repository), an agent
 * dir and a home, and the files a test writes into them.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { loadAll } from "../../src/files/load.ts";
import type { LoadResult } from "../../src/files/types.ts";

export interface Layout {
	root: string;
	project: string;
	agent: string;
	home: string;
	/** Writes `files` (paths relative to root: `project/…`, `agent/…`). */
	write(files: Record<string, string>): void;
	load(options?: { projectTrusted?: boolean; cwd?: string }): LoadResult;
}

export function layout(files: Record<string, string> = {}, options: { git?: boolean } = {}): Layout {
	const root = mkdtempSync(join(process.env.TMPDIR ?? tmpdir(), "cadre-files-"));
	const project = join(root, "project");
	const agent = join(root, "agent");
	const home = join(root, "home");
	for (const dir of [project, agent, home]) mkdirSync(dir, { recursive: true });
	if (options.git !== false) mkdirSync(join(project, ".git"));
	const write = (more: Record<string, string>) => {
		for (const [path, text] of Object.entries(more)) {
			const abs = join(root, path);
			mkdirSync(dirname(abs), { recursive: true });
			writeFileSync(abs, text);
		}
	};
	write(files);
	return {
		root,
		project,
		agent,
		home,
		write,
		load: (opts = {}) =>
			loadAll({ cwd: opts.cwd ?? project, agentDir: agent, homeDir: home, projectTrusted: opts.projectTrusted ?? false }),
	};
}

/** `file:line:col code` of every diagnostic, for compact assertions. */
export function where(result: LoadResult): string[] {
	return result.diagnostics.map((d) => `${d.file}:${d.line}:${d.column} ${d.code}`);
}
