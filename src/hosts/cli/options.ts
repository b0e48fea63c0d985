/**
 * The options the `cadre` subcommands share (spec 06), as commander hands them to each command
 * module: main.ts declares the flags, the command modules take these types from here.
 */

/** Options every subcommand takes. */
export interface CommonOptions {
	cwd?: string;
	json?: boolean;
}

/** The request and parent-fact flags of `explain`, `prompt` and `run` (spec 06). */
export interface RequestFlagOptions extends CommonOptions {
	persona?: string;
	model?: string;
	thinking?: string;
	capability?: string;
	isolation?: string;
	maxTurns?: string;
	cwdRequest?: string;
	request?: string;
	parentModel?: string;
	parentThinking?: string;
	parentTools?: string;
	trustProject?: boolean;
}
