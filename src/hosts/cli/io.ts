/**
 * What a CLI command writes to and reads from, so commands are testable without a process.
 */
export interface CliIo {
	out(text: string): void;
	err(text: string): void;
	/** Whether stdout is a terminal (colour and alignment only then). */
	isTty: boolean;
	env: NodeJS.ProcessEnv;
	/** The process's current directory, the default for `--cwd`. */
	cwd: string;
}

export function processIo(): CliIo {
	return {
		out: (text) => process.stdout.write(text),
		err: (text) => process.stderr.write(text),
		isTty: Boolean(process.stdout.isTTY),
		env: process.env,
		cwd: process.cwd(),
	};
}

/** Exit codes (spec 06): 0 success, 1 a check or run failed or a spawn would be refused, 2 usage. */
export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

/** A usage error a command detects after parsing (bad flag combination, bad JSON in --request). */
export class UsageError extends Error {}
