/**
 * The `cadre` command line (spec 06): parses arguments and hands each subcommand to its module.
 * Command modules are imported lazily so `list` and `check` never load pi's SDK, and a package
 * installed without pi's packages (its peers) still runs the commands that do not need them.
 */
import { readFileSync } from "node:fs";
import { Command, CommanderError, Option } from "commander";
import { safeLine, safeText } from "../../core/terminal-text.ts";
import { EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, UsageError, type CliIo, processIo } from "./io.ts";
import type { CommonOptions, RequestFlagOptions } from "./options.ts";

function common(cmd: Command): Command {
	return cmd
		.option("--cwd <dir>", "directory to work from (default: the current directory)")
		.option("--json", "machine-readable output");
}

function requestFlags(cmd: Command): Command {
	return common(cmd)
		.option("--persona <name>", "persona to apply (`none` drops the definition's)")
		.option("--model <model>", "model for the child")
		.option("--thinking <level>", "thinking level for the child")
		.option("--capability <mode>", "read-only | read-write | execute | all")
		.option("--isolation <mode>", "none | worktree")
		.option("--max-turns <n>", "turn limit")
		.option("--cwd-request <dir>", "the request's cwd (relative to the parent's cwd)")
		.option("--request <json>", "the subagent tool's parameters as JSON; flags override its keys")
		.option("--parent-model <model>", "the parent's model (default: pi's configured default)")
		.option("--parent-thinking <level>", "the parent's thinking level (default: pi's default)")
		.option("--parent-tools <list>", "the parent's active tools (default: read, bash, edit, write)")
		.option("--trust-project", "treat the project as trusted for settings that widen access");
}

/** cadre's version, from its package.json (read only when the CLI starts). */
function packageVersion(): string {
	const manifest = JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as { version: string };
	return manifest.version;
}

/** pi's packages as cadre's peer dependencies name them (the host's own copy). */
const PI_PEER = "@earendil-works/pi-coding-agent >=1.6.0 <2";

/** Whether an import failed because one of pi's packages is not installed. */
function piMissing(error: unknown): boolean {
	const { code, message } = error as { code?: unknown; message?: unknown };
	return code === "ERR_MODULE_NOT_FOUND" && typeof message === "string" && message.includes("'@earendil-works/");
}

/** A subcommand's module; one that needs pi's packages, when they are missing, is a usage error saying so. */
async function load<T>(command: string, module: Promise<T>): Promise<T> {
	try {
		return await module;
	} catch (error) {
		if (!piMissing(error)) throw error;
		throw new UsageError(
			`${command} needs pi's packages (${PI_PEER}), which are not installed where cadre is. ` +
				"npm installs them with cadre unless --omit=peer or --legacy-peer-deps was given: reinstall cadre without those, " +
				"or add them (`npm install @earendil-works/pi-coding-agent`, `-g` for a global cadre). list, check, worktrees and import run without them.",
		);
	}
}

/** The exit codes, for `cadre --help` (spec 06; src/hosts/cli/io.ts holds them). */
const EXIT_CODES_HELP = `
Exit codes:
  ${EXIT_OK}    success (explain: the spawn would go ahead)
  ${EXIT_FAILED}    check found errors (or warnings under --strict), a spawn is refused, or a run did not complete
  ${EXIT_USAGE}    usage error: an unknown command or flag, a bad value
  ${EXIT_INTERRUPTED}  interrupted (Ctrl-C)
`;

/** Runs the CLI and returns the exit code. */
export async function main(argv: string[], io: CliIo = processIo()): Promise<number> {
	let code = 0;
	const program = new Command("cadre")
		.description("Sub-agents for pi: inspect, check, explain and run definitions, roles and personas.")
		.version(packageVersion(), "-V, --version", "print cadre's version")
		.exitOverride()
		// Help and commander's errors echo arguments: shown, never acted on (ADR 0075).
		.configureOutput({ writeOut: (text) => io.out(safeText(text)), writeErr: (text) => io.err(safeText(text)) })
		.showHelpAfterError("(run `cadre --help` for usage)")
		.addHelpText("after", EXIT_CODES_HELP);

	common(program.command("list").description("every definition, role and persona, with scope and what it shadows")).action(
		async (opts: CommonOptions) => {
			code = await (await load("list", import("./list-command.ts"))).runList(opts, io);
		},
	);

	common(program.command("check").description("load everything and print every diagnostic"))
		.option("--strict", "warnings are errors")
		.action(async (opts: CommonOptions & { strict?: boolean }) => {
			code = await (await load("check", import("./check-command.ts"))).runCheck(opts, io);
		});

	requestFlags(program.command("explain").argument("<type>").description("resolve a spawn without running it"))
		.option("--parent <type>", "resolve as the child of a run of this type (repeatable, outermost first)", (type: string, all: string[]) => [...all, type], [] as string[])
		.action(async (type: string, opts: RequestFlagOptions & { parent?: string[] }) => {
			code = await (await load("explain", import("./explain-command.ts"))).runExplain(type, opts, io);
		});

	requestFlags(program.command("prompt").argument("<type>").description("print the assembled child prompt and its sections"))
		.option("--parent-prompt <file>", "the parent's system prompt, to cut the inherited identity from")
		.action(async (type: string, opts: RequestFlagOptions & { parentPrompt?: string }) => {
			code = await (await load("prompt", import("./prompt-command.ts"))).runPrompt(type, opts, io);
		});

	requestFlags(program.command("run").argument("[type]").argument("[task]").description("run a child headlessly through pi's SDK (docs/cli-run.md)"))
		.option("--resume <id>", "continue a finished run with the task").option("--batch <file>", "JSON lines of requests, run through the limiter")
		.option("--out <dir>", "with --batch: write each item's answer to DIR/line-<n>.md instead of printing it")
		.option("--budget <limits>", "tokens=N,cost=USD,time=SECONDS: the run's budget, or with --batch the whole batch's")
		.option("--verbose", "progress lines on stderr without a terminal").option("--events", "the run's events as JSON lines on stderr")
		.action(async (type: string | undefined, task: string | undefined, opts: import("./run-command.ts").RunCommandOptions) => {
			(await import("./pi-bundle.ts")).usePiBundle();
			code = await (await load("run", import("./run-command.ts"))).runRun([type, task].filter((arg) => arg !== undefined), opts, io);
		});

	const runs = program.command("runs").description("the runs cadre run recorded, to find an id for --resume");
	common(runs.command("list").description("id, type, state, age and description of each recorded run, newest first")).action(async (opts: CommonOptions) => {
		code = await (await import("./runs-command.ts")).runRunsList(opts, io);
	});
	const worktrees = program.command("worktrees").description("list, apply and clean cadre's worktrees");
	common(worktrees.command("list").description("worktrees and branches cadre created")).action(async (opts: CommonOptions) => {
		code = await (await load("worktrees", import("./worktrees-command.ts"))).runWorktrees("list", null, opts, io);
	});
	common(worktrees.command("apply").argument("[id]").description("merge cadre/<id> (or, with --all, every finished branch) into the current branch"))
		.option("--all", "the merge queue: every finished, unapplied branch in finish order, each verified before your branch moves")
		.option("--dry-run", "with --all: list what would be merged, in what order")
		.option("--trust-project", "with --all: honour the project's worktree.verify")
		.action(async (id: string | undefined, opts: import("./worktrees-command.ts").ApplyCommandOptions) => {
			const command = await load("worktrees", import("./worktrees-command.ts"));
			code = opts.all ? await command.runMergeQueueCommand(id ?? null, opts, io) : await command.runWorktrees("apply", id ?? null, opts, io);
		});
	common(worktrees.command("recover").description("fetch the work of runs whose SSH workspace was lost (their remote worktrees were kept) as cadre/<id>")).action(async (opts: CommonOptions) => {
		code = await (await import("./recover-command.ts")).runRecover(opts, io);
	});
	common(worktrees.command("clean").description("remove worktrees with nothing left to keep")).action(async (opts: CommonOptions) => {
		code = await (await load("worktrees", import("./worktrees-command.ts"))).runWorktrees("clean", null, opts, io);
	});

	common(program.command("import").argument("[paths...]").description("convert other tools' agent files into cadre files"))
		.requiredOption("--from <tool>", "claude | opencode | gemini | codex | tintinweb | nicobailon | grok")
		.option("--scope <scope>", "project (default) or user")
		.option("--dry-run", "report without writing")
		.option("--force", "overwrite cadre files that differ")
		.action(async (paths: string[], opts: CommonOptions & Record<string, unknown>) => {
			code = await (await load("import", import("./import-command.ts"))).runImportCommand(paths, opts, io);
		});

	program.addOption(new Option("--no-color", "never colour output").hideHelp());
	// `--no-color` means what NO_COLOR means, for every subcommand.
	program.hook("preAction", () => {
		if (program.opts().color === false) io = { ...io, env: { ...io.env, NO_COLOR: "1" } };
	});

	try {
		await program.parseAsync(argv, { from: "user" });
		return code;
	} catch (error) {
		if (error instanceof CommanderError) {
			if (error.code === "commander.helpDisplayed" || error.code === "commander.version" || error.exitCode === 0) return 0;
			return EXIT_USAGE;
		}
		if (error instanceof UsageError) {
			io.err(`cadre: ${safeLine(error.message)}\n`);
			return EXIT_USAGE;
		}
		throw error;
	}
}
