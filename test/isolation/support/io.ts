/** A captured `CliIo` for running `cadre worktrees …` through the CLI entry in-process. */
import type { CliIo } from "../../../src/hosts/cli/io.ts";

/** An io whose output collects in `stdout` and `stderr`; not a terminal. */
export function captured(cwd: string): CliIo & { stdout: string; stderr: string } {
	const io = {
		stdout: "",
		stderr: "",
		out(text: string) {
			io.stdout += text;
		},
		err(text: string) {
			io.stderr += text;
		},
		isTty: false,
		env: process.env,
		cwd,
	};
	return io;
}
