/**
 * What a CLI command writes to and reads from, so commands are testable without a process.
 */
export interface CliIo {
	out(text: string): void;
	err(text: string): void;
	/** Whether stdout is a terminal (colour and alignment only then). */
	isTty: boolean;
	/** stdout's width when it is a terminal (human output wraps to it, ADR 0108). */
	columns?: number;
	env: NodeJS.ProcessEnv;
	/** The process's current directory, the default for `--cwd`. */
	cwd: string;
	/** Whether stderr is a terminal, and how wide (`cadre run`'s live status line). */
	errTty?: boolean;
	errColumns?: number;
	/**
	 * Call `handler` on the first Ctrl-C (SIGINT) instead of exiting; a second one exits as Node
	 * does. Returns the function that removes it.
	 */
	onInterrupt?(handler: () => void): () => void;
}

export function processIo(): CliIo {
	return {
		out: (text) => process.stdout.write(text),
		err: (text) => process.stderr.write(text),
		isTty: Boolean(process.stdout.isTTY),
		columns: process.stdout.isTTY ? process.stdout.columns : undefined,
		env: process.env,
		cwd: process.cwd(),
		errTty: Boolean(process.stderr.isTTY),
		errColumns: process.stderr.columns,
		onInterrupt(handler) {
			const once = () => {
				process.off("SIGINT", once);
				handler();
			};
			process.on("SIGINT", once);
			return () => process.off("SIGINT", once);
		},
	};
}

/** Exit codes (spec 06): 0 success, 1 a check or run failed or a spawn would be refused, 2 usage. */
export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;
/** `cadre run` stopped by Ctrl-C (128 + SIGINT, what a shell reports for it). */
export const EXIT_INTERRUPTED = 130;

/** A usage error a command detects after parsing (bad flag combination, bad JSON in --request). */
export class UsageError extends Error {}
